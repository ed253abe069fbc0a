/**
 * Step 2 through the procedures: the estimate with its formula and inputs against each kind of
 * target (the sandbox's configured limit read from a real sandbox), proposals with the estimate
 * beside each, acceptance, withdrawal and rescheduling with the cascade.
 *
 * Its tests tagged both-databases run on PostgreSQL too: windows accepted at once (the engagement's row locked while checked).
 */
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { mailOutbox, windowProposals } from "@/db/schema";
import { startTestSandbox, type TestSandbox } from "@/server/testing/test-sandbox";
import { createServiceTarget, ensureBuiltInSandbox } from "@/server/targets/targets";
import { completeIntake, passSingleCompanyTest, sampleCompanies } from "@/server/testing/engagement-flows";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
import { callerAs, testConfig, trpcError } from "../../testing/caller";

let t: TestDatabase;
let p: People;
let sandbox: TestSandbox;
let engagementId: string;

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  engagementId = (await callerAs(t.database, p.support).engagements.create({ organizationId: p.orgA, platformKey: "qhyg" })).id;
});
afterEach(() => t.close());

const config = () => ({ ...testConfig(), sandbox: { url: sandbox.url, adminToken: sandbox.adminToken } });
const support = () => callerAs(t.database, p.support, config());
const customer = () => callerAs(t.database, p.customerA, config());
const flow = () => ({ db: t.database, config: config(), support: p.support, customer: p.customerA });
const day = 86_400_000;
const at = (offsetMs: number) => new Date(Math.floor((Date.now() + offsetMs) / 60_000) * 60_000);

describe("the estimate", () => {
  it("waits for companies, and windows wait for step 1", async () => {
    expect((await support().windows.plan({ engagementId })).estimate).toBeNull();
    expect((await support().windows.plan({ engagementId })).propose).toEqual({ allowed: false, reason: expect.stringContaining("step 1 (Details gathered) is done") });
    const early = await trpcError(support().windows.propose({ engagementId, windows: [{ startsAt: at(day), endsAt: at(2 * day) }] }));
    expect(early).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("step 1") });
  });

  it("against the real service: the formula, its inputs, the rate limit and the daily quota", async () => {
    const target = await createServiceTarget(t.database, TEST_KEY_RING, null, { name: "Production", baseUrl: "https://api.codat.io", apiKey: "prod-key", kind: "service", organizationId: p.orgA });
    await support().targets.assign({ engagementId, serviceTargetId: target.id });
    const companies = sampleCompanies("qhyg", 4).map((c, i) => ({ ...c, records: i < 2 ? 1000 : null }));
    await completeIntake(flow(), { engagementId, companies });
    const { estimate } = await support().windows.plan({ engagementId });
    expect(estimate).toMatchObject({ companies: 4, formula: expect.stringContaining("total = max(") });
    const inputs = Object.fromEntries(estimate!.inputs.map((i) => [i.label, i.value]));
    expect(inputs).toMatchObject({
      Companies: "4",
      Records: "2,000 from 2 hints + 2 × 50 (stated default per company) = 2,100; 525 per company",
      "Rate limit": "1,000 requests per minute per address (16.67 per second)",
      "Daily quota": expect.stringContaining("1,000 × (1 + connected companies)"),
    });
    expect(inputs["Service calls per company"]).toMatch(/^5 \(create company, create connection, PUT authorization, POST data\/all, one data read\) \+ \d+ polls/);
    expect(inputs["Sync time per company"]).toContain("assumed");
    expect(estimate!.limitsSource).toContain("published limits");
  });

  it("against the built-in sandbox: its configured limit, read from its controls", async () => {
    const target = (await ensureBuiltInSandbox(t.database, TEST_KEY_RING, { url: sandbox.url, newApiKey: async () => "k" }))!;
    await support().targets.assign({ engagementId, serviceTargetId: target.id });
    await completeIntake(flow(), { engagementId, companies: sampleCompanies("qhyg", 30) });
    await sandbox.control.setFaults({ rateLimitPerSecond: 2 });
    try {
      const { estimate } = await support().windows.plan({ engagementId });
      expect(estimate!.inputs.find((i) => i.label === "Rate limit")!.value).toBe("2 requests per second (the sandbox's configured limit)");
      expect(estimate!.limitsSource).toBe("the sandbox's configured limit (2 requests per second)");
      expect(estimate!.bottleneck).toBe("rate_limit");
    } finally {
      await sandbox.control.reset();
    }
  });
});

describe("the estimate follows the one rule for a target's limits", () => {
  it("a target an admin labelled a sandbox is held to the service's published limits, even at the sandbox's own address", async () => {
    await sandbox.control.setFaults({ rateLimitPerSecond: 5_000 });
    try {
      const target = await createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name: "Called a sandbox", baseUrl: sandbox.url, apiKey: "k-123456789", kind: "sandbox", organizationId: p.orgA });
      await support().targets.assign({ engagementId, serviceTargetId: target.id });
      await completeIntake(flow(), { engagementId, companies: sampleCompanies("qhyg", 30) });
      const { estimate } = await support().windows.plan({ engagementId });
      const inputs = Object.fromEntries(estimate!.inputs.map((i) => [i.label, i.value]));
      expect(inputs["Rate limit"]).toBe("1,000 requests per minute per address (16.67 per second)");
      expect(inputs["Daily quota"]).toContain("1,000 × (1 + connected companies)");
      expect(estimate!.limitsSource).toBe("the service's published limits (1,000 requests per minute per address; daily quota 1,000 × (1 + connected companies))");
    } finally {
      await sandbox.control.reset();
    }
  });

  it("known limits an admin set on the target replace the published ones", async () => {
    const target = await createServiceTarget(t.database, TEST_KEY_RING, p.admin, { name: "Production", baseUrl: "https://api.codat.io", apiKey: "prod-key-0000", kind: "service", organizationId: p.orgA, requestsPerMinute: 120, dailyQuota: 5_000 });
    await support().targets.assign({ engagementId, serviceTargetId: target.id });
    await completeIntake(flow(), { engagementId, companies: sampleCompanies("qhyg", 4) });
    const { estimate } = await support().windows.plan({ engagementId });
    const inputs = Object.fromEntries(estimate!.inputs.map((i) => [i.label, i.value]));
    expect(inputs["Rate limit"]).toBe("120 requests per minute per address (2 per second)");
    expect(inputs["Daily quota"]).toMatch(/^5,000 requests a day, reset at 00:00 UTC; 1 day of quota$/);
    expect(estimate!.limitsSource).toBe("the target's known limits (120 requests per minute, set on the target; daily quota 5,000 requests, set on the target)");
  });
});

describe("proposing and accepting", () => {
  it("proposes windows with the estimate beside each, warning when one is shorter; the customer accepts one, which completes step 2", async () => {
    const target = await createServiceTarget(t.database, TEST_KEY_RING, null, { name: "Production", baseUrl: "https://api.codat.io", apiKey: "prod-key", kind: "service", organizationId: p.orgA });
    await support().targets.assign({ engagementId, serviceTargetId: target.id });
    // About 100,000 records a company: the sync takes about 17 minutes, more than a 15-minute window.
    await completeIntake(flow(), { engagementId, companies: sampleCompanies("qhyg", 3).map((c) => ({ ...c, records: 100_000 })) });
    const short = { startsAt: at(2 * day), endsAt: at(2 * day + 15 * 60_000) };
    const long = { startsAt: at(3 * day), endsAt: at(3 * day + 8 * 3_600_000) };
    const { windowIds } = await support().windows.propose({ engagementId, windows: [short, long], note: "Either night works for us." });
    const plan = await customer().windows.plan({ engagementId });
    expect(plan.windows.map((w) => [w.status, w.shorterThanEstimate])).toEqual([
      ["proposed", true],
      ["proposed", false],
    ]);
    expect(plan.windows[0]).toMatchObject({ estimateSeconds: Math.ceil(plan.estimate!.totalSeconds), note: "Either night works for us.", proposedBy: { name: "Support One" } });
    expect(plan.accept).toEqual({ allowed: true, reason: null });
    const eng = await support().engagements.get({ engagementId });
    expect(eng.steps[1]!.state).toBe("in_progress");
    expect(eng.waiting.party).toBe("customer");
    const proposedMail = (await t.db.select().from(mailOutbox).where(eq(mailOutbox.to, "a@org-a.test")).orderBy(mailOutbox.createdAt)).at(-1)!;
    expect(proposedMail.subject).toMatch(/Migration windows proposed$/);
    expect(proposedMail.text).toContain("Either night works for us.");

    await customer().windows.accept({ engagementId, windowId: windowIds[1]! });
    const after = await support().engagements.get({ engagementId });
    expect(after.steps[1]).toMatchObject({ state: "done", completedBy: { name: "Customer A" }, evidence: { flow: { kind: "window_accepted", proposalId: windowIds[1], startsAt: long.startsAt, endsAt: long.endsAt } } });
    expect(after.windowStartsAt).toEqual(long.startsAt);
    const statuses = await t.db.select({ id: windowProposals.id, status: windowProposals.status }).from(windowProposals);
    expect(Object.fromEntries(statuses.map((s) => [s.id, s.status]))).toEqual({ [windowIds[0]!]: "superseded", [windowIds[1]!]: "accepted" });
    expect((await t.db.select().from(mailOutbox).where(eq(mailOutbox.to, "support@test")).orderBy(mailOutbox.createdAt)).at(-1)).toMatchObject({ subject: expect.stringContaining("Migration window accepted") });
    const timeline = await support().engagements.timeline({ engagementId });
    expect(timeline.map((e) => e.summary)).toEqual(expect.arrayContaining([expect.stringMatching(/^Accepted the migration window .* UTC$/), expect.stringMatching(/^Proposed the migration window .*, longer than the window\)$/)]));
    expect((await trpcError(customer().windows.accept({ engagementId, windowId: windowIds[0]! }))).message).toBe("A window is already agreed.");
  });

  it("agrees one window when the customer accepts two proposed ones at once (the engagement's row is locked while checked)", { tags: ["both-databases"] }, async () => {
    await completeIntake(flow(), { engagementId });
    const { windowIds } = await support().windows.propose({ engagementId, windows: [{ startsAt: at(day), endsAt: at(2 * day) }, { startsAt: at(3 * day), endsAt: at(4 * day) }] });
    await Promise.all(windowIds.map(() => t.db.select().from(windowProposals)));
    const tries = await Promise.allSettled(windowIds.map((windowId) => customer().windows.accept({ engagementId, windowId })));
    expect(tries.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(tries.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason as { message: string })).toMatchObject([{ message: "A window is already agreed." }]);
    const statuses = (await t.db.select({ status: windowProposals.status }).from(windowProposals)).map((w) => w.status).sort();
    expect(statuses).toEqual(["accepted", "superseded"]);
    expect((await support().engagements.timeline({ engagementId })).filter((e) => e.action === "window.accepted")).toHaveLength(1);
  });

  it("checks each window's times, naming the window and field", async () => {
    await completeIntake(flow(), { engagementId });
    const past = await trpcError(support().windows.propose({ engagementId, windows: [{ startsAt: at(-day), endsAt: at(day) }] }));
    expect(past).toMatchObject({ code: "BAD_REQUEST", message: "Window 1: The window must start in the future." });
    expect(past.cause).toMatchObject({ fields: { "windows.0.startsAt": "The window must start in the future." } });
    const backwards = await trpcError(support().windows.propose({ engagementId, windows: [{ startsAt: at(day), endsAt: at(2 * day) }, { startsAt: at(2 * day), endsAt: at(day) }] }));
    expect(backwards.cause).toMatchObject({ fields: { "windows.1.endsAt": expect.stringContaining("at least 15 minutes") } });
    expect(await t.db.select().from(windowProposals)).toHaveLength(0);
  });

  it("withdraws a proposed window, which can then not be accepted; with none left it is support's move again", async () => {
    await completeIntake(flow(), { engagementId });
    const { windowIds } = await support().windows.propose({ engagementId, windows: [{ startsAt: at(day), endsAt: at(2 * day) }] });
    await support().windows.withdraw({ engagementId, windowId: windowIds[0]! });
    const refused = await trpcError(customer().windows.accept({ engagementId, windowId: windowIds[0]! }));
    expect(refused.message).toBe("There is no proposed migration window to accept yet.");
    expect((await support().engagements.get({ engagementId })).waiting.party).toBe("support");
    expect((await trpcError(support().windows.withdraw({ engagementId, windowId: windowIds[0]! }))).message).toContain("withdrawn");
  });
  it("withdrawing is support's, and only while the engagement is active: the plan says so and a refusal changes nothing", async () => {
    await completeIntake(flow(), { engagementId });
    const { windowIds } = await support().windows.propose({ engagementId, windows: [{ startsAt: at(day), endsAt: at(2 * day) }] });
    expect((await support().windows.plan({ engagementId })).withdraw).toEqual({ allowed: true, reason: null });
    expect((await customer().windows.plan({ engagementId })).withdraw).toEqual({ allowed: false, reason: "Support withdraws the windows it proposed." });
    expect(await trpcError(customer().windows.withdraw({ engagementId, windowId: windowIds[0]! }))).toMatchObject({ code: "FORBIDDEN", message: "This is for support staff only." });

    await support().engagements.setStatus({ engagementId, status: "on_hold", reasonCode: "customer_unavailable" });
    const onHold = "The engagement is on hold; the window can change only while it is active.";
    expect((await support().windows.plan({ engagementId })).withdraw).toEqual({ allowed: false, reason: onHold });
    expect(await trpcError(support().windows.withdraw({ engagementId, windowId: windowIds[0]! }))).toMatchObject({ code: "PRECONDITION_FAILED", message: onHold });
    expect(await t.db.select({ status: windowProposals.status }).from(windowProposals)).toEqual([{ status: "proposed" }]);
  });
});

describe("rescheduling", () => {
  it("reopens step 2 with the reason, the cascade applies, the agreed window is superseded and the customer told", async () => {
    await completeIntake(flow(), { engagementId });
    const { windowIds } = await support().windows.propose({ engagementId, windows: [{ startsAt: at(day), endsAt: at(2 * day) }] });
    await customer().windows.accept({ engagementId, windowId: windowIds[0]! });
    await customer().confirmations.callbackUrl({ engagementId });
    await customer().confirmations.syncingDisabled({ engagementId });
    await passSingleCompanyTest(t.database, p.support, engagementId);

    expect((await customer().windows.plan({ engagementId })).reschedule.allowed).toBe(false);
    const noReason = await trpcError(support().windows.reschedule({ engagementId, reason: " " }));
    expect(noReason.code).toBe("BAD_REQUEST");
    const { changed } = await support().windows.reschedule({ engagementId, reason: "The customer's finance team closes the books that weekend." });
    expect(changed).toEqual([2, 5]);
    const eng = await support().engagements.get({ engagementId });
    expect(eng.steps.map((s) => s.state)).toEqual(["done", "pending", "done", "done", "pending", "pending"]);
    expect(eng.steps[1]!.reopenedReason).toBe("Rescheduled: The customer's finance team closes the books that weekend.");
    expect(eng.windowStartsAt).toBeNull();
    expect(eng.waiting).toMatchObject({ party: "support", next: "Propose a migration window." });
    expect((await t.db.select().from(windowProposals).limit(1))[0]!.status).toBe("superseded");
    const mail = (await t.db.select().from(mailOutbox).where(eq(mailOutbox.to, "a@org-a.test")).orderBy(mailOutbox.createdAt)).at(-1)!;
    expect(mail.subject).toMatch(/being rescheduled$/);
    expect(mail.text).toContain("closes the books");
    const timeline = await support().engagements.timeline({ engagementId });
    expect(timeline.map((e) => e.summary)).toEqual(expect.arrayContaining([expect.stringMatching(/^Rescheduled the migration window .*: The customer's finance team closes the books that weekend$/)]));
    // A new window can be proposed and accepted.
    const again = await support().windows.propose({ engagementId, windows: [{ startsAt: at(5 * day), endsAt: at(6 * day) }] });
    await customer().windows.accept({ engagementId, windowId: again.windowIds[0]! });
    expect((await support().engagements.get({ engagementId })).steps[1]!.state).toBe("done");
  });
});
