/**
 * State survives a restart: close the sandbox, open the same file again, and everything is there —
 * clients and keys, companies, connections and their tokens, syncs (still progressing on the
 * clock), the clock offset, faults, the generated admin token and the demo client.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createControlClient } from "./controls/control-client";
import { createSandbox } from "./server";
import { call, createConnection, linkedCompany } from "../testing/raw-http";
import { startTestSandbox } from "../testing/test-sandbox";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-sandbox-restart-"));

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("restart", () => {
  it("keeps every piece of state and the clock offset", async () => {
    const dbFile = path.join(dir, "sandbox.db");
    const first = await startTestSandbox({ dbFile });
    const { apiKey } = await first.control.createClient({ plan: "free" });
    const linked = await linkedCompany(first, { apiKey, platformKey: "qhyg", tenant: { records: 20_000 } });
    await first.control.advanceClock({ days: 2 });
    expect((await call(first, { method: "POST", path: `/companies/${linked.companyId}/data/all`, apiKey })).status).toBe(204);
    await first.control.setFaults({ latencyMs: 3 });
    const statusBefore = (await call(first, { path: `/companies/${linked.companyId}/dataStatus`, apiKey })).json as Record<
      string,
      { currentStatus: string; latestSyncId: string }
    >;
    expect(statusBefore.invoices?.currentStatus).toMatch(/^(Queued|Fetching)$/);
    await first.close();

    const second = await startTestSandbox({ dbFile });
    const company = await call(second, { path: `/companies/${linked.companyId}`, apiKey });
    expect(company.status).toBe(200);
    expect(company.json).toMatchObject({ dataConnections: [{ id: linked.connectionId, status: "Linked" }] });
    const clock = (await call(second, { path: "/_sandbox/clock", auth: `Bearer ${second.adminToken}` })).json as { offsetSeconds: number };
    expect(clock.offsetSeconds).toBe(2 * 86_400);
    expect((await second.control.getFaults()).latencyMs).toBe(3);
    const statusAfter = (await call(second, { path: `/companies/${linked.companyId}/dataStatus`, apiKey })).json as Record<
      string,
      { currentStatus: string; latestSyncId: string }
    >;
    expect(statusAfter.invoices?.latestSyncId).toBe(statusBefore.invoices?.latestSyncId);
    expect(statusAfter.invoices?.currentStatus).toMatch(/^(Queued|Fetching)$/);

    // Syncs keep progressing from their stored plan; the service's stored tokens still work.
    await second.control.advanceClock({ seconds: 3600 });
    const done = await call(second, { path: `/companies/${linked.companyId}/data/invoices?pageSize=1`, apiKey });
    expect(done.json).toMatchObject({ totalResults: 20_000 });
    await call(second, { method: "POST", path: `/companies/${linked.companyId}/data/all`, apiKey });
    await second.control.advanceClock({ seconds: 3600 });
    const again = await call(second, { path: `/companies/${linked.companyId}/connections/${linked.connectionId}`, apiKey });
    expect(again.json).toMatchObject({ status: "Linked" });
    await second.close();
  });

  it("keeps a scheduled drop, which happens at its time after the restart, and an open Link page still connects", async () => {
    const dbFile = path.join(dir, "drops.db");
    const first = await startTestSandbox({ dbFile });
    const { apiKey } = await first.control.createClient({ plan: "paid" });
    const linked = await linkedCompany(first, { apiKey, platformKey: "rwuv" });
    const clock = await first.control.advanceClock({});
    const at = new Date(Date.parse(clock.now) + 86_400_000).toISOString();
    expect((await first.control.deauthorize(linked.companyId, linked.connectionId, { at })).applied).toBe(false);
    // A Link page opened before the restart (its Shopify connection is still to connect, so it carries a nonce).
    await createConnection(first, apiKey, linked.companyId, "fztf");
    const page = await (await fetch(`${first.url}/link/company/${linked.companyId}`)).text();
    const nonce = (/name="nonce" value="([^"]+)"/.exec(page)?.[1] ?? "").replace(/&amp;/g, "&");
    expect(nonce).not.toBe("");
    await first.close();

    const second = await startTestSandbox({ dbFile });
    const connectionPath = `/companies/${linked.companyId}/connections/${linked.connectionId}`;
    expect((await call(second, { path: connectionPath, apiKey })).json).toMatchObject({ status: "Linked" });
    await second.control.advanceClock({ days: 1 });
    expect((await call(second, { path: connectionPath, apiKey })).json).toMatchObject({
      status: "Deauthorized",
      dataConnectionErrors: [{ status: "Active", erroredOnUtc: at }],
    });
    const posted = await fetch(`${second.url}/link/company/${linked.companyId}/connections/${linked.connectionId}/connect`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ nonce }).toString(),
      redirect: "manual",
    });
    // The nonce made before the restart is still this sandbox's (its secret is kept in the file).
    expect(posted.status).toBe(303);
    expect((await call(second, { path: connectionPath, apiKey })).json).toMatchObject({ status: "Linked" });
    await second.close();
  });

  it("keeps the generated admin token and the demo client's key", async () => {
    const dbFile = path.join(dir, "demo.db");
    const first = await createSandbox({ dbFile, demoClient: true });
    expect(first.demoApiKey).toMatch(/^[A-Za-z0-9]{40}$/);
    await first.close();

    const second = await createSandbox({ dbFile, demoClient: true });
    expect(second.adminToken).toBe(first.adminToken);
    expect(second.demoApiKey).toBe(first.demoApiKey);
    expect((await call(second, { path: "/companies", apiKey: second.demoApiKey ?? "" })).status).toBe(200);

    // A reset keeps the demo client (empty) and the admin token.
    await createControlClient({ url: second.url, adminToken: second.adminToken }).reset();
    expect((await call(second, { path: "/companies", apiKey: second.demoApiKey ?? "" })).json).toMatchObject({ totalResults: 0 });
    await second.close();
  });
});
