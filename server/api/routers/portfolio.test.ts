/**
 * Support's portfolio on a real database through createCaller: each open engagement's clock
 * (on pace, at risk, late; paused on hold and carried over on resume; stale), counted, filtered,
 * grouped and ordered most urgent first, under each organisation's own targets; reasons for holds
 * and cancellations counted.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engagements, migrationRuns, organizations } from "@/db/schema";
import { createTestDatabase, seedPeople, type People, type TestDatabase } from "@/server/testing/test-db";
import { callerAs, trpcError } from "@/server/testing/caller";
import { storeMissingDeadlines, storeMoveDeadlines } from "@/server/engagements/engagement-repository";

let t: TestDatabase;
let p: People;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

const H = 3_600_000;
const D = 24 * H;
const support = () => callerAs(t.database, p.support);
const ago = (ms: number) => new Date(Date.now() - ms);

/** A new engagement: step 1, the customer's move (submit the details and token file) since now. */
async function engagement(platformKey: string, organizationId = p.orgA) {
  return (await support().engagements.create({ organizationId, platformKey })).id;
}
/** Moves the engagement's clock back: its move started `waited` ago, its last change `idle` ago (its deadlines kept with it). */
async function backdate(id: string, waited: number, idle = H) {
  await t.db.update(engagements).set({ waitingSince: ago(waited), updatedAt: ago(idle) }).where(eq(engagements.id, id));
  await t.database.transaction((tx) => storeMoveDeadlines(tx, id), { isolation: "read committed" });
}
const portfolio = (input: Parameters<ReturnType<typeof support>["portfolio"]["get"]>[0] = {}) => support().portfolio.get(input);

describe("the portfolio", () => {
  it("gives each open engagement its clock and puts the most urgent first", async () => {
    const late = await engagement("qhyg");
    const atRisk = await engagement("rwuv");
    const onPace = await engagement("fztf", p.orgB);
    await backdate(late, 6 * D); // the customer has 5 days in step 1
    await backdate(atRisk, 4.5 * D);
    const got = await portfolio();
    expect(got.rows.map((r) => [r.id, r.risk, r.party])).toEqual([
      [late, "late", "customer"],
      [atRisk, "at_risk", "customer"],
      [onPace, "on_pace", "customer"],
    ]);
    expect(got.counts).toMatchObject({ open: 3, late: 1, atRisk: 1, onPace: 1, onHold: 0, stale: 0, customersMove: 3, supportsMove: 0 });
    const first = got.rows[0]!;
    expect(first).toMatchObject({ currentStep: 1, stepTitle: "Details gathered", organizationName: "Org A", ownerName: "Support One", paused: false });
    // Due a day ago, give or take the test's own seconds.
    expect(Math.abs(first.dueAt!.getTime() - (Date.now() - D))).toBeLessThan(60_000);
    expect(first.projectedFinish!.getTime()).toBeGreaterThan(Date.now());
  });

  it("filters by risk, owner, customer and platform, and groups by customer with the late counted", async () => {
    const a1 = await engagement("qhyg");
    const a2 = await engagement("rwuv");
    const b1 = await engagement("fztf", p.orgB);
    await backdate(a1, 6 * D);
    await backdate(b1, 6 * D);
    await support().engagements.setOwner({ engagementId: a2, ownerId: p.support2.id });

    expect((await portfolio({ risk: "late" })).rows.map((r) => r.id).sort()).toEqual([a1, b1].sort());
    // The counts stay those of every engagement the other filters let through.
    expect((await portfolio({ risk: "late" })).counts.open).toBe(3);
    expect((await portfolio({ ownerId: p.support2.id })).rows.map((r) => r.id)).toEqual([a2]);
    expect((await portfolio({ organizationId: p.orgB })).rows.map((r) => r.id)).toEqual([b1]);
    expect((await portfolio({ platformKey: "rwuv" })).rows.map((r) => r.id)).toEqual([a2]);
    expect((await portfolio({ targetId: "none" })).total).toBe(3);

    const grouped = await portfolio({ group: "customer" });
    expect(grouped.groups).toEqual([
      { key: p.orgA, label: "Org A", count: 2, late: 1, atRisk: 0 },
      { key: p.orgB, label: "Org B", count: 1, late: 1, atRisk: 0 },
    ]);
    expect(grouped.rows.map((r) => r.id)).toEqual([a1, a2, b1]);
    const byRisk = await portfolio({ group: "risk" });
    expect(byRisk.groups.map((g) => [g.key, g.count])).toEqual([
      ["late", 2],
      ["on_pace", 1],
    ]);
  });

  it("pauses the clock on hold, counts the hold's reason, and the same move resumes with the time it had run", async () => {
    const id = await engagement("qhyg");
    await backdate(id, 2 * D);
    await support().engagements.setStatus({ engagementId: id, status: "on_hold", reasonCode: "customer_unavailable", reason: "Away until January" });
    // A month on hold changes nothing: the clock stopped.
    await backdate(id, 30 * D);
    let got = await portfolio();
    expect(got.rows[0]).toMatchObject({ id, paused: true, party: "customer", risk: "on_pace", statusReason: "customer_unavailable", statusNote: "Away until January" });
    expect(got.counts).toMatchObject({ open: 1, onHold: 1, late: 0 });
    expect(got.holdReasons).toEqual([{ key: "customer_unavailable", label: "Customer unavailable", count: 1 }]);
    expect((await portfolio({ risk: "on_hold" })).rows.map((r) => r.id)).toEqual([id]);

    await support().engagements.setStatus({ engagementId: id, status: "active" });
    got = await portfolio();
    // Two days of the customer's five had run: three are left.
    expect(Math.abs(got.rows[0]!.dueAt!.getTime() - (Date.now() + 3 * D))).toBeLessThan(60_000);
    expect(got.rows[0]).toMatchObject({ paused: false, risk: "on_pace", statusReason: null });
    expect(got.holdReasons).toEqual([]);
  });

  it("counts why engagements were cancelled, and leaves them out of the open ones", async () => {
    const a = await engagement("qhyg");
    const b = await engagement("rwuv");
    await engagement("fztf");
    await support().engagements.setStatus({ engagementId: a, status: "cancelled", reasonCode: "duplicate" });
    await support().engagements.setStatus({ engagementId: b, status: "cancelled", reasonCode: "duplicate", reason: "Opened twice" });
    const got = await portfolio();
    expect(got.counts.open).toBe(1);
    expect(got.cancelReasons).toEqual([{ key: "duplicate", label: "Duplicate engagement", count: 2 }]);
  });

  it("reads each organisation's own targets and stale days", async () => {
    const a = await engagement("qhyg");
    const b = await engagement("fztf", p.orgB);
    await backdate(a, 3 * D, 3 * D);
    await backdate(b, 3 * D, 3 * D);
    // Org B gives its customers 2 days for step 1 and calls 2 days without a change stale.
    const defaults = (await support().organizations.clockTargets({ organizationId: p.orgB })).defaults;
    await callerAs(t.database, p.admin).organizations.setClockTargets({
      organizationId: p.orgB,
      targets: { steps: { ...defaults.steps, 1: { customer: 48, support: 24 } }, staleAfterDays: 2 },
    });
    const got = await portfolio();
    expect(got.rows.map((r) => [r.id, r.risk, r.stale])).toEqual([
      [b, "late", true],
      [a, "on_pace", false],
    ]);
    expect((await portfolio({ risk: "stale" })).rows.map((r) => r.id)).toEqual([b]);
  });

  it("finds the late among engagements opened before their deadlines were stored, once the worker's start stores them", async () => {
    const id = await engagement("qhyg");
    await backdate(id, 6 * D);
    await t.db.update(engagements).set({ dueAt: null, atRiskAt: null }).where(eq(engagements.id, id));
    expect((await portfolio()).counts.late).toBe(0);
    expect(await t.database.transaction((tx) => storeMissingDeadlines(tx), { isolation: "read committed" })).toBe(1);
    expect((await portfolio()).counts.late).toBe(1);
    expect(await t.database.transaction((tx) => storeMissingDeadlines(tx), { isolation: "read committed" })).toBe(0);
  });

  it("is support's: a customer is refused", async () => {
    const refused = await trpcError(callerAs(t.database, p.customerA).portfolio.get({}));
    expect(refused.code).toBe("FORBIDDEN");
  });
});

describe("an organisation's move targets", () => {
  it("admins change them (audited, only what differs kept), staff read them, and the portfolio's clocks follow", async () => {
    const id = await engagement("qhyg");
    await backdate(id, 3 * D);
    expect((await portfolio()).rows[0]!.risk).toBe("on_pace");
    const read = await support().organizations.clockTargets({ organizationId: p.orgA });
    expect(read).toMatchObject({ name: "Org A", changed: false });
    expect(read.targets).toEqual(read.defaults);

    const targets = { ...read.targets, steps: { ...read.targets.steps, 1: { customer: 48, support: 24 } } };
    expect((await trpcError(support().organizations.setClockTargets({ organizationId: p.orgA, targets }))).code).toBe("FORBIDDEN");
    const admin = callerAs(t.database, p.admin);
    const saved = await admin.organizations.setClockTargets({ organizationId: p.orgA, targets });
    expect(saved).toMatchObject({ changed: true, targets: { steps: { 1: { customer: 48, support: 24 } } } });
    const [row] = await t.db.select({ clockTargets: organizations.clockTargets }).from(organizations).where(eq(organizations.id, p.orgA));
    expect(row!.clockTargets).toEqual({ steps: { 1: { customer: 48 } } });
    expect((await portfolio()).rows[0]!.risk).toBe("late");

    // Back to the defaults: nothing kept.
    await admin.organizations.setClockTargets({ organizationId: p.orgA, targets: read.defaults });
    const [again] = await t.db.select({ clockTargets: organizations.clockTargets }).from(organizations).where(eq(organizations.id, p.orgA));
    expect(again!.clockTargets).toBeNull();
  });

  it("refuses a target outside an hour to a quarter, changing nothing", async () => {
    const admin = callerAs(t.database, p.admin);
    const read = await admin.organizations.clockTargets({ organizationId: p.orgA });
    for (const bad of [0, -5, 2.5, 90 * 24 + 1]) {
      const targets = { ...read.targets, steps: { ...read.targets.steps, 2: { customer: bad, support: 24 } } };
      expect((await trpcError(admin.organizations.setClockTargets({ organizationId: p.orgA, targets }))).code).toBe("BAD_REQUEST");
    }
    expect((await trpcError(admin.organizations.setClockTargets({ organizationId: p.orgA, targets: { ...read.targets, staleAfterDays: 0 } }))).code).toBe("BAD_REQUEST");
    expect((await admin.organizations.clockTargets({ organizationId: p.orgA })).changed).toBe(false);
    expect((await trpcError(admin.organizations.clockTargets({ organizationId: "nope" }))).code).toBe("NOT_FOUND");
  });
});

describe("the workload", () => {
  it("counts each staff member's open engagements by risk, support's moves, live runs and windows this week, listing those who own nothing", async () => {
    const late = await engagement("qhyg");
    const held = await engagement("rwuv");
    const priyas = await engagement("fztf", p.orgB);
    await backdate(late, 6 * D);
    await support().engagements.setStatus({ engagementId: held, status: "on_hold", reasonCode: "platform_issue" });
    await support().engagements.setOwner({ engagementId: priyas, ownerId: p.support2.id });
    // Support Two's engagement has its window in three days and a test under way.
    const inThreeDays = new Date(Date.now() + 3 * D);
    await t.db.update(engagements).set({ windowStartsAt: inThreeDays, windowEndsAt: new Date(inThreeDays.getTime() + 8 * H) }).where(eq(engagements.id, priyas));
    await t.db.insert(migrationRuns).values({ engagementId: priyas, kind: "pilot", status: "running", requestedAt: new Date() });

    const got = await support().portfolio.workload();
    const byName = Object.fromEntries(got.people.map((x) => [x.name, x]));
    expect(byName["Support One"]).toMatchObject({ open: 2, late: 1, atRisk: 0, onHold: 1, supportsMove: 0, liveRuns: 0, windowsAgreed: 0 });
    expect(byName["Support Two"]).toMatchObject({ open: 1, late: 0, onHold: 0, liveRuns: 1, windowsAgreed: 1, windowsProposed: 0 });
    // The admin owns nothing and is listed, to hand work to; the most late first.
    expect(byName["Admin"]).toMatchObject({ open: 0 });
    expect(got.people[0]!.name).toBe("Support One");
    expect(got.people.some((x) => x.name === "Customer A")).toBe(false);
    expect((await trpcError(callerAs(t.database, p.customerA).portfolio.workload())).code).toBe("FORBIDDEN");
  });
});
