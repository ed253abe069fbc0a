/** The engagement procedures through createCaller on a real temporary database.
 *
 * Its tests tagged both-databases run on PostgreSQL too: engagements asked for at once, and the list's counting queries.
 */
import { z, ZodError } from "zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { auditEvents, engagements, type engagementSteps } from "@/db/schema";
import { agreeWindow, completeIntake } from "@/server/testing/engagement-flows";
import { createTestDatabase, seedPeople, type People, type TestDatabase } from "@/server/testing/test-db";
import { applyStepAction } from "@/server/engagements/act-on-step";
import { writeAudit, type AuditInput } from "@/server/security/audit";
import { callerAs, testConfig, trpcError } from "../../testing/caller";

let t: TestDatabase;
let p: People;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

const support = () => callerAs(t.database, p.support);
const flowDeps = () => ({ db: t.database, config: testConfig(), support: p.support, customer: p.customerA });
/** Step 1 through its flow: the customer of org A submits a token file and support accepts it. */
const acceptDetails = (engagementId: string) => completeIntake(flowDeps(), { engagementId });
/** Step 2 through its flow: support proposes a window and the customer accepts it. */
const agreeOnWindow = (engagementId: string) => agreeWindow(flowDeps(), { engagementId });

async function newEngagement(platformKey = "qhyg", organizationId = p.orgA) {
  return support().engagements.create({ organizationId, platformKey });
}

/** Step 5 completes only through a passed single-company test (server/migration): its flow's evidence here. */
function passStep5(engagementId: string) {
  return t.database.transaction(
    (tx) =>
      applyStepAction(tx, p.support, {
        engagementId,
        step: 5,
        action: "complete",
        via: "flow",
        evidence: { kind: "test_passed", runId: "run-1", itemId: "item-1", companyId: "company-1", connectionId: "connection-1" },
      }),
    { isolation: "read committed" },
  );
}

/** Decryption events as the worker records them, written in one transaction. */
function audit(inputs: AuditInput<"migration_item.credentials_decrypted">[]) {
  return t.database.transaction(
    function* (tx) {
      for (const input of inputs) yield* writeAudit(tx, input);
    },
    { isolation: "read committed" },
  );
}

async function rowCount(table: typeof engagements | typeof engagementSteps | typeof auditEvents) {
  return (await t.db.select({ n: count() }).from(table))[0]!.n;
}

describe("creating an engagement", () => {
  it("opens six pending steps owned by the creator, with a reference and an audit event", async () => {
    const { id, reference } = await newEngagement();
    expect(reference).toMatch(/^FER-\d{4,}$/);
    const eng = await support().engagements.get({ engagementId: id });
    expect(eng.owner.id).toBe(p.support.id);
    expect(eng.platform).toMatchObject({ key: "qhyg", name: "QuickBooks Online", callbackUrl: "https://quickbooksonline.codat.io/oauth2/callback" });
    expect(eng.status).toBe("active");
    expect(eng.steps.map((s) => [s.number, s.state, s.displayState])).toEqual([
      [1, "pending", "pending"],
      [2, "pending", "locked"],
      // The callback URL depends only on the platform: step 3 is open from the start.
      [3, "pending", "pending"],
      [4, "pending", "locked"],
      [5, "pending", "locked"],
      [6, "pending", "locked"],
    ]);
    const timeline = await support().engagements.timeline({ engagementId: id });
    expect(timeline[0]).toMatchObject({ action: "engagement.created", actor: "Support One (support)" });
  });

  it.each(["gbol", "Xero", "exgd", "made-up"])("refuses %s: no standard managed process, and nothing is written", async (platformKey) => {
    const before = [await rowCount(engagements), await rowCount(auditEvents)];
    const error = await trpcError(newEngagement(platformKey));
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.message).toContain("no standard managed migration process");
    expect(error.cause).toMatchObject({ fields: { platformKey: expect.stringContaining("no standard managed migration process") } });
    expect([await rowCount(engagements), await rowCount(auditEvents)]).toEqual(before);
  });

  it("opens one engagement when four are asked for the same organisation and platform at once; the others name it", { tags: ["both-databases"] }, async () => {
    await Promise.all([1, 2, 3, 4].map(() => t.db.select().from(engagements)));
    const tries = await Promise.allSettled([1, 2, 3, 4].map(() => newEngagement()));
    const created = tries.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof newEngagement>>> => r.status === "fulfilled");
    expect(created).toHaveLength(1);
    for (const r of tries.filter((r): r is PromiseRejectedResult => r.status === "rejected")) {
      expect(r.reason).toMatchObject({ code: "CONFLICT", message: expect.stringContaining(created[0]!.value.reference) });
    }
    expect(await rowCount(engagements)).toBe(1);
  });

  it("refuses a second open engagement for the same organisation and platform", async () => {
    const first = await newEngagement();
    const error = await trpcError(newEngagement());
    expect(error.code).toBe("CONFLICT");
    expect(error.message).toContain(first.reference);
    // A different platform is fine.
    await expect(newEngagement("fztf")).resolves.toMatchObject({ reference: expect.any(String) });
  });

  it("refuses an unknown organisation or a customer as owner, with field errors", async () => {
    const noOrg = await trpcError(support().engagements.create({ organizationId: "nope", platformKey: "qhyg" }));
    expect(noOrg.cause).toMatchObject({ fields: { organizationId: expect.any(String) } });
    const badOwner = await trpcError(
      support().engagements.create({ organizationId: p.orgA, platformKey: "qhyg", ownerId: p.customerA.id }),
    );
    expect(badOwner.cause).toMatchObject({ fields: { ownerId: expect.any(String) } });
    expect(await rowCount(engagements)).toBe(0);
  });

  it("rejects empty input with zod field errors", async () => {
    const error = await trpcError(support().engagements.create({ organizationId: "", platformKey: "" }));
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.cause).toBeInstanceOf(ZodError);
    expect(z.flattenError(error.cause as ZodError).fieldErrors).toEqual({
      organizationId: ["Choose the customer organisation."],
      platformKey: ["Choose the platform."],
    });
    expect(await rowCount(engagements)).toBe(0);
  });
});

describe("working the checklist", () => {
  it("completes steps in order and is stopped by a gate, naming it; nothing changes on refusal", async () => {
    const { id } = await newEngagement();
    const s = support();
    await acceptDetails(id);
    const gated = await trpcError(s.engagements.step({ engagementId: id, step: 5, action: "complete" }));
    expect(gated.code).toBe("PRECONDITION_FAILED");
    expect(gated.message).toContain("step 2 (Time agreed)");
    const eng = await s.engagements.get({ engagementId: id });
    expect(eng.steps[4]!.state).toBe("pending");
    expect(eng.currentStep).toBe(2);
    // Step 5's Complete belongs to its test; its Start is not offered while gates are open, and the
    // step says which of them it waits for (step 1 is done, so not that one).
    expect(eng.steps[4]!.actions).toEqual([]);
    expect(eng.steps[4]).toMatchObject({ displayState: "locked", openGates: [2, 3, 4], waitsFor: "Waits for step 2 (Time agreed), step 3 (Callback URL added) and step 4 (Syncing disabled)." });
  });

  it("requires a note when staff complete a customer's step, and records it as evidence on their behalf", async () => {
    const { id } = await newEngagement();
    const s = support();
    await acceptDetails(id);
    const noNote = await trpcError(s.engagements.step({ engagementId: id, step: 3, action: "complete" }));
    expect(noNote.code).toBe("BAD_REQUEST");
    expect(noNote.cause).toMatchObject({ fields: { note: expect.any(String) } });
    await s.engagements.step({ engagementId: id, step: 3, action: "complete", note: "Confirmed on a call" });
    const eng = await s.engagements.get({ engagementId: id });
    expect(eng.steps[2]).toMatchObject({
      state: "done",
      completedBy: { id: p.support.id, name: "Support One" },
      evidence: { note: "Confirmed on a call", onBehalfOfCustomer: true },
    });
    expect(eng.steps[2]!.completedAt).toBeInstanceOf(Date);
  });

  it("reopening a step with a reason reopens every step gated on it and shows on the timeline", async () => {
    const { id } = await newEngagement();
    const s = support();
    await acceptDetails(id);
    await agreeOnWindow(id);
    for (const step of [3, 4] as const) await s.engagements.step({ engagementId: id, step, action: "complete", note: "ok" });
    await passStep5(id);

    const noReason = await trpcError(s.engagements.step({ engagementId: id, step: 3, action: "reopen" }));
    expect(noReason.cause).toMatchObject({ fields: { reason: expect.any(String) } });
    // Step 2 belongs to its flow: it reopens by rescheduling the window, not by hand.
    const byHand = await trpcError(s.engagements.step({ engagementId: id, step: 2, action: "reopen", reason: "Window moved" }));
    expect(byHand).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("reschedule the accepted window") });

    const res = await s.engagements.step({ engagementId: id, step: 3, action: "reopen", reason: "Callback URL removed" });
    expect(res.changed).toEqual([3, 5]);
    const eng = await s.engagements.get({ engagementId: id });
    expect(eng.steps.map((x) => x.state)).toEqual(["done", "done", "pending", "done", "pending", "pending"]);
    expect(eng.steps[2]!.reopenedReason).toBe("Callback URL removed");
    expect(eng.steps[4]!.reopenedReason).toBe("Step 3 was reopened: Callback URL removed");
    expect(eng.steps[4]!.evidence).toBeNull();
    expect(eng.currentStep).toBe(3);
    expect(eng.waiting).toMatchObject({ party: "customer", next: expect.stringContaining("callback URL") });

    const timeline = await s.engagements.timeline({ engagementId: id });
    expect(timeline[0]).toMatchObject({
      action: "step.reopened",
      summary: "Reopened step 3 (Callback URL added): Callback URL removed; also reopened step 5 (Single-company test)",
      before: { step: 3, states: { 3: "done", 5: "done" } },
      after: { step: 3, states: { 3: "pending", 5: "pending" }, reason: "Callback URL removed", cascade: [5] },
    });
  });

  it("step 6 cannot be completed by hand: the handover completes it (and the engagement; see handover.test.ts)", async () => {
    const { id } = await newEngagement();
    const s = support();
    await acceptDetails(id);
    await agreeOnWindow(id);
    for (const step of [3, 4] as const) await s.engagements.step({ engagementId: id, step, action: "complete", note: "done" });
    await passStep5(id);
    const error = await trpcError(s.engagements.step({ engagementId: id, step: 6, action: "complete", note: "done" }));
    expect(error.code).toBe("PRECONDITION_FAILED");
    expect(error.message).toContain("acknowledges the handover report");
    const eng = await s.engagements.get({ engagementId: id });
    expect(eng.status).toBe("active");
    // The step's own panel offers its flow; the generic Complete is not offered at all.
    expect(eng.steps[5]!.actions.find((a) => a.action === "complete")).toBeUndefined();
  });

  it("holds, resumes and cancels (with a reason), refusing steps while not active", async () => {
    const { id } = await newEngagement();
    const s = support();
    await s.engagements.setStatus({ engagementId: id, status: "on_hold", reasonCode: "customer_unavailable" });
    expect((await trpcError(s.engagements.step({ engagementId: id, step: 1, action: "start" }))).message).toContain("on hold");
    await s.engagements.setStatus({ engagementId: id, status: "active" });
    const noReason = await trpcError(s.engagements.setStatus({ engagementId: id, status: "cancelled" }));
    expect(noReason.cause).toMatchObject({ fields: { reasonCode: "Choose a reason for cancelling." } });
    await s.engagements.setStatus({ engagementId: id, status: "cancelled", reasonCode: "customer_withdrew", reason: "Chose to reconnect instead" });
    const again = await trpcError(s.engagements.setStatus({ engagementId: id, status: "active" }));
    expect(again.code).toBe("PRECONDITION_FAILED");
    const timeline = await s.engagements.timeline({ engagementId: id });
    expect(timeline[0]!.summary).toBe("Changed status from active to cancelled: Customer withdrew — Chose to reconnect instead");
  });

  it("takes a reason from the short list to hold or cancel, words with Other, and refuses anything else keeping the engagement as it was", async () => {
    const { id } = await newEngagement();
    const s = support();
    const status = async () => (await s.engagements.get({ engagementId: id })).status;
    const noHoldReason = await trpcError(s.engagements.setStatus({ engagementId: id, status: "on_hold", reason: "Just words" }));
    expect(noHoldReason.cause).toMatchObject({ fields: { reasonCode: "Choose a reason for putting it on hold." } });
    // A cancelling reason is not a hold's.
    const wrongList = await trpcError(s.engagements.setStatus({ engagementId: id, status: "on_hold", reasonCode: "duplicate" }));
    expect(wrongList.cause).toMatchObject({ fields: { reasonCode: "Choose a reason for putting it on hold." } });
    const otherWithoutWords = await trpcError(s.engagements.setStatus({ engagementId: id, status: "on_hold", reasonCode: "other", reason: "  " }));
    expect(otherWithoutWords.cause).toMatchObject({ fields: { reason: 'Say in a few words why: the reason is "Other".' } });
    expect(await status()).toBe("active");
    expect((await s.engagements.timeline({ engagementId: id })).some((e) => e.summary.startsWith("Changed status"))).toBe(false);
    await s.engagements.setStatus({ engagementId: id, status: "on_hold", reasonCode: "other", reason: "Office move" });
    expect(await status()).toBe("on_hold");
    expect((await s.engagements.timeline({ engagementId: id }))[0]!.summary).toBe("Changed status from active to on hold: Office move");
  });

  it("hands an engagement to another support user", async () => {
    const { id } = await newEngagement();
    await support().engagements.setOwner({ engagementId: id, ownerId: p.support2.id });
    const eng = await support().engagements.get({ engagementId: id });
    expect(eng.owner.name).toBe("Support Two");
    const bad = await trpcError(support().engagements.setOwner({ engagementId: id, ownerId: p.customerA.id }));
    expect(bad.cause).toMatchObject({ fields: { ownerId: expect.any(String) } });
  });

  it("customers are offered no staff action, and read step 1 without the service target staff choose", async () => {
    const { id } = await newEngagement();
    await acceptDetails(id);
    await agreeOnWindow(id);
    const eng = await callerAs(t.database, p.customerA).engagements.get({ engagementId: id });
    expect(eng.steps[4]!.actions).toEqual([]);
    expect(eng.steps[5]!.actions).toEqual([]);
    // Their own confirmations (steps 3 and 4) are offered to them.
    expect(eng.steps[2]!.actions.map((a) => a.action)).toEqual(["complete"]);
    expect(eng.steps[0]!.doneWhen).not.toMatch(/service target/i);
    expect(eng.steps[0]!.doneWhen).toMatch(/client id and secret/);
    expect((await support().engagements.get({ engagementId: id })).steps[0]!.doneWhen).toMatch(/service target/);
  });

  it("never offers Reopen on a step in progress, nor an action the checklist would refuse", async () => {
    const { id } = await newEngagement();
    const s = support();
    await acceptDetails(id);
    await agreeOnWindow(id);
    for (const step of [3, 4] as const) await s.engagements.step({ engagementId: id, step, action: "complete", note: "ok" });
    // Step 5 is started by its flow (the test run), never by a bare Start: none is offered.
    expect((await s.engagements.get({ engagementId: id })).steps[4]).toMatchObject({ state: "pending", actions: [] });
    expect(await trpcError(s.engagements.step({ engagementId: id, step: 5, action: "start" }))).toMatchObject({ code: "PRECONDITION_FAILED" });
    await t.database.transaction((tx) => applyStepAction(tx, p.support, { engagementId: id, step: 5, action: "start", via: "flow" }), { isolation: "read committed" });
    const eng = await s.engagements.get({ engagementId: id });
    expect(eng.steps[4]).toMatchObject({ state: "in_progress", actions: [] });
    const refused = await trpcError(s.engagements.step({ engagementId: id, step: 5, action: "reopen", reason: "Try another company" }));
    expect(refused).toMatchObject({ code: "PRECONDITION_FAILED", message: "Step 5 (Single-company test) is in progress, not done; there is nothing to reopen." });
    // On hold, nothing at all is offered.
    await s.engagements.setStatus({ engagementId: id, status: "on_hold", reasonCode: "customer_unavailable" });
    const held = await s.engagements.get({ engagementId: id });
    expect(held.steps.flatMap((x) => x.actions)).toEqual([]);
  });
});

describe("the engagement list", () => {
  it("filters by step, status, owner and platform, searches, pages, and counts per step", { tags: ["both-databases"] }, async () => {
    const s = support();
    const a1 = await newEngagement("qhyg", p.orgA);
    await newEngagement("fztf", p.orgA);
    const b1 = await s.engagements.create({ organizationId: p.orgB, platformKey: "qhyg", ownerId: p.support2.id });
    await acceptDetails(a1.id);
    await s.engagements.setStatus({ engagementId: b1.id, status: "on_hold", reasonCode: "customer_unavailable" });

    const all = await s.engagements.list({ page: 1, pageSize: 25 });
    expect(all.total).toBe(3);
    expect(all.countsByStep).toMatchObject({ 1: 2, 2: 1 });

    expect((await s.engagements.list({ step: 2, page: 1, pageSize: 25 })).items.map((e) => e.id)).toEqual([a1.id]);
    const onStep2 = await s.engagements.list({ step: 2, page: 1, pageSize: 25 });
    expect(onStep2.countsByStep).toMatchObject({ 1: 2, 2: 1 }); // counts ignore the step filter
    expect((await s.engagements.list({ status: ["on_hold"], page: 1, pageSize: 25 })).items.map((e) => e.id)).toEqual([b1.id]);
    expect((await s.engagements.list({ ownerId: p.support2.id, page: 1, pageSize: 25 })).total).toBe(1);
    expect((await s.engagements.list({ platformKey: "fztf", page: 1, pageSize: 25 })).items[0]!.platformName).toBe("Shopify");
    expect((await s.engagements.list({ search: "org b", page: 1, pageSize: 25 })).items.map((e) => e.id)).toEqual([b1.id]);
    expect((await s.engagements.list({ search: "quickbooks", page: 1, pageSize: 25 })).total).toBe(2);
    expect((await s.engagements.list({ search: a1.reference, page: 1, pageSize: 25 })).total).toBe(1);
    expect((await s.engagements.list({ search: "100%_", page: 1, pageSize: 25 })).total).toBe(0);

    const page1 = await s.engagements.list({ page: 1, pageSize: 2 });
    const page2 = await s.engagements.list({ page: 2, pageSize: 2 });
    expect(page1.items).toHaveLength(2);
    expect(page2.items).toHaveLength(1);
    expect(new Set([...page1.items, ...page2.items].map((e) => e.id)).size).toBe(3);
  });

  it("refuses a page size over 100", async () => {
    const error = await trpcError(support().engagements.list({ page: 1, pageSize: 1000 }));
    expect(error.code).toBe("BAD_REQUEST");
  });

  it("keeps the current step column in step with the checklist", async () => {
    const { id } = await newEngagement();
    await acceptDetails(id);
    const row = (await t.db.select().from(engagements).where(eq(engagements.id, id)).limit(1))[0]!;
    expect(row.currentStep).toBe(2);
  });
});

describe("rules the server hands the screens", () => {
  it("counts steps done the same way in the list and on the engagement, out of order too", async () => {
    const { id } = await newEngagement();
    const s = support();
    await acceptDetails(id);
    // Steps 3 and 4 can be done before step 2: progress is the number of done steps, not current step − 1.
    await s.engagements.step({ engagementId: id, step: 3, action: "complete", note: "Confirmed on a call" });
    await s.engagements.step({ engagementId: id, step: 4, action: "complete", note: "Confirmed on a call" });
    const detail = await s.engagements.get({ engagementId: id });
    const item = (await s.engagements.list({ page: 1, pageSize: 25 })).items.find((e) => e.id === id)!;
    expect(detail.currentStep).toBe(2);
    expect(detail.stepsDone).toBe(3);
    expect(item.stepsDone).toBe(3);
    const portalItem = (await callerAs(t.database, p.customerA).engagements.list({ page: 1, pageSize: 25 })).items.find((e) => e.id === id)!;
    expect(portalItem.stepsDone).toBe(3);
  });

  it("offers each step only the actions of its state, leaves the flows' actions to their panels, and a reopen names its cascade", async () => {
    const { id } = await newEngagement();
    const s = support();
    await acceptDetails(id);
    await s.engagements.step({ engagementId: id, step: 3, action: "start" });
    await s.engagements.step({ engagementId: id, step: 4, action: "complete", note: "Confirmed on a call" });
    const eng = await s.engagements.get({ engagementId: id });
    const actionsOf = (n: number) => eng.steps[n - 1]!.actions.map((a) => a.action);
    // Steps 1 and 2 change through their flows (accept, send back, propose, reschedule).
    expect(actionsOf(1)).toEqual([]);
    expect(actionsOf(2)).toEqual([]);
    expect(actionsOf(3)).toEqual(["complete"]);
    expect(actionsOf(4)).toEqual(["reopen"]);
    // Step 5 completes through its test (its panel); Start stays a person's, offered once its gates are done (steps 2 and 3 are not).
    expect(actionsOf(5)).toEqual([]);
    expect(eng.steps[4]!.waitsFor).toBe("Waits for step 2 (Time agreed) and step 3 (Callback URL added).");
    expect(eng.steps[3]!.actions.find((a) => a.action === "reopen")).toMatchObject({ cascade: [] });
  });

  it("offers staff the allowed status changes with their reason rule, and customers none", async () => {
    const { id } = await newEngagement();
    const s = support();
    expect((await s.engagements.get({ engagementId: id })).statusChanges).toEqual([
      { to: "on_hold", reasonRequired: true },
      { to: "cancelled", reasonRequired: true },
    ]);
    expect((await callerAs(t.database, p.customerA).engagements.get({ engagementId: id })).statusChanges).toEqual([]);
    await s.engagements.setStatus({ engagementId: id, status: "on_hold", reasonCode: "customer_unavailable" });
    expect((await s.engagements.get({ engagementId: id })).statusChanges.map((c) => c.to)).toEqual(["active", "cancelled"]);
    const noReason = await trpcError(s.engagements.setStatus({ engagementId: id, status: "cancelled" }));
    expect(noReason.cause).toMatchObject({ fields: { reasonCode: "Choose a reason for cancelling." } });
    await s.engagements.setStatus({ engagementId: id, status: "cancelled", reasonCode: "customer_withdrew", reason: "Customer withdrew" });
    expect((await s.engagements.get({ engagementId: id })).statusChanges).toEqual([]);
  });

  it("says whether the service target may change: for staff until the engagement is completed or cancelled (the operation's words), never for customers", async () => {
    const { id } = await newEngagement();
    const s = support();
    expect((await s.engagements.get({ engagementId: id })).targetChange).toEqual({ allowed: true, reason: null });
    expect((await callerAs(t.database, p.customerA).engagements.get({ engagementId: id })).targetChange).toEqual({ allowed: false, reason: "Only support staff choose service targets." });
    await s.engagements.setStatus({ engagementId: id, status: "on_hold", reasonCode: "customer_unavailable" });
    expect((await s.engagements.get({ engagementId: id })).targetChange.allowed).toBe(true);
    await s.engagements.setStatus({ engagementId: id, status: "cancelled", reasonCode: "customer_withdrew", reason: "Customer withdrew" });
    const cancelled = (await s.engagements.get({ engagementId: id })).targetChange;
    expect(cancelled).toEqual({ allowed: false, reason: "The engagement is cancelled; its service target can no longer change." });
    expect(await trpcError(s.targets.assign({ engagementId: id, serviceTargetId: "any-target" }))).toMatchObject({ code: "PRECONDITION_FAILED", message: cancelled.reason });
  });

  it("names the platform in the creation event of the timeline", async () => {
    const { id } = await newEngagement("vxvy");
    const timeline = await support().engagements.timeline({ engagementId: id });
    expect(timeline.at(-1)!.summary).toBe("Created the engagement for Org A on FreshBooks, owned by Support One");
  });
});

describe("the activity a customer reads", () => {
  /** The worker's decryptions as it records them, one per company it authorizes. */
  function decryptions(engagementId: string, names: readonly string[], purpose = "authorize its connection on the service") {
    return audit(names.map((company) => ({ actor: null, action: "migration_item.credentials_decrypted", targetId: `item-${company}`, engagementId, organizationId: p.orgA, after: { purpose, company, rehearsal: false } })));
  }
  const names = (n: number, prefix = "Company") => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);

  it("groups the machine's per-company events into one line each run, between the people's moves, for staff too; staff may read every event", async () => {
    const { id } = await newEngagement();
    await decryptions(id, names(24));
    await support().engagements.setStatus({ engagementId: id, status: "on_hold", reasonCode: "customer_unavailable" });
    await decryptions(id, names(3, "Later"));

    const customer = await callerAs(t.database, p.customerA).engagements.timeline({ engagementId: id });
    expect(customer.map((e) => [e.summary, e.count])).toEqual([
      ["Decrypted the credentials of 3 companies to authorize them", 3],
      ["Changed status from active to on hold: Customer unavailable", 1],
      ["Decrypted the credentials of 24 companies to authorize them", 24],
      [expect.stringMatching(/^Created the engagement/), 1],
    ]);
    const run = customer[2]!;
    expect(run.since!.getTime()).toBeLessThanOrEqual(run.at.getTime());
    expect(run.actor).toBe("System");

    const staff = await support().engagements.timeline({ engagementId: id });
    expect(staff.map((e) => [e.summary, e.count])).toEqual(customer.map((e) => [e.summary, e.count]));
    const every = await support().engagements.timeline({ engagementId: id, every: true });
    expect(every).toHaveLength(24 + 1 + 3 + 1);
    expect(every[0]).toMatchObject({ summary: "Decrypted the credentials of Later 3 to authorize its connection on the service", count: 1, since: null });
    // A customer's timeline stays a story even when asked for every event.
    expect(await callerAs(t.database, p.customerA).engagements.timeline({ engagementId: id, every: true })).toEqual(customer);
  });

  it("separates the people's events from the system's, for both sides", async () => {
    const { id } = await newEngagement();
    await decryptions(id, names(5));
    await support().engagements.setStatus({ engagementId: id, status: "on_hold", reasonCode: "customer_unavailable" });
    await decryptions(id, names(2, "Later"));
    const people = await support().engagements.timeline({ engagementId: id, who: "people" });
    expect(people.map((e) => e.summary)).toEqual(["Changed status from active to on hold: Customer unavailable", expect.stringMatching(/^Created the engagement/)]);
    // The system's, without the people's move between them: the two runs are one.
    const system = await callerAs(t.database, p.customerA).engagements.timeline({ engagementId: id, who: "system" });
    expect(system.map((e) => [e.summary, e.actor])).toEqual([["Decrypted the credentials of 7 companies to authorize them", "System"]]);
    expect(await support().engagements.timeline({ engagementId: id, who: "system", every: true })).toHaveLength(7);
    expect(await trpcError(support().engagements.timeline({ engagementId: id, who: "robots" as "system" }))).toMatchObject({ code: "BAD_REQUEST" });
  });

  it("counts a run longer than a page of events in full, and still shows what came before it", async () => {
    const { id } = await newEngagement();
    await decryptions(id, names(1_234));
    const customer = await callerAs(t.database, p.customerA).engagements.timeline({ engagementId: id });
    expect(customer.map((e) => e.summary)).toEqual(["Decrypted the credentials of 1,234 companies to authorize them", expect.stringMatching(/^Created the engagement/)]);
  });

  it("runs together only like events: one actor, one purpose", async () => {
    const { id } = await newEngagement();
    await decryptions(id, names(4));
    await audit(names(2, "Fresh").map((company) => ({ actor: p.support, action: "migration_item.credentials_decrypted", targetId: `item-${company}`, engagementId: id, organizationId: p.orgA, after: { purpose: "give the company the fresh tokens of fresh.csv for its retry", company, rehearsal: false } })));
    await audit(names(3, "Twin").map((company) => ({ actor: null, action: "migration_item.credentials_decrypted", targetId: `twin-${company}`, engagementId: id, organizationId: p.orgA, after: { purpose: "authorize its connection on the service", company, rehearsal: true } })));
    const customer = await callerAs(t.database, p.customerA).engagements.timeline({ engagementId: id });
    expect(customer.map((e) => [e.summary, e.actor])).toEqual([
      ["Decrypted the simulated credentials of 3 companies to authorize them (rehearsal)", "System"],
      ["Decrypted the credentials of 2 companies to give them the fresh tokens of fresh.csv for their retries", "Support One (support)"],
      ["Decrypted the credentials of 4 companies to authorize them", "System"],
      [expect.stringMatching(/^Created the engagement/), expect.any(String)],
    ]);
  });

  it("keeps one decryption as it is, and says another purpose for many", async () => {
    const { id } = await newEngagement();
    await decryptions(id, ["Solo Ltd"]);
    await support().engagements.setStatus({ engagementId: id, status: "on_hold", reasonCode: "customer_unavailable" });
    await decryptions(id, names(2), "give the company the fresh tokens of fresh.csv for its retry");
    const customer = await callerAs(t.database, p.customerA).engagements.timeline({ engagementId: id });
    expect(customer.map((e) => e.summary).slice(0, 3)).toEqual([
      "Decrypted the credentials of 2 companies to give them the fresh tokens of fresh.csv for their retries",
      "Changed status from active to on hold: Customer unavailable",
      "Decrypted the credentials of Solo Ltd to authorize its connection on the service",
    ]);
  });
});
