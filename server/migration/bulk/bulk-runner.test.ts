/**
 * The bulk run carried out by real workers against a real sandbox on a random port and the test
 * database (a SQLite file, or PostgreSQL on its pass): every company migrated at a small rate limit with hardly any 429, rotated tenants
 * ending reauth_required with the platform's reason, the run stopped in words by a full free trial
 * and by a refused key, a maintenance window waited out with no company failing, and two workers
 * sharing one run without creating anything twice.
 *
 * Runs on both databases: companies claimed by two workers, none twice; the run's repository.
 * @module-tag both-databases
 */
import { and, count, eq } from "drizzle-orm";
import { readSteps } from "@/db/database";
import { afterEach, describe, expect, it } from "vitest";
import { auditEvents, migrationItems, serviceCalls, serviceTargets } from "@/db/schema";
import { createServiceClient } from "@/server/service-client";
import { passSingleCompanyTest } from "@/server/testing/engagement-flows";
import { TEST_KEY_RING, TEST_NOTIFY } from "@/server/testing/test-db";
import { ITEM_TAG, DEFAULT_PIPELINE_POLICY, type PipelinePolicy } from "../engine/pipeline";
import { requestTestRun } from "../test-run/request-test-run";
import { findRun } from "../engine/run-repository";
import { engineTestBed } from "../../testing/test-bed";
import { until } from "@/server/testing/until";
import type { ReadyCompany } from "../../testing/ready-engagement";
import { createMigrationWorker, type Worker } from "../migration-worker";
import { setTargetLimits } from "@/server/targets/targets";
import { cancelBulkRun, startBulkRun, resumeBulkRun } from "./bulk-controls";
import { getBulkOverview } from "./bulk-view";

const FAST: PipelinePolicy = { ...DEFAULT_PIPELINE_POLICY, pollInitialMs: 100, pollMaxMs: 500, retryBaseMs: 50, retryMaxMs: 200 };
/** The run probes a held service every 10 s in production; here every PROBE_MS, so a hold is tested in a second or two. */
const PROBE_MS = 500;
const TIMINGS = { probeEveryMs: PROBE_MS, tickMs: 50, paceEveryMs: 250 };
const bed = engineTestBed();
const running: Worker[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.stop()));
  await bed.sb.control.setFaults({ maintenance: false, errorRate: 0, rateLimitPerSecond: null, quotaPerDay: false, requestsPerMinute: null });
});

/**
 * Workers without the hypercare watch (watch.test.ts and watcher-races.test.ts test it): every run
 * this file completes starts a watch, and a later test's worker would look at it through a pacer of
 * its own; in a maintenance window that pacer holds the look for the 503's Retry-After (30 s), and
 * stopping the worker after the test waits for it.
 */
const worker = (owner?: string) => {
  const w = createMigrationWorker({ database: bed.t.database, ring: TEST_KEY_RING, leaseMs: 2_000, idleMs: 50, policy: FAST, bulk: { timings: TIMINGS }, watch: false, ...(owner ? { owner } : {}) });
  running.push(w);
  return w;
};

const companies = (n: number, extra: (i: number) => Partial<ReadyCompany> = () => ({})): ReadyCompany[] =>
  Array.from({ length: n }, (_, i) => ({ name: `Company ${String(i + 1).padStart(3, "0")}`, records: 5 + (i % 7), externalRef: `EXT-${i + 1}`, ...extra(i) }));

/** An engagement at step 6: steps 1–4 through their flows, step 5 passed; its bulk run started. */
async function startedRun(list: ReadyCompany[], extra: Parameters<typeof bed.ready>[1] = {}) {
  const eng = await bed.ready(list, extra);
  await passSingleCompanyTest(bed.t.database, bed.people.support, eng.engagementId);
  const { runId } = await startBulkRun(bed.t.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId });
  return { eng, runId };
}

const statesOf = async (engagementId: string) =>
  Object.fromEntries(
    (await bed.t.db.select({ state: migrationItems.state, n: count() }).from(migrationItems).where(eq(migrationItems.engagementId, engagementId)).groupBy(migrationItems.state)).map((r) => [r.state, r.n]),
  );

/** The run as stored now (it exists: the test started it). */
const runNow = async (runId: string) => (await readSteps(bed.t.database, (tx) => findRun(tx, runId)))!;
/** How many calls the run has stored. */
const callCount = async (runId: string) => (await bed.t.db.select({ n: count() }).from(serviceCalls).where(eq(serviceCalls.runId, runId)))[0]!.n;

/** Companies the sandbox holds per Ferry item tag (each must be exactly one). */
async function companiesPerItem(apiKey: string, itemIds: string[]): Promise<number[]> {
  const client = createServiceClient({ baseUrl: bed.sb.url, apiKey });
  return Promise.all(itemIds.map(async (id) => (await client.findCompaniesByTag({ name: ITEM_TAG, value: id })).data.length));
}

describe("the bulk run", () => {
  it("migrates every company at the service's rate limit with at most 1% of requests refused 429; rotated tenants end reauth_required with the reason", async () => {
    await bed.sb.control.setFaults({ rateLimitPerSecond: 100 });
    const list = companies(30, (i) => (i === 4 || i === 17 ? { rotatedAfterExport: true } : {}));
    const { eng, runId } = await startedRun(list);
    worker().start();
    const run = await until("the bulk run", () => runNow(runId), (r) => r.status === "completed", 90_000);
    // The two rotated ones go to their end customers (reconnect links) when the run ends.
    expect(await statesOf(eng.engagementId)).toEqual({ verified: 28, reconnect_pending: 2 });
    const reauth = await bed.t.db.select().from(migrationItems).where(and(eq(migrationItems.engagementId, eng.engagementId), eq(migrationItems.state, "reconnect_pending")));
    expect(reauth.map((r) => r.name).sort()).toEqual(["Company 005", "Company 018"]);
    for (const r of reauth) expect(r.outcomeReason).toMatch(/invalid_grant/);
    const outcome = run.outcome as { requests: number; rateLimited: number };
    // Six calls at least per migrated company, three for a refused one.
    expect(outcome.requests).toBeGreaterThanOrEqual(28 * 6 + 2 * 3);
    // Final as soon as the run is seen completed: every request made, each recorded as a call.
    expect(outcome.requests).toBe(await callCount(runId));
    expect(outcome.rateLimited / outcome.requests).toBeLessThanOrEqual(0.01);
    expect(await companiesPerItem(eng.apiKey, eng.items.map((i) => i.id))).toEqual(eng.items.map(() => 1));
    const overview = await getBulkOverview(bed.t.database, bed.people.support, eng.engagementId);
    expect(overview.run).toMatchObject({ status: "completed", active: false, progress: { total: 30, finished: 30 } });
    expect(overview.controls.retryFailed).toMatchObject({ allowed: false, reason: "No company has failed." });
    const [finished] = await bed.t.db.select().from(auditEvents).where(and(eq(auditEvents.targetId, runId), eq(auditEvents.action, "migration.bulk_finished")));
    expect(finished?.after).toMatchObject({ counts: { verified: 28, reauth_required: 2 } });
  }, 120_000);

  it("stops the whole run when the free trial's 50 companies are reached, saying so in words, and sends nothing more while stopped", async () => {
    const { apiKey } = await bed.sb.control.createClient({ plan: "free", name: "Free trial" });
    // 48 companies already exist on the account: two more fit, the third is refused 402.
    const client = createServiceClient({ baseUrl: bed.sb.url, apiKey });
    for (let i = 0; i < 48; i++) await client.createCompany({ name: `Existing ${i}` });
    const { eng, runId } = await startedRun(companies(5), { target: { apiKey, name: "Free trial target" } });
    worker().start();
    const run = await until("the bulk run", () => runNow(runId), (r) => r.status === "stopped");
    expect(run.statusReason).toMatch(/^Free-trial company limit of 50 reached: 50 companies exist on this service account\. Upgrade the account/);
    expect(run.statusReason).toContain("402");
    const counts = await statesOf(eng.engagementId);
    expect(counts.failed ?? 0).toBe(0);
    const [stopped] = await bed.t.db.select().from(auditEvents).where(and(eq(auditEvents.targetId, runId), eq(auditEvents.action, "migration.bulk_stopped")));
    expect(stopped?.after).toMatchObject({ status: 402 });
    // Nothing more is sent while stopped.
    const calls = await callCount(runId);
    await new Promise((r) => setTimeout(r, 600));
    expect(await callCount(runId)).toBe(calls);
    expect((await getBulkOverview(bed.t.database, bed.people.support, eng.engagementId)).controls.resume.allowed).toBe(true);
  });

  it("stops on a refused API key (401) with the reason, failing no company", async () => {
    const { eng, runId } = await startedRun(companies(3), { target: { apiKey: "not-a-key-of-the-sandbox", name: "Wrong key" } });
    worker().start();
    const run = await until("the bulk run", () => runNow(runId), (r) => r.status === "stopped");
    expect(run.statusReason).toMatch(/^The service target's API key was refused \(401\)/);
    expect(await statesOf(eng.engagementId)).toEqual({ pending: 3 });
  });

  it("stops on a key the service no longer accepts (403, a deleted key) with the reason, failing no company", async () => {
    const { apiKey: first } = await bed.sb.control.createClient({ plan: "paid", name: "Key rotation" });
    const created = await fetch(`${bed.sb.url}/apiKeys`, {
      method: "POST",
      headers: { Authorization: `Basic ${Buffer.from(first).toString("base64")}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "second" }),
    }).then((r) => r.json() as Promise<{ id: string; apiKey: string }>);
    const { eng, runId } = await startedRun(companies(3), { target: { apiKey: created.apiKey, name: "Deleted key" } });
    await fetch(`${bed.sb.url}/apiKeys/${created.id}`, { method: "DELETE", headers: { Authorization: `Basic ${Buffer.from(first).toString("base64")}` } });
    worker().start();
    const run = await until("the bulk run", () => runNow(runId), (r) => r.status === "stopped");
    expect(run.statusReason).toMatch(/^The service target's API key was refused \(403\)/);
    expect(run.statusReason).toContain("outdated API key");
    expect(await statesOf(eng.engagementId)).toEqual({ pending: 3 });
  });

  it("stops when the free trial has expired (402) with the reason, failing no company", async () => {
    const { apiKey } = await bed.sb.control.createClient({ plan: "free", name: "Old trial", createdAt: new Date(Date.now() - 400 * 86_400_000).toISOString() });
    const { eng, runId } = await startedRun(companies(2), { target: { apiKey, name: "Expired trial" } });
    worker().start();
    const run = await until("the bulk run", () => runNow(runId), (r) => r.status === "stopped");
    expect(run.statusReason).toMatch(/^The service account's free trial has expired: the customer must upgrade it, then resume\. \(The service said: 402 /);
    expect(await statesOf(eng.engagementId)).toEqual({ pending: 2 });
  });

  it("waits out a maintenance window (503) by itself: no company fails and none counts an attempt for it", async () => {
    const { eng, runId } = await startedRun(companies(6));
    await bed.sb.control.setFaults({ maintenance: true });
    worker().start();
    await until("the bulk run", async () => ((await runNow(runId)).outcome as { hold?: { kind: string } }).hold?.kind, (k) => k === "maintenance", 20_000);
    expect((await getBulkOverview(bed.t.database, bed.people.support, eng.engagementId)).run?.hold).toMatchObject({ kind: "maintenance" });
    // The 503's Retry-After is 30 s; the run asks again (probes) well before that, every PROBE_MS.
    const answered503 = async () =>
      (await bed.t.db.select({ at: serviceCalls.at }).from(serviceCalls).where(and(eq(serviceCalls.runId, runId), eq(serviceCalls.status, 503)))).map((c) => c.at.getTime());
    const firstWave = Math.min(...(await answered503()));
    await until("the bulk run", () => answered503(), (ats) => ats.some((at) => at > firstWave + 2 * PROBE_MS), 25_000);
    await bed.sb.control.setFaults({ maintenance: false });
    await until("the bulk run", () => runNow(runId), (r) => r.status === "completed", 60_000);
    expect(await statesOf(eng.engagementId)).toEqual({ verified: 6 });
    expect((await bed.t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, eng.engagementId))).every((i) => i.attempts === 0)).toBe(true);
  }, 120_000);

  it("waits for a spent daily quota's reset with the reason shown, instead of failing companies", async () => {
    const { eng, runId } = await startedRun(companies(4));
    await bed.sb.control.setFaults({ quotaPerDay: true });
    // Spend the client's quota (1,000 a day with no company connected yet) before the run starts, 50 requests at a time.
    const client = createServiceClient({ baseUrl: bed.sb.url, apiKey: eng.apiKey, retry: "none" });
    const refusedOne = () =>
      client.listAccounts({ companyId: "none", page: 1, pageSize: 1 }).then(
        () => false,
        (e: { status?: number }) => e.status === 429,
      );
    for (let i = 0; i < 24; i++) if ((await Promise.all(Array.from({ length: 50 }, refusedOne))).some(Boolean)) break;
    worker().start();
    const hold = await until("the bulk run", async () => (await getBulkOverview(bed.t.database, bed.people.support, eng.engagementId)).run?.hold ?? null, (h) => h !== null, 20_000);
    expect(hold).toMatchObject({ kind: "daily_quota", text: expect.stringMatching(/^The service's request quota of 1,000 is spent: the run waits for its reset at 00:00 UTC/) });
    expect(await statesOf(eng.engagementId)).toEqual({ pending: 4 });
    await bed.sb.control.advanceClock({ days: 1 });
    await until("the bulk run", () => runNow(runId), (r) => r.status === "completed", 60_000);
    expect(await statesOf(eng.engagementId)).toEqual({ verified: 4 });
  }, 120_000);

  it("keeps under the per-minute limit of any target that is not the built-in sandbox, even one labelled a sandbox", async () => {
    // The engagement's target is a client on the test sandbox, labelled "sandbox" but not the
    // built-in one: the admin records a known limit of 6 requests a minute on it.
    const { eng, runId } = await startedRun(companies(3));
    await setTargetLimits(bed.t.database, bed.people.admin, { targetId: eng.serviceTargetId, requestsPerMinute: 6, dailyQuota: null });
    worker().start();
    const calls = () => callCount(runId);
    await until("the bulk run", calls, (n) => n >= 6, 20_000);
    // The sandbox itself would take thousands a second; the run sends no more than the target's minute allows.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(await calls()).toBeLessThanOrEqual(7);
    expect((await getBulkOverview(bed.t.database, bed.people.support, eng.engagementId)).limitText).toMatch(/^The target's known limits \(6 requests per minute, set on the target; .*the run keeps under 6 requests a minute/);
    await cancelBulkRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, reason: "Test over" });
  });

  it("stops, sending nothing, when its target is one the engagement may not use", async () => {
    const { eng, runId } = await startedRun(companies(2));
    await bed.t.db.update(serviceTargets).set({ organizationId: bed.people.orgB }).where(eq(serviceTargets.id, eng.serviceTargetId));
    worker().start();
    const run = await until("the bulk run", () => runNow(runId), (r) => r.status === "stopped");
    expect(run.statusReason).toMatch(/is another organisation's account on the service/);
    expect(await callCount(runId)).toBe(0);
    expect(await bed.t.db.select().from(auditEvents).where(and(eq(auditEvents.action, "secret.decrypted"), eq(auditEvents.targetId, eng.serviceTargetId)))).toEqual([]);
  });

  it("a long bulk run does not hold up another engagement's single-company test on the same worker", async () => {
    // Its syncs are held: the run is surely still under way when the other test has ended.
    const { eng, runId } = await startedRun(companies(4), { syncs: "held" });
    const other = await bed.ready(companies(2));
    worker().start();
    await until("the bulk run", async () => (await runNow(runId)).status, (s) => s === "running", 20_000);
    const { runId: pilotId } = await requestTestRun(bed.t.database, bed.people.support, { engagementId: other.engagementId, kind: "pilot" });
    const pilot = await until("the bulk run", () => runNow(pilotId), (r) => r.status === "passed" || r.status === "failed", 30_000);
    expect(pilot.status).toBe("passed");
    expect((await runNow(runId)).status).toBe("running");
    await cancelBulkRun(bed.t.database, bed.people.support, { engagementId: eng.engagementId, reason: "Test over" });
  }, 120_000);
  it("a maintenance window that begins mid-run, requests queued behind the limit: the run probes every so often (10 s; PROBE_MS here) until the service is back, then finishes", async () => {
    await bed.sb.control.setFaults({ rateLimitPerSecond: 25 });
    const { eng, runId } = await startedRun(companies(20));
    worker().start();
    await until("the bulk run", async () => (await statesOf(eng.engagementId)).verified ?? 0, (n) => n >= 2, 60_000);
    await bed.sb.control.setFaults({ maintenance: true });
    const answered503 = async () =>
      (await bed.t.db.select({ at: serviceCalls.at, ms: serviceCalls.durationMs }).from(serviceCalls).where(and(eq(serviceCalls.runId, runId), eq(serviceCalls.status, 503)))).map((c) => c.at.getTime() + c.ms);
    const first = Math.min(...(await until("the bulk run", answered503, (ats) => ats.length > 0, 20_000)));
    // Answers at the start, after about one probe interval and after about two: the hold's Retry-After (30 s) is not waited out.
    await until("the bulk run", answered503, (ats) => ats.some((at) => at > first + 2.5 * PROBE_MS), 30_000);
    await bed.sb.control.setFaults({ maintenance: false });
    await until("the bulk run", () => runNow(runId), (r) => r.status === "completed", 90_000);
    expect(await statesOf(eng.engagementId)).toEqual({ verified: 20 });
  }, 180_000);

  it("two workers share one run: every company driven by one of them, none created twice", async () => {
    await bed.sb.control.setFaults({ rateLimitPerSecond: 80 });
    const { eng, runId } = await startedRun(companies(24));
    worker("worker-a").start();
    worker("worker-b").start();
    await until("the bulk run", () => runNow(runId), (r) => r.status === "completed", 90_000);
    expect(await statesOf(eng.engagementId)).toEqual({ verified: 24 });
    expect(await companiesPerItem(eng.apiKey, eng.items.map((i) => i.id))).toEqual(eng.items.map(() => 1));
    const creates = await bed.t.db
      .select({ itemId: serviceCalls.itemId, n: count() })
      .from(serviceCalls)
      .where(and(eq(serviceCalls.runId, runId), eq(serviceCalls.operation, "createCompany"), eq(serviceCalls.ok, true)))
      .groupBy(serviceCalls.itemId);
    expect(creates).toHaveLength(24);
    expect(creates.every((c) => c.n === 1)).toBe(true);
  }, 120_000);
});

void resumeBulkRun;
