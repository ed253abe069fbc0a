/**
 * A customer's request for an engagement through the procedures: asked in the portal, seen by
 * support, accepted into a real engagement (or declined with a reason), audited and mailed. Every
 * bad input is refused on its field with nothing stored; a second ask at once stores one.
 *
 * Runs on both databases (@both-databases): two asks at once (serializable).
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, engagementRequests, engagements, mailOutbox } from "@/db/schema";
import { createTestDatabase, seedPeople, type People, type TestDatabase } from "@/server/testing/test-db";
import { callerAs, trpcError } from "../../testing/caller";

let t: TestDatabase;
let p: People;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

const support = () => callerAs(t.database, p.support);
const customer = () => callerAs(t.database, p.customerA);
const day = 86_400_000;
/** Midnight UTC `days` from today. */
const inDays = (days: number) => new Date(Math.floor(Date.now() / day) * day + days * day);
const ask = (over: Record<string, unknown> = {}) =>
  customer().requests.create({ platformKey: "qhyg", companies: 40, preferredFrom: inDays(14), preferredTo: inDays(21), note: "Before our year end, please.", ...over } as never);
const mailTo = async (to: string) => (await t.db.select().from(mailOutbox).where(eq(mailOutbox.to, to)).orderBy(mailOutbox.createdAt)).at(-1);
const fieldsOf = (error: { cause?: unknown }) => {
  const cause = error.cause as { fields?: Record<string, string>; issues?: { path: (string | number)[]; message: string }[] } | undefined;
  return { ...(cause?.fields ?? {}), ...Object.fromEntries((cause?.issues ?? []).map((i) => [i.path.join("."), i.message])) };
};

describe("a customer asks for an engagement", () => {
  it("stores the request, audits it and mails support, who see it open with Accept and Decline offered", async () => {
    const { requestId } = await ask();
    const mine = await customer().requests.list();
    expect(mine).toMatchObject({ open: 1, create: { allowed: true }, requests: [{ id: requestId, status: "open", platform: { name: "QuickBooks Online" }, companies: 40, note: "Before our year end, please." }] });
    expect(mine.requests[0]!.accept).toEqual({ allowed: false, reason: "Ferry support answers requests for engagements." });

    const seen = await support().requests.list();
    expect(seen.requests[0]).toMatchObject({ id: requestId, organization: { name: "Org A" }, requestedBy: { name: "Customer A" }, preferredFrom: inDays(14), preferredTo: inDays(21), accept: { allowed: true }, decline: { allowed: true } });
    expect(seen.create).toMatchObject({ allowed: false });

    const mail = await mailTo("support@test");
    expect(mail).toMatchObject({ subject: "New engagement request: Org A, QuickBooks Online" });
    expect(mail!.text).toContain("Companies: about 40");
    expect(mail!.text).toContain("Before our year end, please.");
    const [audit] = await t.db.select().from(auditEvents).where(eq(auditEvents.action, "engagement_request.created"));
    expect(audit).toMatchObject({ targetId: requestId, organizationId: p.orgA, actorId: p.customerA.id });
  });

  it.each([
    ["a platform Ferry does not migrate", { platformKey: "gbol" }, "platformKey", /no standard managed migration/],
    ["no company count", { companies: Number.NaN }, "companies", /roughly how many companies/],
    ["a fraction of a company", { companies: 2.5 }, "companies", /whole number/],
    ["no companies", { companies: 0 }, "companies", /At least one company/],
    ["more companies than a token file holds", { companies: 100_001 }, "companies", /At most 100,000/],
    ["a first day in the past", { preferredFrom: inDays(-2) }, "preferredFrom", /today or later/],
    ["a last day before the first", { preferredTo: inDays(10) }, "preferredTo", /on or after the first day/],
    ["a first day years ahead", { preferredFrom: inDays(800), preferredTo: null }, "preferredFrom", /within the next two years/],
    ["a note too long", { note: "x".repeat(2001) }, "note", /under 2,000 characters/],
  ])("refuses %s on its field, and stores nothing", async (_, over, field, message) => {
    const error = await trpcError(ask(over));
    expect(error.code).toBe("BAD_REQUEST");
    expect(fieldsOf(error)[field]).toMatch(message);
    expect(await t.db.select().from(engagementRequests)).toEqual([]);
  });

  it("stores one request when the customer asks twice at once, and refuses a second ask for the same platform", async () => {
    const tries = await Promise.allSettled([ask(), ask()]);
    expect(tries.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await t.db.select().from(engagementRequests)).toHaveLength(1);
    const again = await trpcError(ask());
    expect(again).toMatchObject({ code: "CONFLICT", message: expect.stringContaining("You already asked for a QuickBooks Online engagement") });
  });

  it("refuses a request for a platform the organisation already has an open engagement on, naming it", async () => {
    const { reference } = await support().engagements.create({ organizationId: p.orgA, platformKey: "qhyg" });
    const error = await trpcError(ask());
    expect(error).toMatchObject({ code: "CONFLICT", message: expect.stringContaining(reference) });
  });

  it("only customers ask; staff are told where to open one", async () => {
    const error = await trpcError(support().requests.create({ platformKey: "qhyg", companies: 3, preferredFrom: inDays(3), preferredTo: null }));
    expect(error.code).toBe("FORBIDDEN");
  });

  it("a customer sees only their own organisation's requests", async () => {
    await ask();
    expect((await callerAs(t.database, p.customerB).requests.list()).requests).toEqual([]);
  });
});

describe("support answers a request", () => {
  it("accepts it into a real engagement owned by whom support names: audited, the customer told and given the first move", async () => {
    const { requestId } = await ask();
    const { engagementId, reference } = await support().requests.accept({ requestId, ownerId: p.support2.id });

    const eng = await support().engagements.get({ engagementId });
    expect(eng).toMatchObject({ reference, organization: { id: p.orgA }, platform: { key: "qhyg" }, owner: { id: p.support2.id }, waiting: { party: "customer" } });
    const [request] = await customer().requests.list().then((l) => l.requests);
    expect(request).toMatchObject({ status: "accepted", engagement: { id: engagementId, reference }, decidedBy: { name: "Support One" } });
    const timeline = await support().engagements.timeline({ engagementId });
    expect(timeline.map((e) => e.action)).toEqual(expect.arrayContaining(["engagement_request.accepted", "engagement.created"]));
    expect(timeline.find((e) => e.action === "engagement_request.accepted")?.summary).toBe(`Accepted the request for an engagement as ${reference}, owned by Support Two`);
    const mail = await mailTo("a@org-a.test");
    expect(mail).toMatchObject({ subject: `[${reference}] Your engagement request was accepted` });
    expect(mail!.text).toContain(`It is ${reference}`);

    // Answered once: a second accept is refused, naming the engagement, and opens nothing more.
    const again = await trpcError(support().requests.accept({ requestId }));
    expect(again).toMatchObject({ code: "PRECONDITION_FAILED", message: `This request was already accepted as ${reference}.` });
    expect(await t.db.select().from(engagements)).toHaveLength(1);
  });

  it("declines it with a reason the customer is mailed; a reason is required", async () => {
    const { requestId } = await ask();
    const empty = await trpcError(support().requests.decline({ requestId, reason: "  " }));
    expect(empty.code).toBe("BAD_REQUEST");
    expect(fieldsOf(empty).reason).toMatch(/Say why/);
    expect((await customer().requests.list()).requests[0]).toMatchObject({ status: "open" });

    await support().requests.decline({ requestId, reason: "Your tokens come from Xero, which has no managed migration." });
    expect((await customer().requests.list()).requests[0]).toMatchObject({ status: "declined", declineReason: "Your tokens come from Xero, which has no managed migration." });
    const mail = await mailTo("a@org-a.test");
    expect(mail).toMatchObject({ subject: "Your QuickBooks Online engagement request was declined" });
    expect(mail!.text).toContain("Why: Your tokens come from Xero");
    expect(await t.db.select().from(engagements)).toEqual([]);
    expect(await trpcError(support().requests.accept({ requestId }))).toMatchObject({ code: "PRECONDITION_FAILED", message: "This request was already declined." });
    // Declined, the customer may ask again.
    await ask();
  });

  it("accepting refuses, and leaves the request open, when the organisation has opened the platform's engagement meanwhile", async () => {
    const { requestId } = await ask();
    const { reference } = await support().engagements.create({ organizationId: p.orgA, platformKey: "qhyg" });
    const error = await trpcError(support().requests.accept({ requestId }));
    expect(error).toMatchObject({ code: "CONFLICT", message: expect.stringContaining(reference) });
    expect((await support().requests.list()).requests[0]).toMatchObject({ status: "open" });
  });

  it("customers cannot answer requests, and an unknown request is not found", async () => {
    const { requestId } = await ask();
    expect((await trpcError(customer().requests.accept({ requestId }))).code).toBe("FORBIDDEN");
    expect((await trpcError(support().requests.decline({ requestId: "no-such-request", reason: "x" }))).code).toBe("NOT_FOUND");
  });
});
