/**
 * Step 2 when the proposed windows do not suit: the customer declines them with a reason and times
 * that would suit; support reads it (and is mailed), the move passes to support, and a new
 * proposal answers it. Every bad input is refused on its field with nothing changed.
 */
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { mailOutbox, windowDeclines, windowProposals } from "@/db/schema";
import { startTestSandbox, type TestSandbox } from "@/server/testing/test-sandbox";
import { completeIntake } from "@/server/testing/engagement-flows";
import { createTestDatabase, seedPeople, type People, type TestDatabase } from "@/server/testing/test-db";
import { callerAs, testConfig, trpcError } from "../../testing/caller";

let t: TestDatabase;
let p: People;
let sandbox: TestSandbox;
let engagementId: string;
let windowIds: string[];

const day = 86_400_000;
const at = (offsetMs: number) => new Date(Math.floor((Date.now() + offsetMs) / 60_000) * 60_000);
const config = () => ({ ...testConfig(), sandbox: { url: sandbox.url, adminToken: sandbox.adminToken } });
const support = () => callerAs(t.database, p.support, config());
const customer = () => callerAs(t.database, p.customerA, config());

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  engagementId = (await support().engagements.create({ organizationId: p.orgA, platformKey: "qhyg" })).id;
  await completeIntake({ db: t.database, config: config(), support: p.support, customer: p.customerA }, { engagementId });
  ({ windowIds } = await support().windows.propose({
    engagementId,
    windows: [
      { startsAt: at(2 * day), endsAt: at(2 * day + 8 * 3_600_000) },
      { startsAt: at(3 * day), endsAt: at(3 * day + 8 * 3_600_000) },
    ],
  }));
});
afterEach(() => t.close());

const statuses = async () => (await t.db.select({ status: windowProposals.status }).from(windowProposals)).map((w) => w.status).sort();
const mailTo = async (to: string) => (await t.db.select().from(mailOutbox).where(eq(mailOutbox.to, to)).orderBy(mailOutbox.createdAt)).at(-1);

describe("declining the proposed windows", () => {
  it("declines every proposed window with the reason and suggested times; support has the move, reads it and is mailed", async () => {
    expect((await customer().windows.plan({ engagementId })).decline).toEqual({ allowed: true, reason: null });
    const suggested = [{ startsAt: at(10 * day), endsAt: at(10 * day + 6 * 3_600_000) }];
    await customer().windows.decline({ engagementId, reason: "Month-end close: our team is busy that week.", suggested });

    expect(await statuses()).toEqual(["declined", "declined"]);
    const plan = await support().windows.plan({ engagementId });
    expect(plan.declines).toEqual([
      expect.objectContaining({ reason: "Month-end close: our team is busy that week.", suggested, windows: 2, declinedBy: { id: p.customerA.id, name: "Customer A" }, answered: false }),
    ]);
    expect(plan.propose.allowed).toBe(true);
    expect((await customer().windows.plan({ engagementId })).decline).toMatchObject({ allowed: false, reason: "There is no proposed migration window to decline." });

    const eng = await support().engagements.get({ engagementId });
    expect(eng.waiting).toMatchObject({ party: "support", moves: { support: { action: "propose_window", text: expect.stringMatching(/^Propose new windows: the customer declined the proposed ones \(“Month-end close.*\) and suggested a time\.$/) } } });
    const mail = await mailTo("support@test");
    expect(mail).toMatchObject({ subject: expect.stringContaining("The proposed windows were declined") });
    expect(mail!.text).toContain("Why: Month-end close: our team is busy that week.");
    expect(mail!.text).toMatch(/Times that would suit them:\n- .* UTC/);
    const timeline = await support().engagements.timeline({ engagementId });
    expect(timeline[0]).toMatchObject({ action: "window.declined", summary: expect.stringMatching(/^Declined the 2 proposed windows: Month-end close: our team is busy that week and suggested .* UTC$/) });
  });

  it("a new proposal answers the decline and gives the customer the move again", async () => {
    await customer().windows.decline({ engagementId, reason: "Too early", suggested: [] });
    await support().windows.propose({ engagementId, windows: [{ startsAt: at(12 * day), endsAt: at(12 * day + 4 * 3_600_000) }] });
    const plan = await customer().windows.plan({ engagementId });
    expect(plan.declines).toMatchObject([{ reason: "Too early", suggested: [], answered: true }]);
    expect(plan.decline.allowed).toBe(true);
    expect((await customer().engagements.get({ engagementId })).waiting).toMatchObject({ party: "customer", moves: { customer: { action: "accept_window" } } });
  });

  it.each([
    ["no reason", { reason: "   ", suggested: [] }, "reason"],
    ["a suggested time in the past", { reason: "Busy", suggested: [{ startsAt: at(-day), endsAt: at(day) }] }, "suggested.0.startsAt"],
    ["a suggested time that ends before it starts", { reason: "Busy", suggested: [{ startsAt: at(5 * day), endsAt: at(5 * day - 3_600_000) }] }, "suggested.0.endsAt"],
    ["a suggested time longer than a window may be", { reason: "Busy", suggested: [{ startsAt: at(5 * day), endsAt: at(25 * day) }] }, "suggested.0.endsAt"],
  ])("refuses %s on its field, and nothing changes", async (_, input, field) => {
    const error = await trpcError(customer().windows.decline({ engagementId, ...input }));
    expect(error.code).toBe("BAD_REQUEST");
    const data = error as unknown as { cause?: { fields?: Record<string, string> } };
    const fields = data.cause && "fields" in data.cause ? data.cause.fields : undefined;
    const zodFields = error.cause && "issues" in error.cause ? (error.cause as unknown as { issues: { path: (string | number)[] }[] }).issues.map((i) => i.path.join(".")) : [];
    expect([...Object.keys(fields ?? {}), ...zodFields]).toContain(field);
    expect(await statuses()).toEqual(["proposed", "proposed"]);
    expect(await t.db.select().from(windowDeclines)).toEqual([]);
  });

  it("only the customer declines, only while windows are proposed and none is agreed", async () => {
    expect((await trpcError(support().windows.decline({ engagementId, reason: "No", suggested: [] }))).code).toBe("FORBIDDEN");
    await customer().windows.accept({ engagementId, windowId: windowIds[0]! });
    const refused = await trpcError(customer().windows.decline({ engagementId, reason: "Changed our mind", suggested: [] }));
    expect(refused).toMatchObject({ code: "PRECONDITION_FAILED", message: "A window is already agreed; ask support to reschedule it." });
    expect(await statuses()).toEqual(["accepted", "superseded"]);
  });

  it("another organisation's customer gets what an unknown engagement gets", async () => {
    const other = callerAs(t.database, p.customerB, config());
    const error = await trpcError(other.windows.decline({ engagementId, reason: "Not ours", suggested: [] }));
    expect(error).toMatchObject({ code: "NOT_FOUND", message: "No engagement with that id." });
    expect(await statuses()).toEqual(["proposed", "proposed"]);
  });
});
