/**
 * The sync-mode controls: a client's syncs `instant` (ended when queued) or `held` (Fetching until
 * released), beside `timed` ones on the sandbox clock; the same outcomes and settle in every mode.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getManagedPlatform } from "../../platforms";
import { arr, call, linkedCompany, type LinkedCompany } from "../../testing/raw-http";
import { startTestSandbox, type TestSandbox } from "../../testing/test-sandbox";

let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});

afterAll(async () => {
  await sb.close();
});

type Status = { currentStatus: string; latestSyncId?: string; latestSuccessfulSyncId?: string };
type Op = { id: string; status: string; progress: number; isCompleted: boolean; isErrored: boolean; errorMessage?: string };

async function statuses(sandbox: TestSandbox, apiKey: string, companyId: string): Promise<Record<string, Status>> {
  const result = await call(sandbox, { path: `/companies/${companyId}/dataStatus`, apiKey });
  expect(result.status).toBe(200);
  return result.json as Record<string, Status>;
}

/** The latest sync of one data type, as the history shows it. */
async function latestOp(sandbox: TestSandbox, apiKey: string, companyId: string, dataType = "invoices"): Promise<Op> {
  const result = await call(sandbox, {
    path: `/companies/${companyId}/data/history?query=${encodeURIComponent(`dataType=${dataType}`)}`,
    apiKey,
  });
  const [op] = arr(result.json, "results") as Op[];
  if (!op) throw new Error(`No ${dataType} sync on ${companyId}`);
  return op;
}

async function connectionOf(sandbox: TestSandbox, apiKey: string, linked: LinkedCompany): Promise<Record<string, unknown>> {
  const result = await call(sandbox, { path: `/companies/${linked.companyId}/connections/${linked.connectionId}`, apiKey });
  expect(result.status).toBe(200);
  return result.json as Record<string, unknown>;
}

async function syncAll(sandbox: TestSandbox, apiKey: string, companyId: string): Promise<void> {
  expect((await call(sandbox, { method: "POST", path: `/companies/${companyId}/data/all`, apiKey })).status).toBe(204);
}

async function queue(sandbox: TestSandbox, apiKey: string, companyId: string, dataType = "invoices") {
  return call(sandbox, { method: "POST", path: `/companies/${companyId}/data/queue/${dataType}`, apiKey });
}

/** QuickBooks Online's data types a sync fetches (the rest are NotSupported). */
const QBO_SUPPORTED = getManagedPlatform("qhyg")?.supportedDataTypes.length ?? 0;

describe("instant syncs", () => {
  it("end when queued: a 30,000-record sync reads Complete at once and sets the connection's lastSync", async () => {
    const { apiKey, syncs } = await sb.control.createClient({ plan: "paid", syncs: "instant" });
    expect(syncs).toBe("instant");
    const linked = await linkedCompany(sb, { apiKey, platformKey: "qhyg", tenant: { records: 30_000, fetchErrorDataTypes: ["bills"] } });
    await syncAll(sb, apiKey, linked.companyId);

    const now = await statuses(sb, apiKey, linked.companyId);
    expect(now.invoices).toMatchObject({ currentStatus: "Complete", latestSuccessfulSyncId: now.invoices?.latestSyncId });
    expect(now.bills?.currentStatus).toBe("FetchError");
    expect(now.directIncomes?.currentStatus).toBe("NotSupported");
    expect(Object.values(now).filter((s) => s.currentStatus === "Complete")).toHaveLength(QBO_SUPPORTED - 1);
    expect(await latestOp(sb, apiKey, linked.companyId)).toMatchObject({ status: "Complete", progress: 100, isCompleted: true });
    expect(await connectionOf(sb, apiKey, linked)).toMatchObject({ status: "Linked", lastSync: expect.any(String) });
    const read = await call(sb, { path: `/companies/${linked.companyId}/data/invoices?pageSize=1`, apiKey });
    expect(read.json).toMatchObject({ totalResults: 30_000 });

    // Queuing one type answers the ended operation; a type the platform lacks stays NotSupported.
    expect((await queue(sb, apiKey, linked.companyId)).json).toMatchObject({ status: "Complete", isCompleted: true });
    expect((await queue(sb, apiKey, linked.companyId, "itemReceipts")).json).toMatchObject({ status: "NotSupported" });
  });

  it("end AuthError at once for refused credentials, and the connection is Deauthorized", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid", syncs: "instant" });
    const linked = await linkedCompany(sb, { apiKey, platformKey: "qhyg" });
    await sb.control.rotate("qhyg", linked.tenant.tenantId);
    await syncAll(sb, apiKey, linked.companyId);

    expect(await latestOp(sb, apiKey, linked.companyId)).toMatchObject({ status: "AuthError", isErrored: true, errorMessage: expect.any(String) });
    const connection = await connectionOf(sb, apiKey, linked);
    expect(connection).toMatchObject({ status: "Deauthorized", dataConnectionErrors: [{ statusCode: "401", status: "Active" }] });
    expect(connection.lastSync).toBeUndefined();
  });
});

describe("held syncs", () => {
  it("stay Fetching across days of clock until released; the release ends them with their outcome; later ones are held again", async () => {
    const held = await sb.control.createClient({ plan: "paid", syncs: "held" });
    const timed = await sb.control.createClient({ plan: "paid" });
    const heldLinked = await linkedCompany(sb, { apiKey: held.apiKey, platformKey: "qhyg", tenant: { records: 30_000 } });
    const timedLinked = await linkedCompany(sb, { apiKey: timed.apiKey, platformKey: "qhyg", tenant: { records: 10 } });
    await syncAll(sb, held.apiKey, heldLinked.companyId);
    await syncAll(sb, timed.apiKey, timedLinked.companyId);

    const underway = await latestOp(sb, held.apiKey, heldLinked.companyId);
    expect(underway).toMatchObject({ status: "Fetching", isCompleted: false });
    expect(underway.progress).toBeGreaterThan(0);
    expect(underway.progress).toBeLessThan(100);

    await sb.control.advanceClock({ days: 3 });
    expect(await latestOp(sb, held.apiKey, heldLinked.companyId)).toMatchObject({ id: underway.id, status: "Fetching", progress: underway.progress });
    expect((await statuses(sb, held.apiKey, heldLinked.companyId)).directIncomes?.currentStatus).toBe("NotSupported");
    expect((await connectionOf(sb, held.apiKey, heldLinked)).lastSync).toBeUndefined();
    // Still in progress for the API too: queuing the type again is refused.
    expect((await queue(sb, held.apiKey, heldLinked.companyId)).status).toBe(409);
    // The timed client beside it ran on the clock.
    expect((await statuses(sb, timed.apiKey, timedLinked.companyId)).invoices?.currentStatus).toBe("Complete");
    expect(await sb.control.releaseSyncs(timed.clientId)).toEqual({ clientId: timed.clientId, mode: "timed", released: 0 });

    expect(await sb.control.releaseSyncs(held.clientId)).toEqual({ clientId: held.clientId, mode: "held", released: QBO_SUPPORTED });
    expect(await latestOp(sb, held.apiKey, heldLinked.companyId)).toMatchObject({ id: underway.id, status: "Complete", progress: 100 });
    expect(await connectionOf(sb, held.apiKey, heldLinked)).toMatchObject({ status: "Linked", lastSync: expect.any(String) });
    const read = await call(sb, { path: `/companies/${heldLinked.companyId}/data/invoices?pageSize=1`, apiKey: held.apiKey });
    expect(read.json).toMatchObject({ totalResults: 30_000 });

    const again = await queue(sb, held.apiKey, heldLinked.companyId);
    expect(again.json).toMatchObject({ status: "Fetching", isCompleted: false });
    await sb.control.advanceClock({ days: 1 });
    expect((await latestOp(sb, held.apiKey, heldLinked.companyId)).status).toBe("Fetching");
    expect(await sb.control.releaseSyncs(held.clientId)).toMatchObject({ released: 1 });
    expect((await latestOp(sb, held.apiKey, heldLinked.companyId)).status).toBe("Complete");
    expect(await sb.control.releaseSyncs(held.clientId)).toMatchObject({ released: 0 });
  });

  it("are released per client: another held client's syncs stay held", async () => {
    const first = await sb.control.createClient({ plan: "paid", syncs: "held" });
    const second = await sb.control.createClient({ plan: "paid", syncs: "held" });
    const firstLinked = await linkedCompany(sb, { apiKey: first.apiKey, platformKey: "pbtz" });
    const secondLinked = await linkedCompany(sb, { apiKey: second.apiKey, platformKey: "pbtz" });
    await queue(sb, first.apiKey, firstLinked.companyId);
    await queue(sb, second.apiKey, secondLinked.companyId);

    expect(await sb.control.releaseSyncs(first.clientId)).toMatchObject({ released: 1 });
    expect((await latestOp(sb, first.apiKey, firstLinked.companyId)).status).toBe("Complete");
    expect((await latestOp(sb, second.apiKey, secondLinked.companyId)).status).toBe("Fetching");
    expect(await sb.control.releaseSyncs(second.clientId)).toMatchObject({ released: 1 });
  });

  it("end with their planned outcome: FetchError, and AuthError with the connection Deauthorized", async () => {
    const { clientId, apiKey } = await sb.control.createClient({ plan: "paid", syncs: "held" });
    const failing = await linkedCompany(sb, { apiKey, platformKey: "qhyg", tenant: { fetchErrorDataTypes: ["bills"] } });
    const refused = await linkedCompany(sb, { apiKey, platformKey: "qhyg" });
    await sb.control.rotate("qhyg", refused.tenant.tenantId);
    await queue(sb, apiKey, failing.companyId, "bills");
    await queue(sb, apiKey, refused.companyId);
    await sb.control.advanceClock({ days: 1 });
    expect((await latestOp(sb, apiKey, failing.companyId, "bills")).status).toBe("Fetching");
    expect((await latestOp(sb, apiKey, refused.companyId)).status).toBe("Fetching");
    expect((await connectionOf(sb, apiKey, refused)).status).toBe("Linked");

    expect(await sb.control.releaseSyncs(clientId)).toMatchObject({ released: 2 });
    expect(await latestOp(sb, apiKey, failing.companyId, "bills")).toMatchObject({ status: "FetchError", isErrored: true });
    expect(await latestOp(sb, apiKey, refused.companyId)).toMatchObject({ status: "AuthError", isErrored: true });
    expect(await connectionOf(sb, apiKey, refused)).toMatchObject({ status: "Deauthorized" });
  });

  it("end AuthError when the tenant's tokens are rotated under them, as a timed sync running would", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid", syncs: "held" });
    const linked = await linkedCompany(sb, { apiKey, platformKey: "qhyg" });
    await queue(sb, apiKey, linked.companyId);
    await sb.control.rotate("qhyg", linked.tenant.tenantId);
    expect((await latestOp(sb, apiKey, linked.companyId)).status).toBe("AuthError");
    expect((await connectionOf(sb, apiKey, linked)).status).toBe("Deauthorized");
  });
});

describe("mode changes and errors", () => {
  it("sets the mode for syncs queued later; held syncs stay held until released; the state shows the mode", async () => {
    const { clientId, apiKey, syncs } = await sb.control.createClient({ plan: "paid" });
    expect(syncs).toBe("timed");
    const linked = await linkedCompany(sb, { apiKey, platformKey: "fbrh", tenant: { records: 20_000 } });

    expect(await sb.control.setSyncs(clientId, "instant")).toEqual({ clientId, mode: "instant" });
    expect((await queue(sb, apiKey, linked.companyId)).json).toMatchObject({ status: "Complete" });

    await sb.control.setSyncs(clientId, "held");
    expect((await queue(sb, apiKey, linked.companyId)).json).toMatchObject({ status: "Fetching" });
    await sb.control.setSyncs(clientId, "timed");
    await sb.control.advanceClock({ days: 1 });
    expect((await latestOp(sb, apiKey, linked.companyId)).status).toBe("Fetching");
    const state = (await sb.control.state()) as { clients: { clientId: string; syncs: string }[] };
    expect(state.clients.find((c) => c.clientId === clientId)).toMatchObject({ syncs: "timed" });
    expect(await sb.control.releaseSyncs(clientId)).toEqual({ clientId, mode: "timed", released: 1 });
    expect((await latestOp(sb, apiKey, linked.companyId)).status).toBe("Complete");

    // Timed again: the next sync of 20,000 records is still running a second later on the clock.
    expect((await queue(sb, apiKey, linked.companyId)).json).toMatchObject({ status: "Queued" });
    await sb.control.advanceClock({ seconds: 1 });
    expect((await latestOp(sb, apiKey, linked.companyId)).status).toBe("Fetching");
  });

  it("refuses a bad body (400) and an unknown client (404) with the controls' error bodies", async () => {
    const auth = `Bearer ${sb.adminToken}`;
    const { clientId } = await sb.control.createClient({ plan: "free" });
    const badCreate = await call(sb, { method: "POST", path: "/_sandbox/clients", auth, body: { plan: "free", syncs: "paused" } });
    expect(badCreate.status).toBe(400);
    expect(badCreate.json).toMatchObject({ statusCode: 400, service: "SandboxControls", validation: { errors: [{ itemId: "syncs" }] } });

    for (const body of [{ mode: "fast" }, {}, { mode: "held", extra: 1 }, undefined]) {
      const bad = await call(sb, { method: "PUT", path: `/_sandbox/clients/${clientId}/syncs`, auth, body });
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ statusCode: 400, service: "SandboxControls", validation: { errors: [expect.objectContaining({ validatorName: "SandboxControls" })] } });
    }
    const modeError = await call(sb, { method: "PUT", path: `/_sandbox/clients/${clientId}/syncs`, auth, body: { mode: "fast" } });
    expect(modeError.json).toMatchObject({ validation: { errors: [{ itemId: "mode" }] } });
    const badRelease = await call(sb, { method: "POST", path: `/_sandbox/clients/${clientId}/syncs/release`, auth, body: { all: true } });
    expect(badRelease.status).toBe(400);
    expect(badRelease.json).toMatchObject({ service: "SandboxControls", validation: { errors: [{ itemId: "body" }] } });

    const unknown = randomUUID();
    for (const request of [
      { method: "PUT", path: `/_sandbox/clients/${unknown}/syncs`, body: { mode: "held" } },
      { method: "POST", path: `/_sandbox/clients/${unknown}/syncs/release` },
    ]) {
      const missing = await call(sb, { ...request, auth });
      expect(missing.status).toBe(404);
      expect(missing.json).toMatchObject({ statusCode: 404, service: "SandboxControls", error: `No client was found with ID ${unknown}` });
    }
    await expect(sb.control.setSyncs(unknown, "held")).rejects.toMatchObject({ status: 404 });
    await expect(sb.control.releaseSyncs(unknown)).rejects.toMatchObject({ status: 404 });
    expect((await call(sb, { method: "GET", path: `/_sandbox/clients/${clientId}/syncs`, auth })).status).toBe(405);
  });
});

describe("restart", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-sandbox-syncs-"));
  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the mode and the held syncs", async () => {
    const dbFile = path.join(dir, "sandbox.db");
    const first = await startTestSandbox({ dbFile });
    const { clientId, apiKey } = await first.control.createClient({ plan: "paid", syncs: "held" });
    const linked = await linkedCompany(first, { apiKey, platformKey: "qhyg" });
    await queue(first, apiKey, linked.companyId);
    await first.close();

    const second = await startTestSandbox({ dbFile });
    try {
      await second.control.advanceClock({ days: 1 });
      expect((await latestOp(second, apiKey, linked.companyId)).status).toBe("Fetching");
      expect(await second.control.releaseSyncs(clientId)).toEqual({ clientId, mode: "held", released: 1 });
      expect((await latestOp(second, apiKey, linked.companyId)).status).toBe("Complete");
    } finally {
      await second.close();
    }
  });
});
