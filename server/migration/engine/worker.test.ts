/**
 * The worker against a real sandbox and the test database (a SQLite file, or PostgreSQL on its
 * pass): a single-company test asked for by
 * support and carried out by a worker (pass → step 5 done with the run as evidence; a rotated
 * tenant → advice and step 4 reopened; a wrong key; a full free trial), leases taken over after a
 * worker dies, a cancelled run let go, and the rehearsal on simulated companies.
 *
 * Runs on both databases: claims and leases of runs by workers.
 * @module-tag both-databases
 */
import fs from "node:fs";
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { Client } from "pg";
import { describe, expect, it } from "vitest";
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { auditEvents, engagementSteps, migrationItems, migrationRuns, serviceTargets } from "@/db/schema";
import { getEngagement } from "@/server/engagements/get-engagement";
import { getEngagementTimeline } from "@/server/engagements/get-engagement-timeline";
import { migrationHasStarted } from "@/server/engagements/intake/intake-repository";
import { createServiceClient } from "@/server/service-client";
import { checkpointAfterSecretOverwrite } from "@/db/checkpoint";
import { decryptSecret } from "@/server/security/secrets";
import { TEST_KEY_RING, type TestDatabase, otherConnection } from "@/server/testing/test-db";
import { cancelTestRun } from "../test-run/cancel-test-run";
import { getTestRun } from "../test-run/get-test-runs";
import { claimItem, findItem, platformOf } from "./item-repository";
import { DEFAULT_PIPELINE_POLICY, ITEM_TAG, type PipelinePolicy } from "./pipeline";
import { requestTestRun } from "../test-run/request-test-run";
import { claimRun, findRun } from "./run-repository";
import { stepItem } from "./runner";
import { until } from "@/server/testing/until";
import { engineTestBed } from "../../testing/test-bed";
import { createMigrationWorker, type MigrationWorkerOptions } from "../migration-worker";

const FAST: PipelinePolicy = { ...DEFAULT_PIPELINE_POLICY, pollInitialMs: 100, pollMaxMs: 500, retryBaseMs: 50, retryMaxMs: 200 };

const bed = engineTestBed();

/** The API keys of every target the tests made (checked against the database file at the end). */
const targetKeys: string[] = [];
const ready = async (...args: Parameters<typeof bed.ready>) => {
  const eng = await bed.ready(...args);
  targetKeys.push(eng.apiKey);
  return eng;
};

const worker = (extra: Partial<MigrationWorkerOptions> = {}) =>
  createMigrationWorker({ database: bed.t.database, ring: TEST_KEY_RING, leaseMs: 2_000, idleMs: 50, policy: FAST, sandbox: { url: bed.sb.url, adminToken: bed.sb.adminToken }, ...extra });

const steps = async (engagementId: string) =>
  Object.fromEntries((await bed.t.db.select().from(engagementSteps).where(eq(engagementSteps.engagementId, engagementId))).map((s) => [s.step, s]));

/** The run and the item as stored now. */
const runNow = (runId: string) => readSteps(bed.t.database, (tx) => findRun(tx, runId));
const itemNow = (itemId: string) => readSteps(bed.t.database, (tx) => findItem(tx, itemId));
/** A step in a read-committed transaction of its own, as the worker runs its claims. */
const inTx = <T>(database: Database, body: (tx: Tx) => Steps<T>) => database.transaction(body, { isolation: "read committed" });


/**
 * Everything the database holds, as text: the SQLite file itself (its WAL checkpointed first), or
 * on PostgreSQL every row of every table (what a dump would hold).
 */
async function storedText(t: TestDatabase): Promise<string> {
  if ("DATABASE_FILE" in t.env) {
    // The write-ahead log's pages copied into the file first (and the log emptied).
    checkpointAfterSecretOverwrite(t.database);
    return fs.readFileSync(t.env.DATABASE_FILE).toString("latin1");
  }
  const client = new Client({ connectionString: t.env.DATABASE_URL });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>("select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'");
    const texts: string[] = [];
    for (const { name } of tables.rows) {
      const rows = await client.query<{ row: string }>(`select row_to_json(t)::text as row from "${name}" t`);
      texts.push(...rows.rows.map((r) => r.row));
    }
    return texts.join("\n");
  } finally {
    await client.end();
  }
}

describe("the single-company test", () => {
  it("support asks, a worker carries it out (Ferry picks the smallest company), it passes and completes step 5 with the run as evidence", async () => {
    const eng = await ready([
      { name: "Big Co", records: 40 },
      { name: "Small Co", records: 5, externalRef: "S-1" },
      { name: "Middle Co", records: 20 },
    ]);
    const { runId } = await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot" });
    expect(await runNow(runId)).toMatchObject({ status: "queued", kind: "pilot", itemId: eng.items[1]!.id });
    expect((await steps(eng.engagementId))[5]!.state).toBe("in_progress");
    const queued = await getTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, runId });
    expect(queued).toMatchObject({ active: true, company: "Small Co", pickedBy: "smallest", progress: { done: 0, label: "Creating the company" } });
    expect(queued.checks.map((c) => c.result)).toEqual(["running", "running"]);

    const w = worker();
    expect((await w.runOnce())?.id).toBe(runId);

    const run = await getTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, runId });
    expect(run).toMatchObject({ status: "passed", result: "passed", active: false, failure: null, advice: null, stepEffect: { kind: "completed", step: 5 } });
    expect(run.checks.map((c) => [c.label, c.result])).toEqual([
      ["No reauthorization required", "passed"],
      ["Data syncs complete correctly", "passed"],
    ]);
    expect(run.progress).toMatchObject({ done: 5, of: 5, label: "Verified" });
    expect(run.dataTypes.length).toBeGreaterThan(20);
    expect(run.dataTypes.find((d) => d.dataType === "chartOfAccounts")).toEqual({ dataType: "chartOfAccounts", status: "Complete", records: 5 });
    expect(run.dataTypes.find((d) => d.dataType === "itemReceipts")).toMatchObject({ status: "NotSupported", records: null });
    // Every data type the service lists and synced Complete shows its records, not only the proof's.
    for (const dataType of ["bills", "customers", "invoices", "purchaseOrders", "suppliers"]) {
      expect(run.dataTypes.find((d) => d.dataType === dataType)).toEqual({ dataType, status: "Complete", records: 5 });
    }
    expect(run.calls.filter((c) => c.operation.startsWith("list")).map((c) => c.operation)).toEqual([
      "listAccounts",
      "listBills",
      "listCustomers",
      "listInvoices",
      "listPurchaseOrders",
      "listSuppliers",
    ]);
    expect(run.calls.map((c) => c.operation).slice(0, 4)).toEqual(["createCompany", "createConnection", "authorizeConnection", "refreshAllData"]);
    expect(run.calls.every((c) => c.ok && c.correlationId)).toBe(true);
    expect(run.durations.runMs).toBeGreaterThan(0);
    expect(run.item).toMatchObject({ name: "Small Co", externalRef: "S-1", state: "verified", companyId: expect.any(String) as string });

    const step5 = (await steps(eng.engagementId))[5]!;
    expect(step5).toMatchObject({ state: "done", completedById: bed.people.support.id });
    expect(step5.evidence).toEqual({ flow: { kind: "test_passed", runId, itemId: eng.items[1]!.id, companyId: run.item!.companyId, connectionId: run.item!.connectionId } });
    expect((await getEngagement(bed.t.database, bed.people.support, eng.engagementId)).currentStep).toBe(6);

    // Decryptions on record: the target's key when the worker took the run up, the company's credentials once.
    const timeline = (await getEngagementTimeline(bed.t.database, bed.people.support, eng.engagementId)).map((e) => e.summary);
    expect(timeline.slice(0, 4)).toEqual([
      "Completed step 5 (Single-company test)",
      "Single-company test on Small Co passed",
      "Decrypted the credentials of Small Co to authorize its connection on the service",
      `Decrypted a secret to call the service for the single-company test on ${eng.reference}`,
    ]);
    expect(timeline).toContain("Asked for the single-company test on Small Co (the smallest company)");
    // The worker let go of everything.
    expect(await runNow(runId)).toMatchObject({ leaseOwner: null });
    expect(await itemNow(eng.items[1]!.id)).toMatchObject({ leaseOwner: null });
  });

  it("a tenant rotated after the export fails with the advice in words, and reopens step 4 (the cascade reopens step 5)", async () => {
    const eng = await ready([{ name: "Rotated Books", records: 3, rotatedAfterExport: true }]);
    const { runId } = await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot", itemId: eng.items[0]!.id });
    await worker().runOnce();
    const run = await getTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, runId });
    const advice =
      "The platform says this company's tokens were replaced (already used: the old app refreshed them after the export). Ask the customer to confirm syncing is off in the old app: while it runs, it replaces the tokens of every company in the file. This company can come back by its reconnect link or by fresh tokens in a supplementary file.";
    expect(run).toMatchObject({
      status: "failed",
      result: "failed",
      pickedBy: "support",
      statusReason: advice,
      advice: { code: "tokens_rotated", text: advice, reopenStep: 4 },
      failure: { kind: "reauthorization_required", operation: "authorizeConnection" },
      stepEffect: { kind: "reopened", step: 4 },
    });
    expect(run.failure!.error).toContain("invalid_grant");
    // The answer that said so keeps its correlationId, to quote to the service's support.
    expect(run.failure!.correlationId).toBe(run.calls.find((c) => c.operation === "authorizeConnection")!.correlationId);
    expect(run.checks.map((c) => c.result)).toEqual(["failed", "not_reached"]);
    expect(run.checks[0]!.detail).toContain("invalid_grant");
    expect(run.item).toMatchObject({ state: "reauth_required" });
    const s = await steps(eng.engagementId);
    expect([s[4]!.state, s[5]!.state]).toEqual(["pending", "pending"]);
    expect(s[4]!.reopenedReason).toBe(`Single-company test on Rotated Books: ${advice}`);
    expect(s[5]!.reopenedReason).toBe(`Step 4 was reopened: Single-company test on Rotated Books: ${advice}`);
    // Why the advice names no new token file: after this test the portal refuses one.
    expect(await readSteps(bed.t.database, (tx) => migrationHasStarted(tx, eng.engagementId))).toBe(true);
  });

  it.each([
    ["otherApp", "tokens_never_valid", "issued to another OAuth app"],
    ["unknown", "tokens_never_valid", "not issued by the platform"],
    ["revoked", "tokens_revoked", "the end customer disconnected the app"],
  ] as const)("tokens of the kind %s fail with their own advice (%s) and leave step 4 done", async (tokens, code, words) => {
    const eng = await ready([{ name: "Wrong Tokens Ltd", records: 3, tokens }]);
    const { runId } = await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot", itemId: eng.items[0]!.id });
    await worker().runOnce();
    const run = await getTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, runId });
    expect(run).toMatchObject({
      result: "failed",
      advice: { code, reopenStep: null },
      failure: { kind: "reauthorization_required", operation: "authorizeConnection" },
      stepEffect: { kind: "none", reason: "The test failed; the checklist stays as it is." },
    });
    expect(run.advice!.text).toContain(`(${words})`);
    expect(run.advice!.text).toContain("reconnect link");
    const s = await steps(eng.engagementId);
    expect([s[4]!.state, s[5]!.state]).toEqual(["done", "in_progress"]);
    expect((await getEngagementTimeline(bed.t.database, bed.people.support, eng.engagementId))[0]!.summary).toBe(`Single-company test on Wrong Tokens Ltd failed: ${run.advice!.text.replace(/\.$/, "")}`);
  });

  it("a wrong API key fails the test saying so, with the service's status, text and correlationId", async () => {
    const eng = await ready([{ name: "Keyless", records: 3 }], { target: { apiKey: "not-a-key-of-this-service", name: "Wrong key" } });
    const { runId } = await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot" });
    await worker().runOnce();
    const run = await getTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, runId });
    expect(run).toMatchObject({
      result: "failed",
      advice: { code: "api_key_refused", reopenStep: null },
      failure: { kind: "unauthorized", status: 401, service: "PublicApi", error: "Unauthorized", correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/) as string },
      stepEffect: { kind: "none" },
    });
    expect(run.advice!.text).toContain("API key is wrong or not allowed");
    expect(run.calls).toMatchObject([{ operation: "createCompany", ok: false, status: 401, errorKind: "unauthorized" }]);
    expect((await steps(eng.engagementId))[5]!.state).toBe("in_progress");
  });

  it("a test queued on a target the engagement may no longer use fails saying why, without decrypting or sending its key", async () => {
    const eng = await ready([{ name: "Elsewhere", records: 3 }]);
    const { runId } = await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot" });
    // Before the worker takes it up, the target turns out to be another organisation's account.
    await bed.t.db.update(serviceTargets).set({ organizationId: bed.people.orgB }).where(eq(serviceTargets.id, eng.serviceTargetId));
    await worker().runOnce();
    const run = await getTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, runId });
    expect(run).toMatchObject({ result: "failed", advice: { code: "no_service_target" }, calls: [] });
    expect(run.advice!.text).toMatch(/^The engagement has no service target it may use \(Sandbox \S+ is another organisation's account on the service: choose one of this organisation's targets or the built-in sandbox\): choose one on the engagement/);
    expect(await bed.t.db.select().from(auditEvents).where(and(eq(auditEvents.action, "secret.decrypted"), eq(auditEvents.targetId, eng.serviceTargetId)))).toEqual([]);
  });

  it("a free trial already at 50 companies fails with the company-limit advice", async () => {
    const eng = await ready([{ name: "The 51st", records: 3 }], { target: { plan: "free" } });
    const filler = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
    await Promise.all(Array.from({ length: 50 }, (_, i) => filler.createCompany({ name: `Existing ${i}` })));
    const { runId } = await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot" });
    await worker().runOnce();
    const run = await getTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, runId });
    expect(run).toMatchObject({ result: "failed", failure: { kind: "company_limit", status: 402 }, advice: { code: "company_limit" } });
    expect(run.advice!.text).toContain("free trial with 50 companies");
  });
});

describe("the demo's shape", () => {
  it("an accepted file of 25 tenants of mixed volume, two rotated after the export: Ferry's pick passes", async () => {
    const volumes = [120, 45, 3_000, 800, 60, 250, 15, 900, 75, 400, 30, 1_500, 90, 200, 50, 650, 20, 350, 110, 2_000, 70, 500, 40, 1_200, 180];
    const eng = await ready(volumes.map((records, i) => ({ name: `Demo Company ${i + 1}`, records, rotatedAfterExport: i === 4 || i === 17 })));
    const { runId } = await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot" });
    await worker().runOnce();
    expect(await getTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, runId })).toMatchObject({ company: "Demo Company 7", result: "passed", stepEffect: { kind: "completed" } });
  });
});

describe("leases", () => {
  it("a worker that died mid-run holds it only until its lease expires; another worker resumes it without creating twice", async () => {
    const eng = await ready([{ name: "Crashed Midway", records: 3 }]);
    const { runId } = await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot" });
    // The dead worker: took the run and the company, made the first two calls, then stopped renewing.
    const dead = (await inTx(bed.t.database, (tx) => claimRun(tx, { owner: "dead", kinds: ["pilot"], leaseMs: 600, now: new Date() })))!;
    expect(dead.id).toBe(runId);
    const itemId = eng.items[0]!.id;
    const deadClaim = await inTx(bed.t.database, (tx) => claimItem(tx, { itemId, runId, owner: "dead", leaseMs: 600, now: new Date() }));
    const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
    const ctx = { database: bed.t.database, ring: TEST_KEY_RING, client, runId, owner: "dead", engagement: { id: eng.engagementId, organizationId: eng.organizationId, reference: eng.reference }, platform: platformOf("qhyg"), rehearsal: false, policy: FAST };
    await stepItem(ctx, itemId, deadClaim!.leaseToken!);
    await stepItem(ctx, itemId, deadClaim!.leaseToken!);
    expect((await itemNow(itemId))!.state).toBe("connection_created");

    const w = worker();
    expect(await w.runOnce()).toBeNull(); // still leased
    await new Promise((r) => setTimeout(r, 700));
    expect((await w.runOnce())?.id).toBe(runId);
    expect(await runNow(runId)).toMatchObject({ status: "passed" });
    const { data } = await client.findCompaniesByTag({ name: ITEM_TAG, value: itemId });
    expect(data).toHaveLength(1);
    expect((await client.listConnections({ companyId: data[0]!.id })).data).toHaveLength(1);
  });

  it("two workers on one database (each its own connection) never take the same run", async () => {
    const engs = await Promise.all([1, 2, 3].map((n) => ready([{ name: `Parallel ${n}`, records: 3 }])));
    const runIds: string[] = [];
    for (const e of engs) runIds.push((await requestTestRun(bed.t.database, bed.people.support, { engagementId: e.engagementId, kind: "pilot" })).runId);
    const other = otherConnection(bed.t, { max: 2 });
    try {
      // Claims interleaved from two connections: each run is taken exactly once.
      const taken: string[] = [];
      for (let i = 0; i < 6; i++) {
        const database = i % 2 ? other : bed.t.database;
        const run = await inTx(database, (tx) => claimRun(tx, { owner: `w${i % 2}`, kinds: ["pilot"], leaseMs: 60_000, now: new Date() }));
        if (run) taken.push(run.id);
      }
      expect(taken.sort()).toEqual([...runIds].sort());
      // Let them go, then two real workers share the three runs.
      await bed.t.db.update(migrationRuns).set({ leaseOwner: null, leaseExpiresAt: null }).where(isNotNull(migrationRuns.leaseOwner));
      const a = worker({ owner: "worker-a" });
      const b = createMigrationWorker({ database: other, ring: TEST_KEY_RING, leaseMs: 2_000, idleMs: 50, policy: FAST, owner: "worker-b" });
      const done = await Promise.all([a.runOnce(), b.runOnce(), a.runOnce(), b.runOnce()]);
      const ids = done.filter((r) => r !== null).map((r) => r.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of runIds) expect((await runNow(id))?.status).toBe("passed");
    } finally {
      await other.close();
    }
  });

  it("a cancelled run is let go at the next lease renewal, keeping what was stored", async () => {
    const eng = await ready([{ name: "Slow Sync", records: 100_000 }]);
    const { runId } = await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot" });
    const w = worker({ leaseMs: 400 });
    const running = w.runOnce();
    // Cancelled once its sync is requested (a 5 s cap here let a loaded CI machine cancel before that).
    await until("the sync requested", () => itemNow(eng.items[0]!.id), (i) => i?.state === "sync_requested", 30_000);
    await cancelTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, runId, reason: "Taking too long" });
    await running;
    expect(await runNow(runId)).toMatchObject({ status: "cancelled", statusReason: "Taking too long", leaseOwner: null });
    expect(await itemNow(eng.items[0]!.id)).toMatchObject({ state: "sync_requested", leaseOwner: null });
    expect((await steps(eng.engagementId))[5]!.state).toBe("in_progress");
    expect((await getEngagementTimeline(bed.t.database, bed.people.support, eng.engagementId))[0]!.summary).toBe("Cancelled the single-company test on Slow Sync: Taking too long");

    // Tested again, the company carries on from what was stored (no second company); the
    // cancelled run keeps its own view of it.
    const again = await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "pilot" });
    const secondRun = worker().runOnce();
    // The big sync is requested again; the sandbox's clock moves on instead of the test waiting.
    for (let i = 0; i < 200 && ((await itemNow(eng.items[0]!.id))!.checks as { sync?: unknown } | null)?.sync === undefined; i++) await new Promise((r) => setTimeout(r, 50));
    await bed.sb.control.advanceClock({ seconds: 3_600 });
    await secondRun;
    const second = await getTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, runId: again.runId });
    expect(second).toMatchObject({ result: "passed", item: { state: "verified" } });
    expect(second.calls.map((c) => c.operation)).not.toContain("createCompany");
    expect(await getTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, runId })).toMatchObject({
      status: "cancelled",
      item: { state: "sync_requested", companyId: second.item!.companyId },
      checks: [{ result: "passed" }, { result: "not_reached" }],
    });
  });
});

describe("the rehearsal", () => {
  it("makes a sandbox client and one simulated tenant per company, tests the chosen one's twin, and touches nothing real", async () => {
    const eng = await ready(
      [
        { name: "Real One", records: 30 },
        { name: "Real Two", records: 4, rotatedAfterExport: true },
        { name: "Real Three" },
      ],
      { stopAfterStep1: true },
    );
    const { runId } = await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "rehearsal", itemId: eng.items[1]!.id });
    await worker().runOnce();

    const run = await getTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, runId });
    expect(run).toMatchObject({
      kind: "rehearsal",
      result: "passed",
      company: "Real Two",
      preparation: { total: 3, created: 3, done: true },
      target: { baseUrl: bed.sb.url },
      stepEffect: { kind: "none", reason: "A rehearsal never changes the checklist." },
    });
    // The twin is a rehearsal item; the real items are untouched.
    const twins = await bed.t.db.select().from(migrationItems).where(eq(migrationItems.rehearsalRunId, runId));
    expect(twins.map((i) => [i.name, i.recordsHint]).sort()).toEqual([
      ["Real One", 30],
      ["Real Three", null],
      ["Real Two", 4],
    ]);
    expect(run.item).toMatchObject({ name: "Real Two", state: "verified" });
    expect(twins.find((i) => i.id === run.item!.id)?.position).toBe(1);
    const real = await bed.t.db.select().from(migrationItems).where(and(eq(migrationItems.engagementId, eng.engagementId), isNull(migrationItems.rehearsalRunId)));
    expect(real.every((i) => i.state === "pending" && i.companyId === null && i.runId === null)).toBe(true);
    // Nothing on the real target's client, and its key was never decrypted.
    const realClient = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey });
    for (const i of real) expect((await realClient.findCompaniesByTag({ name: ITEM_TAG, value: i.id })).data).toHaveLength(0);
    const decrypted = await bed.t.db.select().from(auditEvents).where(and(eq(auditEvents.action, "secret.decrypted"), eq(auditEvents.targetId, eng.serviceTargetId)));
    expect(decrypted).toHaveLength(0);
    // Only the twin's credentials were opened, and it says so.
    const opened = (await bed.t.db.select().from(auditEvents).where(eq(auditEvents.action, "migration_item.credentials_decrypted"))).filter((e) => e.engagementId === eng.engagementId);
    expect(opened.map((e) => e.targetId)).toEqual([run.item!.id]);
    expect((await runNow(runId))?.sandboxApiKeyCipher).toMatch(/^v1\./);
    const timeline = (await getEngagementTimeline(bed.t.database, bed.people.support, eng.engagementId)).map((e) => e.summary);
    expect(timeline[0]).toBe("Rehearsal on the sandbox with a simulated Real Two passed");
    expect(timeline).toContain("Decrypted the credentials of a simulated Real Two to authorize its connection on the service (rehearsal)");
    expect((await steps(eng.engagementId))[5]!.state).toBe("pending");
  });

  it("without the sandbox's controls it fails saying what is missing", async () => {
    const eng = await ready([{ name: "No Sandbox", records: 3 }], { stopAfterStep1: true });
    const { runId } = await requestTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, kind: "rehearsal" });
    await worker({ sandbox: null }).runOnce();
    expect(await getTestRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, runId })).toMatchObject({
      result: "failed",
      failure: { kind: "sandbox_unavailable" },
      advice: { code: "sandbox_unavailable" },
    });
  });
});

describe("secrets", () => {
  it("after every test above, no token or API key is stored in plain text (the SQLite file, or every PostgreSQL row), nor in what the screens get", async () => {
    const runs = await bed.t.db.select().from(migrationRuns);
    const rehearsalKeys = runs.flatMap((r) => (r.sandboxApiKeyCipher ? [decryptSecret(TEST_KEY_RING, r.sandboxApiKeyCipher, `migration_run:${r.id}:sandbox_api_key`)] : []));
    expect(rehearsalKeys.length).toBeGreaterThan(0);
    const keys = [...targetKeys, ...rehearsalKeys];
    const views = JSON.stringify(await Promise.all(runs.map((r) => getTestRun(bed.t.database, bed.people.support, { engagementId: r.engagementId, runId: r.id }))));
    const raw = await storedText(bed.t);
    expect(raw.length).toBeGreaterThan(10_000);
    for (const text of [raw, views]) {
      expect(text).not.toMatch(/qhyg\.(at|rt)\.[A-Za-z0-9_-]{10}/);
      for (const key of keys) expect(text.includes(key)).toBe(false);
    }
  });
});
