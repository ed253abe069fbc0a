/**
 * The single-company test procedures through createCaller on a real temporary database (tenants
 * on a real sandbox): asking for a test or rehearsal, every refusal with a clear error and nothing
 * written, the runs as listed and read, cancelling, the customer's read-only view.
 */
import { and, count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditEvents, engagements, migrationItems, migrationRuns } from "@/db/schema";
import { applyStepAction } from "@/server/engagements/act-on-step";
import { engineTestBed } from "@/server/testing/test-bed";
import { callerAs, trpcError } from "../../testing/caller";

const bed = engineTestBed();

const support = () => callerAs(bed.t.database, bed.people.support);
const ready = bed.ready;
const runCount = async () => (await bed.t.db.select({ n: count() }).from(migrationRuns))[0]!.n;

/** The error a refused request gets, and proof that nothing was written (the call is made once the count is read). */
async function refused(call: () => Promise<unknown>) {
  const before = await runCount();
  const error = await trpcError(call());
  expect(await runCount()).toBe(before);
  return error;
}

/** Completes step 5 as a passed test would (no run needed for the rules that read it). */
async function completeStep5(engagementId: string, itemId: string) {
  await bed.t.database.transaction(
    (tx) =>
      applyStepAction(tx, bed.people.support, {
        engagementId,
        step: 5,
        action: "complete",
        via: "flow",
        evidence: { kind: "test_passed", runId: "r", itemId, companyId: "c", connectionId: "k" },
      }),
    { isolation: "read committed" },
  );
}

describe("asking for a test", () => {
  it("lists the 20 smallest companies for the picker and says how many there are and how many a search matches", async () => {
    const eng = await ready(Array.from({ length: 23 }, (_, i) => ({ name: `Picker ${i % 2 ? "Odd" : "Even"} ${i + 1}`, records: 30 - i })));
    const s = support();
    const all = await s.tests.items({ engagementId: eng.engagementId });
    expect(all.companies).toHaveLength(20);
    expect(all.companies[0]).toMatchObject({ name: "Picker Even 23", records: 8 });
    expect([all.total, all.matching]).toEqual([23, 23]);
    const odd = await s.tests.items({ engagementId: eng.engagementId, search: " Odd " });
    expect(odd.companies.map((c) => c.name)).toEqual(Array.from({ length: 11 }, (_, i) => `Picker Odd ${22 - 2 * i}`));
    expect([odd.total, odd.matching]).toEqual([23, 11]);
  });

  it("queues the test on the company support picked, starts step 5, and lists it with its company", async () => {
    const eng = await ready([{ name: "Alpha", records: 20, externalRef: "A-1" }, { name: "Beta", records: 10 }]);
    const s = support();
    const { companies: items, total, matching } = await s.tests.items({ engagementId: eng.engagementId });
    expect(items.map((i) => [i.name, i.records])).toEqual([
      ["Beta", 10],
      ["Alpha", 20],
    ]);
    expect([total, matching]).toEqual([2, 2]);
    expect(await s.tests.items({ engagementId: eng.engagementId, search: "A-1" })).toMatchObject({ companies: [{ name: "Alpha" }], total: 2, matching: 1 });
    expect(await s.tests.items({ engagementId: eng.engagementId, search: "%" })).toEqual({ companies: [], total: 2, matching: 0 });

    const { runId } = await s.tests.start({ engagementId: eng.engagementId, kind: "pilot", itemId: items[1]!.id });
    const [listed] = await s.tests.list({ engagementId: eng.engagementId });
    expect(listed).toMatchObject({ id: runId, kind: "pilot", status: "queued", active: true, result: null, company: "Alpha", pickedBy: "support", requestedBy: "Support One" });
    const run = await s.tests.get({ engagementId: eng.engagementId, runId });
    expect(run).toMatchObject({ target: { baseUrl: bed.sb.url }, progress: { done: 0, of: 5 }, item: { name: "Alpha", externalRef: "A-1", state: "pending" }, calls: [] });
    const detail = await s.engagements.get({ engagementId: eng.engagementId });
    expect(detail.steps[4]).toMatchObject({ state: "in_progress" });
    // Step 5's Complete belongs to its panel: the generic step buttons do not offer it.
    expect(detail.steps[4]!.actions.map((a) => a.action)).not.toContain("complete");
    expect((await s.engagements.timeline({ engagementId: eng.engagementId }))[0]!.summary).toBe("Asked for the single-company test on Alpha");
  });

  it("refuses, with a clear error and nothing written: a second test while one is queued, then cancels it", async () => {
    const eng = await ready([{ name: "Gamma", records: 5 }]);
    const s = support();
    const { runId } = await s.tests.start({ engagementId: eng.engagementId, kind: "pilot" });
    const busy = await refused(() => s.tests.start({ engagementId: eng.engagementId, kind: "rehearsal" }));
    expect(busy).toMatchObject({ code: "CONFLICT", message: "A single-company test is already waiting for the worker: wait for it to end or cancel it." });

    await s.tests.cancel({ engagementId: eng.engagementId, runId, reason: "Wrong company" });
    expect(await s.tests.get({ engagementId: eng.engagementId, runId })).toMatchObject({ status: "cancelled", active: false, statusReason: "Wrong company" });
    const again = await trpcError(s.tests.cancel({ engagementId: eng.engagementId, runId }));
    expect(again).toMatchObject({ code: "PRECONDITION_FAILED", message: "The run has already ended (cancelled)." });
    // A new test may be asked for once the last one ended.
    await s.tests.start({ engagementId: eng.engagementId, kind: "pilot" });
  });

  it("of several requests at once, queues one test or rehearsal and refuses the others (on PostgreSQL they really are at once)", async () => {
    const s = support();
    for (const [kind, what] of [
      ["rehearsal", "rehearsal"],
      ["pilot", "single-company test"],
    ] as const) {
      const eng = await ready([{ name: `Racing ${kind} Co`, records: 5 }]);
      // Reads at once first, so the pool has a connection for each request and they start together.
      await Promise.all(Array.from({ length: 8 }, () => s.tests.controls({ engagementId: eng.engagementId })));
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => s.tests.start({ engagementId: eng.engagementId, kind })));
      // One run queued and audited: the engagement's lock makes each request see the one before.
      expect(await bed.t.db.select().from(migrationRuns).where(eq(migrationRuns.engagementId, eng.engagementId))).toHaveLength(1);
      const audited = await bed.t.db.select().from(auditEvents).where(and(eq(auditEvents.engagementId, eng.engagementId), eq(auditEvents.action, "migration.test_requested")));
      expect(audited).toHaveLength(1);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of results.filter((r) => r.status === "rejected")) {
        expect(r.reason).toMatchObject({ code: "CONFLICT", message: `A ${what} is already waiting for the worker: wait for it to end or cancel it.` });
      }
    }
  });

  it("of several cancels at once, one cancels the run and the others are refused", async () => {
    const eng = await ready([{ name: "Cancelled Twice Co", records: 5 }]);
    const s = support();
    const { runId } = await s.tests.start({ engagementId: eng.engagementId, kind: "rehearsal" });
    await Promise.all(Array.from({ length: 6 }, () => s.tests.controls({ engagementId: eng.engagementId })));
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => s.tests.cancel({ engagementId: eng.engagementId, runId, reason: `Cancel ${i}` })));
    // The run's row is locked before it is checked: the others wait, then find it ended.
    const audited = await bed.t.db.select().from(auditEvents).where(and(eq(auditEvents.targetId, runId), eq(auditEvents.action, "migration.test_cancelled")));
    expect(audited).toHaveLength(1);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected")) expect(r.reason).toMatchObject({ code: "PRECONDITION_FAILED", message: "The run has already ended (cancelled)." });
    const [run] = await bed.t.db.select().from(migrationRuns).where(eq(migrationRuns.id, runId));
    expect(run!.statusReason).toBe((audited[0]!.after as { reason: string }).reason);
  });

  it("refuses a test before steps 1–4 are done (naming them), while a rehearsal only needs the companies", async () => {
    const eng = await ready([{ name: "Early", records: 5 }], { stopAfterStep1: true });
    const s = support();
    const early = await refused(() => s.tests.start({ engagementId: eng.engagementId, kind: "pilot" }));
    expect(early).toMatchObject({ code: "PRECONDITION_FAILED" });
    expect(early.message).toContain("step 2 (Time agreed), step 3 (Callback URL added), step 4 (Syncing disabled)");
    await expect(s.tests.start({ engagementId: eng.engagementId, kind: "rehearsal" })).resolves.toMatchObject({ runId: expect.any(String) as string });
  });

  it("refuses an engagement without companies, without a target, on hold, or whose step 5 is done", async () => {
    const s = support();
    const empty = await s.engagements.create({ organizationId: bed.people.orgB, platformKey: "rwuv" });
    const none = await refused(() => s.tests.start({ engagementId: empty.id, kind: "rehearsal" }));
    expect(none).toMatchObject({ code: "PRECONDITION_FAILED", message: "There are no companies to test yet: they come from the token file accepted in step 1." });

    const noTarget = await ready([{ name: "Untargeted", records: 5 }]);
    await bed.t.db.update(engagements).set({ serviceTargetId: null }).where(eq(engagements.id, noTarget.engagementId));
    expect(await refused(() => s.tests.start({ engagementId: noTarget.engagementId, kind: "pilot" }))).toMatchObject({
      code: "PRECONDITION_FAILED",
      message: "Choose the engagement's service target before running the single-company test.",
    });

    // An engagement left pointing at another organisation's account (data from before targets had
    // organisations): the test, which copies the target, is refused, and no key is ever sent.
    const foreign = await ready([{ name: "Foreign", records: 5 }]);
    const otherOrgsTarget = await ready([{ name: "Other org's", records: 5 }], { organizationId: bed.people.orgB });
    await bed.t.db.update(engagements).set({ serviceTargetId: otherOrgsTarget.serviceTargetId }).where(eq(engagements.id, foreign.engagementId));
    expect(await refused(() => s.tests.start({ engagementId: foreign.engagementId, kind: "pilot" }))).toMatchObject({
      code: "PRECONDITION_FAILED",
      message: expect.stringContaining("is another organisation's account on the service: choose one of this organisation's targets or the built-in sandbox."),
    });

    const held = await ready([{ name: "Held", records: 5 }]);
    await s.engagements.setStatus({ engagementId: held.engagementId, status: "on_hold", reasonCode: "customer_unavailable" });
    for (const kind of ["pilot", "rehearsal"] as const) {
      expect((await refused(() => s.tests.start({ engagementId: held.engagementId, kind }))).message).toMatch(/on hold|only while the engagement is active/);
    }

    const passed = await ready([{ name: "Passed Already", records: 5 }]);
    await completeStep5(passed.engagementId, passed.items[0]!.id);
    expect(await refused(() => s.tests.start({ engagementId: passed.engagementId, kind: "pilot" }))).toMatchObject({
      code: "PRECONDITION_FAILED",
      message: "Step 5 (Single-company test) is already done.",
    });
  });

  it("refuses a company of another engagement, a set-aside one, an unknown kind, and customers", async () => {
    const one = await ready([{ name: "Mine", records: 5 }]);
    const other = await ready([{ name: "Theirs", records: 5 }]);
    const s = support();
    const foreign = await refused(() => s.tests.start({ engagementId: one.engagementId, kind: "pilot", itemId: other.items[0]!.id }));
    expect(foreign).toMatchObject({ code: "BAD_REQUEST", cause: { fields: { itemId: "Choose a company of this engagement's token file." } } });

    await bed.t.db.update(migrationItems).set({ state: "set_aside" }).where(eq(migrationItems.id, one.items[0]!.id));
    expect(await refused(() => s.tests.start({ engagementId: one.engagementId, kind: "pilot", itemId: one.items[0]!.id }))).toMatchObject({
      code: "BAD_REQUEST",
      cause: { fields: { itemId: "Mine is set aside; choose another company." } },
    });
    // Nothing left to pick by itself either.
    expect((await refused(() => s.tests.start({ engagementId: one.engagementId, kind: "pilot" }))).cause).toMatchObject({ fields: { itemId: expect.stringContaining("choose one yourself") as string } });

    const badKind = await refused(() => s.tests.start({ engagementId: other.engagementId, kind: "bulk" as "pilot" }));
    expect(badKind.code).toBe("BAD_REQUEST");
    expect((await refused(() => callerAs(bed.t.database, bed.people.customerA).tests.start({ engagementId: other.engagementId, kind: "pilot" }))).code).toBe("FORBIDDEN");
  });
});

describe("reading runs", () => {
  it("a run of another engagement is not found; customers read only their own organisation's", async () => {
    const mine = await ready([{ name: "Portal Co", records: 5 }], { organizationId: bed.people.orgA, platformKey: "fbrh" });
    const other = await ready([{ name: "Elsewhere", records: 5 }]);
    const { runId } = await support().tests.start({ engagementId: mine.engagementId, kind: "pilot" });
    expect((await trpcError(support().tests.get({ engagementId: other.engagementId, runId }))).code).toBe("NOT_FOUND");

    const customerA = callerAs(bed.t.database, bed.people.customerA);
    expect(await customerA.tests.list({ engagementId: mine.engagementId })).toMatchObject([{ id: runId, company: "Portal Co" }]);
    expect(await customerA.tests.get({ engagementId: mine.engagementId, runId })).toMatchObject({ id: runId, item: { name: "Portal Co" } });
    const customerB = callerAs(bed.t.database, bed.people.customerB);
    // Each call made only when awaited: a rejection nobody awaits yet would be an unhandled one.
    for (const call of [() => customerB.tests.list({ engagementId: mine.engagementId }), () => customerB.tests.get({ engagementId: mine.engagementId, runId })]) {
      expect(await trpcError(call())).toMatchObject({ code: "NOT_FOUND", message: "No engagement with that id." });
    }
  });
});

describe("the controls step 5 offers", () => {
  /** Each control as the panel gets it, beside what the operation answers (checked with nothing written). */
  async function controlsAndStarts(engagementId: string) {
    const s = support();
    const controls = await s.tests.controls({ engagementId });
    const answer = async (kind: "pilot" | "rehearsal") => {
      if (controls[kind].allowed) return null;
      return (await refused(() => s.tests.start({ engagementId, kind }))).message;
    };
    return { controls, pilot: await answer("pilot"), rehearsal: await answer("rehearsal") };
  }

  it("offers both on an engagement ready for the test; while one runs, neither, but cancelling it; then both again", async () => {
    const eng = await ready([{ name: "Ready Co", records: 5 }]);
    const s = support();
    expect(await s.tests.controls({ engagementId: eng.engagementId })).toEqual({
      pilot: { allowed: true, reason: null },
      rehearsal: { allowed: true, reason: null },
      cancel: { allowed: false, reason: "No test or rehearsal is under way." },
    });
    const { runId } = await s.tests.start({ engagementId: eng.engagementId, kind: "rehearsal" });
    const busy = "A rehearsal is already waiting for the worker: wait for it to end or cancel it.";
    const during = await controlsAndStarts(eng.engagementId);
    expect(during.controls).toEqual({ pilot: { allowed: false, reason: busy }, rehearsal: { allowed: false, reason: busy }, cancel: { allowed: true, reason: null } });
    expect([during.pilot, during.rehearsal]).toEqual([busy, busy]);

    await s.tests.cancel({ engagementId: eng.engagementId, runId });
    expect(await s.tests.controls({ engagementId: eng.engagementId })).toMatchObject({ pilot: { allowed: true }, rehearsal: { allowed: true }, cancel: { allowed: false } });
  });

  it("refuses the test before steps 1–4 are done (naming them) but offers the rehearsal; the words are the operation's", async () => {
    const eng = await ready([{ name: "Early Co", records: 5 }], { stopAfterStep1: true });
    const { controls, pilot } = await controlsAndStarts(eng.engagementId);
    expect(controls.pilot.allowed).toBe(false);
    expect(controls.pilot.reason).toContain("step 2 (Time agreed), step 3 (Callback URL added), step 4 (Syncing disabled)");
    expect(pilot).toBe(controls.pilot.reason);
    expect(controls.rehearsal).toEqual({ allowed: true, reason: null });
  });

  it("refuses the test without a usable target, and once step 5 is done, while the rehearsal stays on offer", async () => {
    const s = support();
    const noTarget = await ready([{ name: "Untargeted Co", records: 5 }]);
    await bed.t.db.update(engagements).set({ serviceTargetId: null }).where(eq(engagements.id, noTarget.engagementId));
    const foreign = await ready([{ name: "Foreign Co", records: 5 }]);
    // Each ready engagement is a new organisation's, with that organisation's own target.
    const otherOrgs = await ready([{ name: "Other Co", records: 5 }]);
    await bed.t.db.update(engagements).set({ serviceTargetId: otherOrgs.serviceTargetId }).where(eq(engagements.id, foreign.engagementId));
    const passed = await ready([{ name: "Passed Co", records: 5 }]);
    await completeStep5(passed.engagementId, passed.items[0]!.id);
    for (const [eng, words] of [
      [noTarget, /^Choose the engagement's service target before running the single-company test\.$/],
      [foreign, /is another organisation's account on the service/],
      [passed, /^Step 5 \(Single-company test\) is already done\.$/],
    ] as const) {
      const { controls, pilot } = await controlsAndStarts(eng.engagementId);
      expect(controls.pilot).toEqual({ allowed: false, reason: expect.stringMatching(words) as string });
      expect(pilot).toBe(controls.pilot.reason);
      expect(controls.rehearsal).toEqual({ allowed: true, reason: null });
    }
    expect((await s.tests.controls({ engagementId: passed.engagementId })).cancel.allowed).toBe(false);
  });

  it("refuses both on an engagement on hold, and on one without companies", async () => {
    const s = support();
    const held = await ready([{ name: "Held Co", records: 5 }]);
    await s.engagements.setStatus({ engagementId: held.engagementId, status: "on_hold", reasonCode: "customer_unavailable" });
    const onHold = await controlsAndStarts(held.engagementId);
    expect(onHold.controls.pilot).toEqual({ allowed: false, reason: "The engagement is on hold; steps can change only while it is active." });
    expect(onHold.controls.rehearsal).toEqual({ allowed: false, reason: "A rehearsal runs only while the engagement is active." });
    expect([onHold.pilot, onHold.rehearsal]).toEqual([onHold.controls.pilot.reason, onHold.controls.rehearsal.reason]);

    const empty = await s.engagements.create({ organizationId: bed.people.orgB, platformKey: "vxvy" });
    const none = await controlsAndStarts(empty.id);
    expect(none.controls.rehearsal).toEqual({ allowed: false, reason: "There are no companies to test yet: they come from the token file accepted in step 1." });
    expect(none.rehearsal).toBe(none.controls.rehearsal.reason);
    expect(none.controls.pilot.allowed).toBe(false);
  });

  it("customers read every control refused; another organisation's engagement is not found", async () => {
    const mine = await ready([{ name: "Portal Controls Co", records: 5 }], { organizationId: bed.people.orgA, platformKey: "pbtz" });
    await support().tests.start({ engagementId: mine.engagementId, kind: "pilot" });
    expect(await callerAs(bed.t.database, bed.people.customerA).tests.controls({ engagementId: mine.engagementId })).toEqual({
      pilot: { allowed: false, reason: "Only support staff run tests." },
      rehearsal: { allowed: false, reason: "Only support staff run tests." },
      cancel: { allowed: false, reason: "Only support staff cancel tests." },
    });
    for (const engagementId of [mine.engagementId, "no-such-engagement"]) {
      expect(await trpcError(callerAs(bed.t.database, bed.people.customerB).tests.controls({ engagementId }))).toMatchObject({ code: "NOT_FOUND", message: "No engagement with that id." });
    }
  });
});
