/**
 * The runner against a real sandbox on a random port and the test database (SQLite, or PostgreSQL
 * on its pass): a company migrated
 * call by call with every call stored; a runner stopped at every boundary (after a call's answer
 * but before its record, and after its record) and resumed by another whose lease took over,
 * leaving exactly one company and one connection; a rotated tenant, a commerce platform, a data
 * type that fails to sync.
 *
 * Runs on both databases: a run resumed from its stored calls after its lease expires.
 * @module-tag both-databases
 */
import { asc, eq } from "drizzle-orm";
import { readSteps } from "@/db/database";
import { describe, expect, it } from "vitest";
import { auditEvents, migrationItems, serviceCalls } from "@/db/schema";
import { createServiceClient, type ServiceClient } from "@/server/service-client";
import { TEST_KEY_RING } from "@/server/testing/test-db";
import { claimItem, findItem, platformOf } from "./item-repository";
import { DEFAULT_PIPELINE_POLICY, ITEM_TAG, type PipelineCall, type PipelinePolicy } from "./pipeline";
import { insertRun } from "./run-repository";
import { driveItem, stepItem, type RunnerContext } from "./runner";
import type { ReadyCompany, ReadyEngagement } from "../../testing/ready-engagement";
import { engineTestBed } from "../../testing/test-bed";
import { answeringServer, redirectingProxy } from "../../testing/hostile-servers";

const FAST: PipelinePolicy = { ...DEFAULT_PIPELINE_POLICY, pollInitialMs: 100, pollFactor: 1.5, pollMaxMs: 500, retryBaseMs: 50, retryMaxMs: 200, syncDeadlineMs: 60_000 };
const LEASE_MS = 10_000;

const bed = engineTestBed();

const ready = (companies: ReadyCompany[], platformKey: "qhyg" | "fztf" = "qhyg"): Promise<ReadyEngagement> => bed.ready(companies, { platformKey });

/** The item as stored now. */
const itemNow = (itemId: string) => readSteps(bed.t.database, (tx) => findItem(tx, itemId));
/** A worker's claim on the item (its own read-committed transaction, as the worker makes it). */
/** The fencing token of each worker's latest claim, by its owner id. */
const tokens = new Map<string, string>();
const claim = async (params: Parameters<typeof claimItem>[1]) => {
  const row = await bed.t.database.transaction((tx) => claimItem(tx, params), { isolation: "read committed" });
  if (row?.leaseToken) tokens.set(params.owner, row.leaseToken);
  return row;
};
const tokenOf = (ctx: { owner: string }) => tokens.get(ctx.owner) ?? "no claim";
/** The service calls stored for an item, in order. */
const callsOf = (itemId: string) => bed.t.db.select().from(serviceCalls).where(eq(serviceCalls.itemId, itemId)).orderBy(asc(serviceCalls.id));

/** A run holding one item, and a runner context for it with a worker id of its own. */
async function runnerFor(eng: ReadyEngagement, itemId: string, owner: string, client: ServiceClient, extra: Partial<RunnerContext> = {}): Promise<RunnerContext> {
  const runId = crypto.randomUUID();
  await bed.t.database.transaction((tx) => insertRun(tx, { id: runId, engagementId: eng.engagementId, kind: "pilot", serviceTargetId: eng.serviceTargetId, itemId, requestedById: bed.people.support.id, now: new Date() }), { isolation: "read committed" });
  await bed.t.db.update(migrationItems).set({ runId }).where(eq(migrationItems.id, itemId));
  return {
    database: bed.t.database,
    ring: TEST_KEY_RING,
    client,
    runId,
    owner,
    engagement: { id: eng.engagementId, organizationId: eng.organizationId, reference: eng.reference },
    platform: platformOf(eng.platformKey),
    rehearsal: false,
    policy: FAST,
    ...extra,
  };
}

/** What the sandbox holds for an item: its companies (by tag) and each one's connections. */
async function onService(client: ServiceClient, itemId: string) {
  const { data: companies } = await client.findCompaniesByTag({ name: ITEM_TAG, value: itemId });
  const connections = await Promise.all(companies.map(async (c) => (await client.listConnections({ companyId: c.id })).data));
  return { companies: companies.length, connections: connections.flat().length };
}

describe("one company, call by call", () => {
  it("creates, connects, authorizes, syncs, polls and reads; every call is stored with its correlationId before the next", async () => {
    const eng = await ready([{ name: "Harbour Books", records: 5, externalRef: "HB-1" }]);
    const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
    const itemId = eng.items[0]!.id;
    const ctx = await runnerFor(eng, itemId, "worker-a", client);
    expect(await claim({ itemId, runId: ctx.runId, owner: "worker-a", leaseMs: LEASE_MS, now: new Date() })).toBeDefined();

    const seen: PipelineCall[] = [];
    for (;;) {
      const step = await stepItem(ctx, itemId, tokenOf(ctx));
      if (step.kind === "final") break;
      if (step.kind === "wait") {
        await new Promise((r) => setTimeout(r, step.until.getTime() - Date.now()));
        continue;
      }
      seen.push(step.call);
      // Stored before the next call: the item's state and the call's row are there now.
      expect((await itemNow(itemId))!.state).toBe(step.transition.state);
      expect(await callsOf(itemId)).toHaveLength(seen.length);
    }
    expect(seen.slice(0, 4)).toEqual(["createCompany", "createConnection", "authorize", "requestSync"]);
    expect(seen.at(-1)).toBe("readData");
    expect(seen.slice(4, -1).every((c) => c === "getDataStatus")).toBe(true);

    const item = (await itemNow(itemId))!;
    expect(item).toMatchObject({ state: "verified", inFlightCall: null, lastError: null, attempts: 0 });
    expect(item.checks).toMatchObject({ connection: { status: "Linked" }, read: { dataType: "chartOfAccounts", records: 5 } });
    expect(Object.values((item.checks as { sync: { dataTypes: Record<string, string> } }).sync.dataTypes).every((s) => s === "Complete" || s === "NotSupported")).toBe(true);
    expect(item.finishedAt).toBeInstanceOf(Date);

    const calls = await callsOf(itemId);
    expect(calls.every((c) => c.ok && /^[0-9a-f-]{36}$/.test(c.correlationId ?? ""))).toBe(true);
    expect(calls[0]).toMatchObject({ operation: "createCompany", method: "POST", path: "/companies", status: 200, detail: { companyId: item.companyId } });
    expect(calls[2]).toMatchObject({ operation: "authorizeConnection", method: "PUT", detail: { status: "Linked" } });

    // The credentials were decrypted once, for the authorization call, and that is on record (without them).
    const decryptions = (await bed.t.db.select().from(auditEvents).where(eq(auditEvents.action, "migration_item.credentials_decrypted"))).filter((e) => e.targetId === itemId);
    expect(decryptions).toHaveLength(1);
    expect(decryptions[0]).toMatchObject({ engagementId: eng.engagementId, actorLabel: "System", after: { company: "Harbour Books", rehearsal: false } });

    const company = await client.getCompany({ companyId: item.companyId! });
    expect(company.data).toMatchObject({ name: "Harbour Books", tags: { [ITEM_TAG]: itemId } });
    expect(await onService(client, itemId)).toEqual({ companies: 1, connections: 1 });
  });
});

describe("resume at every boundary", () => {
  /** Stops a runner the first time it reaches `call`: before its answer is stored, or right after. */
  class Crash extends Error {}
  const BOUNDARIES: PipelineCall[] = ["createCompany", "createConnection", "authorize", "requestSync", "getDataStatus", "readData"];
  const scenarios = BOUNDARIES.flatMap((call) => [
    { call, when: "before its record" as const },
    { call, when: "after its record" as const },
  ]);

  it.each(scenarios.map((s) => [s.call, s.when, s] as const))(
    "stopped at %s, %s: another worker resumes after the lease expires; one company, one connection, verified",
    async (_call, _when, scenario) => {
      const eng = await ready([{ name: `Resume ${scenario.call} ${scenario.when}`, records: 3 }]);
      const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
      const itemId = eng.items[0]!.id;
      const first = await runnerFor(eng, itemId, "worker-1", client, {
        beforeStore: (call) => {
          if (scenario.when === "before its record" && call === scenario.call) throw new Crash(call);
        },
      });
      await claim({ itemId, runId: first.runId, owner: "worker-1", leaseMs: LEASE_MS, now: new Date() });

      // The first worker runs until it dies at the boundary.
      let stopped = false;
      while (!stopped) {
        try {
          const step = await stepItem(first, itemId, tokenOf(first));
          if (step.kind === "final") throw new Error("finished without reaching the boundary");
          if (step.kind === "wait") await new Promise((r) => setTimeout(r, step.until.getTime() - Date.now()));
          else if (scenario.when === "after its record" && step.call === scenario.call) stopped = true;
        } catch (error) {
          if (!(error instanceof Crash)) throw error;
          stopped = true;
        }
      }
      const atCrash = (await itemNow(itemId))!;
      if (scenario.when === "before its record" && (scenario.call === "createCompany" || scenario.call === "createConnection")) {
        // The create was sent and answered, but only its intent is stored.
        expect(atCrash.inFlightCall).toBe(scenario.call);
      }

      // The lease is still the dead worker's: nobody else may take the item yet; once it expires, another does.
      expect(await claim({ itemId, runId: first.runId, owner: "worker-2", leaseMs: LEASE_MS, now: new Date() })).toBeUndefined();
      expect(await claim({ itemId, runId: first.runId, owner: "worker-2", leaseMs: LEASE_MS, now: new Date(Date.now() + LEASE_MS + 1) })).toBeDefined();
      const second: RunnerContext = { ...first, owner: "worker-2", beforeStore: undefined };
      // The first worker, come back to life, can no longer write.
      await expect(stepItem(first, itemId, tokenOf(first))).rejects.toThrow(/no longer this worker's/);

      const result = await driveItem(second, itemId, tokenOf(second));
      expect(result).toEqual({ state: "verified", runStop: null });
      expect(await onService(client, itemId)).toEqual({ companies: 1, connections: 1 });
      const item = (await itemNow(itemId))!;
      expect(item.companyId).toBe(atCrash.companyId ?? item.companyId);
      if (scenario.when === "before its record" && scenario.call === "createCompany") {
        const operations = (await callsOf(itemId)).map((c) => c.operation);
        // The unstored create is healed by a lookup, not a second create.
        expect(operations.slice(0, 3)).toEqual(["findCompaniesByTag", "createConnection", "authorizeConnection"]);
      }
      if (scenario.when === "before its record" && scenario.call === "createConnection") {
        const operations = (await callsOf(itemId)).map((c) => c.operation);
        expect(operations.slice(0, 3)).toEqual(["createCompany", "listConnections", "authorizeConnection"]);
      }
    },
  );
});

describe("outcomes a company can have", () => {
  it("a tenant rotated after the export ends reauth_required with the platform's reason", async () => {
    const eng = await ready([{ name: "Rotated Ltd", records: 3, rotatedAfterExport: true }]);
    const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
    const itemId = eng.items[0]!.id;
    const ctx = await runnerFor(eng, itemId, "worker-r", client);
    await claim({ itemId, runId: ctx.runId, owner: "worker-r", leaseMs: LEASE_MS, now: new Date() });
    expect(await driveItem(ctx, itemId, tokenOf(ctx))).toEqual({ state: "reauth_required", runStop: null });
    const item = (await itemNow(itemId))!;
    expect(item.outcomeReason).toMatch(/^400 Bad Request: QuickBooks Online rejected the credentials: invalid_grant: the refresh token was already used/);
    expect(item.checks).toMatchObject({ connection: { status: "Deauthorized", errors: [{ statusCode: "400" }] } });
    expect(item.lastError).toMatchObject({ kind: "reauthorization_required", operation: "authorizeConnection" });
  });

  it("a target that redirects the token migration (307): the tokens go nowhere else, the failure is stored on the company with status and location, and the run stops", async () => {
    const eng = await ready([{ name: "Redirected Ltd", records: 3 }]);
    const elsewhere = await answeringServer({ status: 200, body: {} });
    // The sandbox answers every call but PUT …/authorization, which it sends elsewhere.
    const proxy = await redirectingProxy({ upstream: bed.sb.url, to: elsewhere.url, redirect: (req) => req.method === "PUT" && /\/authorization$/.test(req.url ?? "") });
    try {
      const client = createServiceClient({ baseUrl: proxy.url, apiKey: eng.apiKey });
      const itemId = eng.items[0]!.id;
      const ctx = await runnerFor(eng, itemId, "worker-x", client);
      await claim({ itemId, runId: ctx.runId, owner: "worker-x", leaseMs: LEASE_MS, now: new Date() });
      const result = await driveItem(ctx, itemId, tokenOf(ctx));
      expect(result.runStop).toMatchObject({ kind: "redirected", status: 307, operation: "authorizeConnection" });
      const item = (await itemNow(itemId))!;
      expect(item.lastError).toMatchObject({ kind: "redirected", status: 307, operation: "authorizeConnection", error: expect.stringContaining(`redirecting to ${elsewhere.url}/companies/${item.companyId}`) as string });
      const calls = await callsOf(itemId);
      expect(calls.at(-1)).toMatchObject({ operation: "authorizeConnection", ok: false, status: 307, errorKind: "redirected" });
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await proxy.close();
      await elsewhere.close();
    }
  });

  it("a commerce company proves its data with a commerce-orders read on its connection", async () => {
    const eng = await ready([{ name: "Corner Shop", records: 4 }], "fztf");
    const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
    const itemId = eng.items[0]!.id;
    const ctx = await runnerFor(eng, itemId, "worker-s", client);
    await claim({ itemId, runId: ctx.runId, owner: "worker-s", leaseMs: LEASE_MS, now: new Date() });
    expect(await driveItem(ctx, itemId, tokenOf(ctx))).toEqual({ state: "verified", runStop: null });
    expect((await itemNow(itemId))!.checks).toMatchObject({ read: { dataType: "commerce-orders", records: 4 } });
  });

  it("a data type that fails to sync fails the company, naming it", async () => {
    const eng = await ready([{ name: "Broken Invoices", records: 3, fetchErrorDataTypes: ["invoices"] }]);
    const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
    const itemId = eng.items[0]!.id;
    const ctx = await runnerFor(eng, itemId, "worker-f", client);
    await claim({ itemId, runId: ctx.runId, owner: "worker-f", leaseMs: LEASE_MS, now: new Date() });
    expect(await driveItem(ctx, itemId, tokenOf(ctx))).toEqual({ state: "failed", runStop: null });
    expect(await itemNow(itemId)).toMatchObject({ outcomeReason: "1 data type did not sync: invoices FetchError.", lastError: { kind: "sync_failed" } });
  });

  it("a free trial at its 50 companies stops the run, leaving the company to try again", async () => {
    const eng = await ready([{ name: "Fifty First", records: 3 }]);
    const { apiKey } = await bed.sb.control.createClient({ plan: "free" });
    const full = createServiceClient({ baseUrl: bed.sb.url, apiKey });
    await Promise.all(Array.from({ length: 50 }, (_, i) => full.createCompany({ name: `Existing ${i}` })));
    const itemId = eng.items[0]!.id;
    const ctx = await runnerFor(eng, itemId, "worker-l", full);
    await claim({ itemId, runId: ctx.runId, owner: "worker-l", leaseMs: LEASE_MS, now: new Date() });
    const result = await driveItem(ctx, itemId, tokenOf(ctx));
    expect(result).toMatchObject({ state: "pending", runStop: { kind: "company_limit", status: 402 } });
    expect(await itemNow(itemId)).toMatchObject({ state: "pending", inFlightCall: null, lastError: { kind: "company_limit", correlationId: expect.any(String) as string } });
  });
});

describe("the name the service keeps", () => {
  it("creates each company with the name the service keeps, and the token file's name in its description when they differ", async () => {
    const eng = await ready([
      { name: "Société Générale Café", records: 3, externalRef: "SG-1" },
      { name: "株式会社テスト", records: 3, externalRef: "JP-1" },
      { name: "Harbour Books Ltd", records: 3, externalRef: "HB-1" },
    ]);
    const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
    const created: { name: string; description: string | null | undefined }[] = [];
    for (const [i, { id: itemId }] of eng.items.entries()) {
      const ctx = await runnerFor(eng, itemId, `worker-n${i}`, client);
      await claim({ itemId, runId: ctx.runId, owner: `worker-n${i}`, leaseMs: LEASE_MS, now: new Date() });
      expect(await driveItem(ctx, itemId, tokenOf(ctx))).toEqual({ state: "verified", runStop: null });
      const item = (await itemNow(itemId))!;
      const { data } = await client.getCompany({ companyId: item.companyId! });
      created.push({ name: data.name, description: data.description });
      // The item keeps the file's name and the name sent.
      expect([item.name, item.serviceName]).toEqual([eng.items[i]!.name, data.name]);
    }
    expect(created).toEqual([
      { name: "Societe Generale Cafe", description: `Migrated by Ferry (${eng.reference}). Name in the token file: Société Générale Café` },
      { name: "Company JP-1", description: `Migrated by Ferry (${eng.reference}). Name in the token file: 株式会社テスト` },
      { name: "Harbour Books Ltd", description: `Migrated by Ferry (${eng.reference}).` },
    ]);
  });

  it("works the name out by the same rule for an item stored before the name sent was recorded", async () => {
    const eng = await ready([{ name: "Zoë's Café & Bar", records: 3 }]);
    const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
    const itemId = eng.items[0]!.id;
    await bed.t.db.update(migrationItems).set({ serviceName: null }).where(eq(migrationItems.id, itemId));
    const ctx = await runnerFor(eng, itemId, "worker-old", client);
    await claim({ itemId, runId: ctx.runId, owner: "worker-old", leaseMs: LEASE_MS, now: new Date() });
    expect(await driveItem(ctx, itemId, tokenOf(ctx))).toEqual({ state: "verified", runStop: null });
    const { data } = await client.getCompany({ companyId: (await itemNow(itemId))!.companyId! });
    expect(data).toMatchObject({ name: "Zoe's Cafe & Bar", description: `Migrated by Ferry (${eng.reference}). Name in the token file: Zoë's Café & Bar` });
  });
});
