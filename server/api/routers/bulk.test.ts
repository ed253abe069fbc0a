/**
 * The bulk run's procedures through createCaller on a real temporary database (no worker: what
 * the controls change, refuse and record): start, pause, resume, cancel, retry the failed, set
 * aside and retry one; the overview's controls per role; the companies page's filters; the
 * portal's read-only view; another organisation's engagement looking like an unknown one.
 *
 * Its tests tagged both-databases run on PostgreSQL too: the bulk controls at once, while a worker holds the rows they change.
 */
import { and, asc, eq } from "drizzle-orm";
import { Pool } from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { databaseDialect } from "@/db/dialect";
import { auditEvents, engagements, mailOutbox, migrationItems, migrationRuns, serviceCalls, serviceTargets } from "@/db/schema";
import { createServiceTarget } from "@/server/targets/targets";
import { engagementThroughFlows, passSingleCompanyTest, sampleCompanies } from "@/server/testing/engagement-flows";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
import { callerAs, testConfig, trpcError } from "../../testing/caller";
import { HANDOVER_PRODUCED } from "@/server/migration/bulk/rules";

let t: TestDatabase;
let p: People;
let engagementId: string;
let itemIds: string[];

const support = () => callerAs(t.database, p.support, testConfig());
const customer = () => callerAs(t.database, p.customerA, testConfig());

// A database of its own for each test: an organisation has one open engagement per platform.
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  const target = await createServiceTarget(t.database, TEST_KEY_RING, null, { name: "Sandbox target", baseUrl: "http://127.0.0.1:9", apiKey: "sandbox-key-for-bulk-tests", kind: "sandbox", organizationId: p.orgA });
  const flows = await engagementThroughFlows({
    db: t.database,
    config: testConfig(),
    support: p.support,
    customer: p.customerA,
    serviceTargetId: target.id,
    companies: sampleCompanies("qhyg", 4).map((c, i) => ({ ...c, name: ["Alpha Ltd", "Beta GmbH", "Gamma SA", "Delta Inc"][i]!, externalRef: `REF-${i + 1}` })),
  });
  engagementId = flows.engagementId;
  itemIds = flows.itemIds;
  // The flows can only agree a window in the future (7 days on); most tests here start the run
  // inside it, as support normally does. "the agreed window" below puts it elsewhere.
  await agreedWindow(-HOUR, 8 * HOUR);
});
afterEach(async () => {
  await t.close();
});

const HOUR = 3_600_000;
/** The engagement's agreed window, from `startMs` to `endMs` after now (negative: before now). */
const agreedWindow = async (startMs: number, endMs: number) => {
  const now = Date.now();
  await t.db.update(engagements).set({ windowStartsAt: new Date(now + startMs), windowEndsAt: new Date(now + endMs) }).where(eq(engagements.id, engagementId));
};
const mailsTo = (to: string) => t.db.select().from(mailOutbox).where(eq(mailOutbox.to, to)).orderBy(asc(mailOutbox.createdAt));

const runs = () => t.db.select().from(migrationRuns).where(and(eq(migrationRuns.engagementId, engagementId), eq(migrationRuns.kind, "bulk")));
const run = async () => (await runs())[0];
const item = async (i: number) => (await t.db.select().from(migrationItems).where(eq(migrationItems.id, itemIds[i]!)))[0]!;
const audits = (action: string) => t.db.select().from(auditEvents).where(and(eq(auditEvents.engagementId, engagementId), eq(auditEvents.action, action))).orderBy(asc(auditEvents.id));

describe("starting", () => {
  it("is refused before the single-company test has passed, and to customers", async () => {
    const early = await trpcError(support().bulk.start({ engagementId }));
    expect(early).toMatchObject({ code: "PRECONDITION_FAILED", message: "The bulk migration starts once the single-company test (step 5) has passed." });
    expect((await support().bulk.overview({ engagementId })).controls.start).toEqual({ allowed: false, reason: "The bulk migration starts once the single-company test (step 5) has passed." });
    expect((await trpcError(callerAs(t.database, p.customerA, testConfig()).bulk.start({ engagementId } as never))).code).toBe("FORBIDDEN");
    expect(await run()).toBeUndefined();
  });

  it("queues a run of every unfinished company, starts step 6, is audited, and a second start is refused", async () => {
    await passSingleCompanyTest(t.database, p.support, engagementId);
    const { runId } = await support().bulk.start({ engagementId });
    expect(await run()).toMatchObject({ id: runId, status: "queued", kind: "bulk" });
    expect(await Promise.all(itemIds.map(async (_, i) => (await item(i)).runId))).toEqual(itemIds.map(() => runId));
    const eng = await support().engagements.get({ engagementId });
    expect(eng.steps[5]!.state).toBe("in_progress");
    expect((await support().engagements.timeline({ engagementId }))[0]!.summary).toBe("Started the bulk migration of 4 companies on Sandbox target");
    const second = await trpcError(support().bulk.start({ engagementId }));
    expect(second.message).toBe("A bulk run is already waiting for the worker.");
    const overview = await support().bulk.overview({ engagementId });
    expect(overview.run).toMatchObject({ status: "queued", active: true, progress: { total: 4, finished: 0, counts: { pending: 4 } }, activity: "Waiting for a worker to take the run up." });
    expect(overview.controls).toMatchObject({ start: { allowed: false }, pause: { allowed: true }, cancel: { allowed: true }, resume: { allowed: false } });
  });
});

describe("the agreed window", () => {
  beforeEach(async () => {
    await passSingleCompanyTest(t.database, p.support, engagementId);
  });

  it("before it: refused without a reason, on the reason field, in words that say when it starts; nothing changes", async () => {
    await agreedWindow(3 * 24 * HOUR + 10 * 60_000, 3 * 24 * HOUR + 8 * HOUR);
    const mailsBefore = (await mailsTo(p.customerA.email)).length;
    for (const reason of [undefined, "   "]) {
      const refused = await trpcError(support().bulk.start({ engagementId, reason }));
      expect(refused.code).toBe("BAD_REQUEST");
      expect(refused.message).toBe("Say why the bulk migration starts 3 d before the agreed window: the reason is recorded and the customer is told.");
      expect(refused.cause).toMatchObject({ fields: { reason: refused.message } });
    }
    expect(await run()).toBeUndefined();
    expect((await support().engagements.get({ engagementId })).steps[5]!.state).toBe("pending");
    expect(await audits("migration.bulk_started")).toHaveLength(0);
    expect((await mailsTo(p.customerA.email))).toHaveLength(mailsBefore);
    // The start stays on offer: the dialog asks for the reason.
    const overview = await support().bulk.overview({ engagementId });
    expect(overview.controls.start).toEqual({ allowed: true, reason: null });
    expect(overview.window).toMatchObject({ position: "before", startNeedsReason: expect.stringContaining("starts in 3 d") as string, overrun: null });
  });

  it("before it with a reason: started, the reason audited and in the timeline, and the customer mailed it", async () => {
    await agreedWindow(3 * 24 * HOUR + 10 * 60_000, 3 * 24 * HOUR + 8 * HOUR);
    const { runId } = await support().bulk.start({ engagementId, reason: "  The customer's finance team asked to start early.  " });
    expect(await run()).toMatchObject({ id: runId, status: "queued" });
    const [audit] = await audits("migration.bulk_started");
    expect(audit!.after).toMatchObject({
      companies: 4,
      outsideWindow: { position: "before", reason: "The customer's finance team asked to start early.", bySeconds: expect.any(Number) as number },
    });
    const summary = (await customer().engagements.timeline({ engagementId }))[0]!.summary;
    expect(summary).toMatch(/^Started the bulk migration of 4 companies on Sandbox target, 3 d before the agreed window .+ UTC: The customer's finance team asked to start early$/);
    const mail = (await mailsTo(p.customerA.email)).at(-1)!;
    expect(mail.subject).toMatch(/\] The bulk migration started before the agreed window$/);
    expect(mail.text).toContain("Support One started the bulk migration of 4 companies 3 d before the agreed window");
    expect(mail.text).toContain("The customer's finance team asked to start early.");
    expect(mail.text).toContain(`http://ferry.test/portal/engagements/${engagementId}`);
  });

  it("after it: the reason is asked for the same way, and the customer told the run started after the window", async () => {
    await agreedWindow(-2 * 24 * HOUR, -2 * 24 * HOUR + 8 * HOUR);
    const refused = await trpcError(support().bulk.start({ engagementId }));
    expect(refused.message).toBe("Say why the bulk migration starts 1 d 16 h after the agreed window: the reason is recorded and the customer is told.");
    await support().bulk.start({ engagementId, reason: "The window was missed; the customer agreed by phone." });
    expect((await audits("migration.bulk_started"))[0]!.after).toMatchObject({ outsideWindow: { position: "after" } });
    expect((await mailsTo(p.customerA.email)).at(-1)!.subject).toMatch(/started after the agreed window$/);
  });

  it("inside it: no reason asked, none recorded, no mail about it", async () => {
    const mailsBefore = (await mailsTo(p.customerA.email)).length;
    expect((await support().bulk.overview({ engagementId })).window).toMatchObject({ position: "inside", startNeedsReason: null });
    await support().bulk.start({ engagementId });
    expect((await audits("migration.bulk_started"))[0]!.after).toEqual({ companies: 4, target: "Sandbox target", supplied: 4, pilot: null });
    expect((await mailsTo(p.customerA.email))).toHaveLength(mailsBefore);
  });

  it("no window agreed (data from before windows): nothing to hold, so no reason", async () => {
    await t.db.update(engagements).set({ windowStartsAt: null, windowEndsAt: null }).where(eq(engagements.id, engagementId));
    expect((await support().bulk.overview({ engagementId })).window).toBeNull();
    await support().bulk.start({ engagementId });
    expect(await run()).toMatchObject({ status: "queued" });
  });
});

describe("the service target the run copies", () => {
  it("must be one the engagement may use: start, resume and retries are refused otherwise, changing nothing", async () => {
    await passSingleCompanyTest(t.database, p.support, engagementId);
    const [row] = await t.db.select({ id: engagements.serviceTargetId }).from(engagements).where(eq(engagements.id, engagementId));
    const own = row!.id!;
    const other = await createServiceTarget(t.database, TEST_KEY_RING, null, { name: "Org B production", baseUrl: "https://api.codat.io", apiKey: "org-b-key-0000", kind: "service", organizationId: p.orgB });
    // Data from before targets had organisations: the engagement points at another organisation's account.
    await t.db.update(engagements).set({ serviceTargetId: other.id }).where(eq(engagements.id, engagementId));
    const refusal = "Org B production is another organisation's account on the service: choose one of this organisation's targets or the built-in sandbox.";
    expect(await trpcError(support().bulk.start({ engagementId }))).toMatchObject({ code: "PRECONDITION_FAILED", message: refusal });
    expect((await support().bulk.overview({ engagementId })).controls.start).toEqual({ allowed: false, reason: refusal });
    expect(await run()).toBeUndefined();

    // Started on its own target, paused; then that target turns out to be another organisation's.
    await t.db.update(engagements).set({ serviceTargetId: own }).where(eq(engagements.id, engagementId));
    await support().bulk.start({ engagementId });
    await support().bulk.pause({ engagementId });
    await t.db.update(serviceTargets).set({ organizationId: p.orgB }).where(eq(serviceTargets.id, own));
    const resume = await trpcError(support().bulk.resume({ engagementId }));
    expect(resume).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("Sandbox target is another organisation's account") });
    expect(await run()).toMatchObject({ status: "paused" });
    expect((await support().bulk.overview({ engagementId })).controls.resume).toMatchObject({ allowed: false });
  });
});

describe("controls", () => {
  beforeEach(async () => {
    await passSingleCompanyTest(t.database, p.support, engagementId);
    await support().bulk.start({ engagementId });
  });

  it("pause, resume and cancel change the run, each audited; a cancel needs a reason", async () => {
    await support().bulk.pause({ engagementId, reason: "The customer's finance team asked for a break" });
    expect(await run()).toMatchObject({ status: "paused", statusReason: "Paused by Support One: The customer's finance team asked for a break" });
    expect((await trpcError(support().bulk.pause({ engagementId }))).message).toBe("There is no bulk run going to pause.");
    await support().bulk.resume({ engagementId });
    expect(await run()).toMatchObject({ status: "queued", statusReason: null });
    expect((await trpcError(support().bulk.resume({ engagementId }))).message).toBe("There is no paused or stopped bulk run to resume.");
    const noReason = await trpcError(support().bulk.cancel({ engagementId, reason: "  " }));
    expect(noReason.code).toBe("BAD_REQUEST");
    expect((await run())!.status).toBe("queued");
    await support().bulk.cancel({ engagementId, reason: "Window moved" });
    expect(await run()).toMatchObject({ status: "cancelled", statusReason: "Cancelled by Support One: Window moved" });
    expect(await audits("migration.bulk_paused")).toHaveLength(1);
    expect(await audits("migration.bulk_resumed")).toHaveLength(1);
    expect((await audits("migration.bulk_cancelled"))[0]!.after).toEqual({ reason: "Window moved", unfinished: 4 });
    const words = (await support().engagements.timeline({ engagementId })).map((e) => e.summary);
    expect(words.slice(0, 3)).toEqual([
      "Cancelled the bulk migration with 4 companies unfinished: Window moved",
      "Resumed the bulk migration",
      "Paused the bulk migration: The customer's finance team asked for a break",
    ]);
    // After a cancel a new run carries on from where the companies are.
    const { runId } = await support().bulk.start({ engagementId });
    expect((await item(0)).runId).toBe(runId);
  });

  it("sets a company aside with a reason, retries it, and retries the failed ones only", async () => {
    const empty = await trpcError(support().bulk.setAside({ engagementId, itemId: itemIds[1]!, reason: "" }));
    expect(empty.code).toBe("BAD_REQUEST");
    await support().bulk.setAside({ engagementId, itemId: itemIds[1]!, reason: "Closed its books for good" });
    expect(await item(1)).toMatchObject({ state: "set_aside", outcomeReason: "Closed its books for good" });
    expect((await trpcError(support().bulk.setAside({ engagementId, itemId: itemIds[1]!, reason: "Again" }))).message).toBe("Beta GmbH is already set aside.");
    await support().bulk.retryItem({ engagementId, itemId: itemIds[1]! });
    expect(await item(1)).toMatchObject({ state: "pending", outcomeReason: null });
    expect((await trpcError(support().bulk.retryItem({ engagementId, itemId: itemIds[0]! }))).message).toMatch(/^Alpha Ltd is still being migrated; only a company that failed/);

    expect((await trpcError(support().bulk.retryFailed({ engagementId }))).message).toBe("No company has failed.");
    // The engine failed one (a 500 kept coming back) and verified another.
    const error = { operation: "createCompany", kind: "server_error", status: 500, service: "companies", error: "Internal error", correlationId: "corr-500-abc", at: new Date().toISOString() };
    await t.db.update(migrationItems).set({ state: "failed", lastError: error, attempts: 5, outcomeReason: "createCompany kept failing" }).where(eq(migrationItems.id, itemIds[2]!));
    await t.db.update(migrationItems).set({ state: "verified", companyId: "co-1", connectionId: "conn-1" }).where(eq(migrationItems.id, itemIds[3]!));
    expect((await trpcError(support().bulk.setAside({ engagementId, itemId: itemIds[3]!, reason: "No" }))).message).toBe("Delta Inc is migrated and verified; there is nothing to set aside.");

    // Its calls as the runner stored them: two answered, then five 500s in a row.
    const call = (ok: boolean) => ({ runId: "run-x", itemId: itemIds[2]!, at: new Date(), operation: "createCompany", method: "POST", path: "/companies", status: ok ? 200 : 500, ok, durationMs: 3, attempts: 1 });
    await t.db.insert(serviceCalls).values([call(true), call(true), ...Array.from({ length: 5 }, () => call(false))]);
    const page = await support().bulk.items({ engagementId, state: "failed", page: 1, pageSize: 25 });
    expect(page).toMatchObject({
      total: 1,
      rows: [{ name: "Gamma SA", attempts: 5, attemptsInAll: 7, canRetry: true, canSetAside: true, lastError: { status: 500, error: "Internal error", correlationId: "corr-500-abc" } }],
    });
    expect((await support().bulk.items({ engagementId, state: "verified", page: 1, pageSize: 25 })).rows[0]).toMatchObject({ name: "Delta Inc", attempts: 0, attemptsInAll: 0 });
    expect((await support().bulk.items({ engagementId, search: "co-1", page: 1, pageSize: 25 })).rows.map((r) => r.name)).toEqual(["Delta Inc"]);
    expect((await support().bulk.items({ engagementId, search: "REF-2", page: 1, pageSize: 25 })).rows.map((r) => r.name)).toEqual(["Beta GmbH"]);
    expect(await support().bulk.items({ engagementId, page: 2, pageSize: 3 })).toMatchObject({ total: 4, rows: [{ name: "Delta Inc" }] });

    expect(await support().bulk.retryFailed({ engagementId })).toEqual({ count: 1 });
    expect(await item(2)).toMatchObject({ state: "pending", attempts: 0, lastError: null });
    expect((await item(3)).state).toBe("verified");
    expect((await audits("migration_item.set_aside"))[0]!.after).toEqual({ company: "Beta GmbH", reason: "Closed its books for good" });
    expect(await audits("migration_item.retried")).toHaveLength(1);
    expect((await audits("migration.bulk_retry_failed"))[0]!.after).toEqual({ companies: 1 });
  });

  it("the customer follows it read-only; another organisation sees the same as an unknown engagement", async () => {
    const view = await customer().bulk.overview({ engagementId });
    expect(view.run).toMatchObject({ status: "queued" });
    for (const control of Object.values(view.controls)) expect(control).toEqual({ allowed: false, reason: "Support staff control the bulk migration." });
    const rows = (await customer().bulk.items({ engagementId, page: 1, pageSize: 25 })).rows;
    expect(rows.every((r) => !r.canRetry && !r.canSetAside)).toBe(true);
    const other = await trpcError(callerAs(t.database, p.customerB, testConfig()).bulk.overview({ engagementId }));
    const unknown = await trpcError(callerAs(t.database, p.customerB, testConfig()).bulk.overview({ engagementId: "no-such-engagement" }));
    expect([other.code, other.message]).toEqual([unknown.code, unknown.message]);
  });

  it("once the handover report is produced, no control changes a company, and the refusal says how companies still come back", async () => {
    await support().bulk.cancel({ engagementId, reason: "Handing over as is" });
    for (const id of itemIds) await support().bulk.setAside({ engagementId, itemId: id, reason: "Customer reconnects them" });
    await support().handover.confirm({ engagementId });
    const refused = await trpcError(support().bulk.retryItem({ engagementId, itemId: itemIds[0]! }));
    expect(refused.message).toBe(HANDOVER_PRODUCED);
    // Companies still change after the report (reconnections, fresh tokens): the words must not say otherwise.
    expect(refused.message).not.toMatch(/can no longer change/);
    expect(refused.message).toMatch(/reconnect links.*fresh tokens/);
    expect((await item(0)).state).toBe("set_aside");
    expect((await support().bulk.overview({ engagementId })).controls.itemActions.allowed).toBe(false);
  });
});

const onPostgres = databaseDialect() === "postgresql";

/**
 * A transaction of "the worker" on a connection of its own (PostgreSQL): it locks a row as the
 * worker's own writes do, holds it while the control under test starts and waits on it, then
 * changes the row and commits.
 */
async function whileTheWorkerHolds(lock: { sql: string; id: string }, control: () => Promise<unknown>, change: { sql: string }): Promise<unknown> {
  const pool = new Pool({ connectionString: (t.env as { DATABASE_URL: string }).DATABASE_URL, max: 1 });
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query(lock.sql, [lock.id]);
    const outcome = control().then(
      () => null,
      (error: unknown) => error,
    );
    // Long enough for the control to reach the locked row and wait on it.
    await new Promise((resolve) => setTimeout(resolve, 400));
    await client.query(change.sql, [lock.id]);
    await client.query("commit");
    return await outcome;
  } finally {
    client.release();
    await pool.end();
  }
}

describe("at once", { tags: ["both-databases"] }, () => {
  beforeEach(async () => {
    await passSingleCompanyTest(t.database, p.support, engagementId);
  });

  it("of several starts at once, one starts the run and the others are refused (on PostgreSQL they really are at once)", async () => {
    // Reads at once first, so the pool has a connection for each start and they begin together.
    await Promise.all(Array.from({ length: 8 }, () => support().bulk.overview({ engagementId })));
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => support().bulk.start({ engagementId })));
    expect(await runs()).toHaveLength(1);
    expect(await audits("migration.bulk_started")).toHaveLength(1);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) expect(r.reason).toMatchObject({ message: "A bulk run is already waiting for the worker." });
  });

  it.runIf(onPostgres)("a pause while the worker ends the run waits for it, then is refused on the status it left", async () => {
    await support().bulk.start({ engagementId });
    const runId = (await run())!.id;
    await t.db.update(migrationRuns).set({ status: "running" }).where(eq(migrationRuns.id, runId));
    const refusal = await whileTheWorkerHolds(
      { sql: "select id from migration_runs where id = $1 for update", id: runId },
      () => support().bulk.pause({ engagementId }),
      { sql: "update migration_runs set status = 'completed', finished_at = now() where id = $1" },
    );
    expect(refusal).toMatchObject({ code: "PRECONDITION_FAILED", message: "There is no bulk run going to pause." });
    expect(await run()).toMatchObject({ status: "completed" });
    expect(await audits("migration.bulk_paused")).toHaveLength(0);
  });

  it.runIf(onPostgres)("setting a company aside while the worker verifies it waits for it, then is refused on the state it left", async () => {
    await support().bulk.start({ engagementId });
    const refusal = await whileTheWorkerHolds(
      { sql: "select id from migration_items where id = $1 for update", id: itemIds[0]! },
      () => support().bulk.setAside({ engagementId, itemId: itemIds[0]!, reason: "Closed" }),
      { sql: "update migration_items set state = 'verified', company_id = 'co-1', connection_id = 'conn-1' where id = $1" },
    );
    expect(refusal).toMatchObject({ code: "PRECONDITION_FAILED", message: "Alpha Ltd is migrated and verified; there is nothing to set aside." });
    expect(await item(0)).toMatchObject({ state: "verified" });
    expect(await audits("migration_item.set_aside")).toHaveLength(0);
  });
});

describe("the companies table's words", () => {
  it("leaves out a reason that only repeats the last error (a reauthorization), and keeps one that says more", async () => {
    // Org B's engagement (org A's is the one every test starts with).
    const target = await createServiceTarget(t.database, TEST_KEY_RING, null, { name: "Words target", baseUrl: "http://127.0.0.1:9", apiKey: "words-key-for-bulk-tests", kind: "sandbox", organizationId: p.orgB });
    const flows = await engagementThroughFlows({ db: t.database, config: testConfig(), support: p.support, customer: p.customerB, serviceTargetId: target.id, companies: sampleCompanies("qhyg", 2) });
    const words = "400 Bad Request: QuickBooks Online rejected the credentials: invalid_grant: the refresh token was already used. Reauthorization is required.";
    const refused = { operation: "authorizeConnection", kind: "reauthorization_required", status: null, service: null, error: words, correlationId: "corr-1", at: new Date().toISOString() };
    await t.db.update(migrationItems).set({ state: "reauth_required", lastError: refused, outcomeReason: words }).where(eq(migrationItems.id, flows.itemIds[0]!));
    await t.db.update(migrationItems).set({ state: "set_aside", outcomeReason: "Closed its books for good" }).where(eq(migrationItems.id, flows.itemIds[1]!));
    const rows = (await support().bulk.items({ engagementId: flows.engagementId, page: 1, pageSize: 25 })).rows;
    expect(rows.map((r) => [r.state, r.lastError?.error ?? null, r.outcomeReason])).toEqual([
      ["reauth_required", words, null],
      ["set_aside", null, "Closed its books for good"],
    ]);
  });
});
