/**
 * The agreed window beside the bulk run: the time left, and the warning when the pace says the
 * run will overrun it — as a pure outlook, and through the overview on a real temporary database
 * at an injected time.
 *
 * Runs on both databases: the bulk run's progress read with aggregate queries.
 * @module-tag both-databases
 */
import { eq, inArray } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engagements, migrationItems, migrationRuns } from "@/db/schema";
import { engagementThroughFlows, passSingleCompanyTest, sampleCompanies } from "@/server/testing/engagement-flows";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase, TEST_NOTIFY } from "@/server/testing/test-db";
import { testConfig } from "@/server/testing/caller";
import { createServiceTarget } from "@/server/targets/targets";
import { startBulkRun } from "./bulk-controls";
import { getBulkOverview, runActivityWords, windowOutlook } from "./bulk-view";
import { MIGRATION_ITEM_STATES, type MigrationItemState } from "@/core/migration/states";

const window = { startsAt: new Date("2031-03-01T22:00:00Z"), endsAt: new Date("2031-03-02T04:00:00Z") };
const at = (iso: string) => new Date(iso);
const running = (etaSeconds: number | null, unfinished = 10) => ({ active: true, etaSeconds, unfinished });

describe("the window's outlook", () => {
  it("before it: the time until it starts (a run started early does not overrun it)", () => {
    expect(windowOutlook({ window, now: at("2031-03-01T20:00:00Z"), run: null })).toMatchObject({ position: "before", seconds: 7_200, overrun: null, startNeedsReason: expect.stringContaining("starts in 2 h") as string });
    expect(windowOutlook({ window, now: at("2031-03-01T20:00:00Z"), run: running(36_000) }).overrun).toBeNull();
  });

  it("inside it: the time left; an overrun when the ETA reaches past the end, by how much", () => {
    const now = at("2031-03-02T01:00:00Z");
    expect(windowOutlook({ window, now, run: running(3_600) })).toMatchObject({ position: "inside", seconds: 10_800, startNeedsReason: null, overrun: null });
    expect(windowOutlook({ window, now, run: running(10_800) }).overrun).toBeNull();
    expect(windowOutlook({ window, now, run: running(14_400) }).overrun).toEqual({ kind: "pace", seconds: 3_600 });
    // No pace yet (or a paused run): nothing to foresee.
    expect(windowOutlook({ window, now, run: running(null) }).overrun).toBeNull();
    expect(windowOutlook({ window, now, run: null }).overrun).toBeNull();
  });

  it("after it: how long ago it ended, an overrun while companies are still unfinished in an open run", () => {
    const now = at("2031-03-02T05:30:00Z");
    expect(windowOutlook({ window, now, run: running(null, 3) })).toMatchObject({ position: "after", seconds: 5_400, overrun: { kind: "ended", seconds: 5_400 } });
    expect(windowOutlook({ window, now, run: running(null, 0) }).overrun).toBeNull();
    expect(windowOutlook({ window, now, run: { active: false, etaSeconds: null, unfinished: 3 } }).overrun).toBeNull();
  });
});

describe("what a running bulk run says it is doing", () => {
  const counts = (some: Partial<Record<MigrationItemState, number>>) => ({ ...Object.fromEntries(MIGRATION_ITEM_STATES.map((st) => [st, 0])), ...some }) as Record<MigrationItemState, number>;

  it("names the companies syncing, being connected and still to start, in words", () => {
    expect(runActivityWords({ status: "running", held: false, counts: counts({ sync_requested: 7, authorized: 2, company_created: 1, connection_created: 2, pending: 8, verified: 5 }) })).toBe(
      "Migrating: 9 companies syncing, 3 being connected and 8 still to start.",
    );
    expect(runActivityWords({ status: "running", held: false, counts: counts({ connection_created: 1, pending: 1 }) })).toBe("Migrating: 1 company being connected and 1 still to start.");
    expect(runActivityWords({ status: "running", held: false, counts: counts({ verified: 3, failed: 1 }) })).toBe("Finishing: every company has reached a final state.");
    expect(runActivityWords({ status: "queued", held: false, counts: counts({ pending: 4 }) })).toBe("Waiting for a worker to take the run up.");
  });

  it("says nothing of its own while held, paused, stopped or ended (their notices say why)", () => {
    for (const status of ["paused", "stopped", "cancelled", "completed"] as const) expect(runActivityWords({ status, held: false, counts: counts({ pending: 4 }) })).toBeNull();
    expect(runActivityWords({ status: "running", held: true, counts: counts({ pending: 4 }) })).toBeNull();
  });
});

describe("the overview at an injected time", () => {
  let t: TestDatabase;
  let p: People;
  let engagementId: string;
  let itemIds: string[];

  beforeEach(async () => {
    t = await createTestDatabase();
    p = await seedPeople(t.database);
    const target = await createServiceTarget(t.database, TEST_KEY_RING, null, { name: "Sandbox target", baseUrl: "http://127.0.0.1:9", apiKey: "sandbox-key-for-view-tests", kind: "sandbox", organizationId: p.orgA });
    const flows = await engagementThroughFlows({ db: t.database, config: testConfig(), support: p.support, customer: p.customerA, serviceTargetId: target.id, companies: sampleCompanies("qhyg", 4), window });
    engagementId = flows.engagementId;
    itemIds = flows.itemIds;
    await passSingleCompanyTest(t.database, p.support, engagementId);
  });
  afterEach(() => t.close());

  /** The worker's progress as it stores it: half the companies verified, and the pace samples of the last 18 s. */
  async function halfDone(runId: string, now: Date) {
    await t.db.update(migrationItems).set({ state: "verified" }).where(inArray(migrationItems.id, itemIds.slice(0, 2)));
    const ms = now.getTime();
    const samples = [
      [ms - 20_000, 0, 0],
      [ms - 2_000, 90, 2],
    ];
    await t.db.update(migrationRuns).set({ status: "running", outcome: { requests: 90, samples } }).where(eq(migrationRuns.id, runId));
  }

  it("inside the window: the time left beside the ETA; the overrun when the pace says so", async () => {
    const startedAt = at("2031-03-02T03:00:00Z");
    const { runId } = await startBulkRun(t.database, TEST_NOTIFY, p.support, { engagementId, now: startedAt });
    // Two companies left at two per 18 s: an ETA of 18 s.
    const early = at("2031-03-02T03:30:00Z");
    await halfDone(runId, early);
    const roomy = await getBulkOverview(t.database, p.support, engagementId, early);
    expect(roomy.run!.pace.etaSeconds).toBe(18);
    // The panel says what the run is doing, not that it is "already running".
    expect(roomy.run!.activity).toBe("Migrating: 2 companies still to start.");
    expect(roomy.controls.start).toMatchObject({ allowed: false });
    expect(roomy.window).toMatchObject({ position: "inside", seconds: 1_800, overrun: null });

    const late = at("2031-03-02T03:59:50Z");
    await halfDone(runId, late);
    const tight = await getBulkOverview(t.database, p.support, engagementId, late);
    expect(tight.window).toMatchObject({ position: "inside", seconds: 10, overrun: { kind: "pace", seconds: 8 } });
    // The customer sees the same (they agreed the window).
    expect((await getBulkOverview(t.database, p.customerA, engagementId, late)).window).toEqual(tight.window);
  });

  it("the window ended with companies unfinished: said so; no window agreed: nothing shown", async () => {
    const { runId } = await startBulkRun(t.database, TEST_NOTIFY, p.support, { engagementId, now: at("2031-03-02T03:00:00Z") });
    const after = at("2031-03-02T05:00:00Z");
    await halfDone(runId, after);
    expect((await getBulkOverview(t.database, p.support, engagementId, after)).window).toMatchObject({ position: "after", seconds: 3_600, overrun: { kind: "ended", seconds: 3_600 } });
    await t.db.update(engagements).set({ windowStartsAt: null, windowEndsAt: null }).where(eq(engagements.id, engagementId));
    expect((await getBulkOverview(t.database, p.support, engagementId, after)).window).toBeNull();
  });
});
