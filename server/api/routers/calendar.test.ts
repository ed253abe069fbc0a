/**
 * The window calendar through createCaller on a real database: a week and a month of windows,
 * the viewer's own and everyone's, overlap flags with their numbers when windows on one target
 * need more than its limits allow, the warning before proposing, and the secret .ics feed with its
 * reset. The week-and-month test is tagged both-databases: the calendar's read (windows meeting a
 * range, joined to their engagements and targets) runs on PostgreSQL too.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, users } from "@/db/schema";
import { createServiceTarget } from "@/server/targets/targets";
import { completeIntake, sampleCompanies } from "@/server/testing/engagement-flows";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
import { callerAs, testConfig, trpcError } from "@/server/testing/caller";
import { calendarFeedText } from "@/server/engagements/calendar/calendar-feed";

let t: TestDatabase;
let p: People;
let targetId: string;

const H = 3_600_000;
const DAY = 24 * H;
/** 09:00 UTC on the Monday at least a week ahead. */
const monday = (() => {
  const now = new Date();
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const untilMonday = (8 - new Date(today).getUTCDay()) % 7 || 7;
  return today + (untilMonday + 7) * DAY + 9 * H;
})();
const at = (hours: number) => new Date(monday + hours * H);
const dayOf = (d: Date) => d.toISOString().slice(0, 10);

const config = () => testConfig();
const support = () => callerAs(t.database, p.support, config());
const flow = () => ({ db: t.database, config: config(), support: p.support, customer: p.customerA });

/** An engagement of organisation A on the slow target, with four companies accepted (48 requests: 4 × (5 + 7 polls)). */
async function engagementOnTarget(platformKey: "qhyg" | "fbrh" = "qhyg") {
  const id = (await support().engagements.create({ organizationId: p.orgA, platformKey })).id;
  await support().targets.assign({ engagementId: id, serviceTargetId: targetId });
  await completeIntake(flow(), { engagementId: id, companies: sampleCompanies(platformKey, 4) });
  return id;
}

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  // One request a minute: an hour's window allows 60 requests, so one migration of 48 fits and two do not.
  targetId = (
    await createServiceTarget(t.database, TEST_KEY_RING, null, { name: "Acme production", baseUrl: "https://api.codat.io", apiKey: "k", kind: "service", organizationId: p.orgA, requestsPerMinute: 1 })
  ).id;
});
afterEach(() => t.close());

describe("the window calendar", () => {
  it("shows each window with its engagement, target and estimated requests, and flags two that overfill their target together", { tags: ["both-databases"] }, async () => {
    const a = await engagementOnTarget();
    const b = await engagementOnTarget("fbrh");
    await support().windows.propose({ engagementId: a, windows: [{ startsAt: at(0), endsAt: at(1) }] });
    await support().windows.propose({ engagementId: b, windows: [{ startsAt: at(0), endsAt: at(1) }, { startsAt: at(24), endsAt: at(25) }] });

    const week = await support().calendar.get({ view: "week", scope: "everyone", day: dayOf(at(0)) });
    expect(week.from).toEqual(new Date(monday - 9 * H));
    expect(week.to).toEqual(new Date(monday - 9 * H + 7 * DAY));
    expect(week.windows).toHaveLength(3);
    const [first] = week.windows.filter((w) => w.engagementId === a);
    expect(first).toMatchObject({
      status: "proposed",
      organizationName: "Org A",
      target: { key: targetId, name: "Acme production", limits: expect.stringContaining("1 requests per minute, set on the target") },
      estimateRequests: 48,
      estimateCompanies: 4,
    });
    expect(first!.overlap).toMatchObject({ limit: "rate", needed: 96, allowed: 60, from: at(0), to: at(1) });
    expect(first!.overlap!.with.map((x) => x.engagementId)).toEqual([b]);
    expect(first!.overlap!.text).toMatch(/^With FER-\d+ \(Org A\) on Acme production: 96 requests are needed in Mon \d+ [A-Z][a-z]{2}, 09:00–10:00 UTC; the per-address limit allows 60 in that time \(1 h\)\.$/);
    // b's second window, on Tuesday, meets nobody.
    expect(week.windows.find((w) => w.engagementId === b && w.startsAt.getTime() === at(24).getTime())!.overlap).toBeNull();
    expect(week.flagged).toBe(2);
  });

  it("shows the viewer's own windows or everyone's, a week or the month, and nothing outside them", async () => {
    const mine = await engagementOnTarget();
    const theirs = await engagementOnTarget("fbrh");
    await support().engagements.setOwner({ engagementId: theirs, ownerId: p.support2.id });
    await support().windows.propose({ engagementId: mine, windows: [{ startsAt: at(2), endsAt: at(3) }] });
    await support().windows.propose({ engagementId: theirs, windows: [{ startsAt: at(4), endsAt: at(5) }, { startsAt: at(24 * 14), endsAt: at(24 * 14 + 1) }] });

    const own = await support().calendar.get({ view: "week", scope: "mine", day: dayOf(at(0)) });
    expect(own.windows.map((w) => w.engagementId)).toEqual([mine]);
    const everyone = await support().calendar.get({ view: "week", scope: "everyone", day: dayOf(at(0)) });
    expect(everyone.windows.map((w) => w.engagementId)).toEqual([mine, theirs]);
    expect(everyone.windows[1]!.ownerName).toBe("Support Two");
    const nextWeek = await support().calendar.get({ view: "week", scope: "everyone", day: dayOf(at(24 * 7)) });
    expect(nextWeek.windows).toEqual([]);
    const month = await support().calendar.get({ view: "month", scope: "everyone", day: dayOf(at(0)) });
    expect(month.from.getUTCDay()).toBe(1);
    expect(month.to.getUTCDay()).toBe(1);
    expect(month.windows.length).toBe(month.windows.filter((w) => w.startsAt < month.to && w.endsAt > month.from).length);
    expect(month.windows.map((w) => w.engagementId)).toContain(mine);
  });

  it("is for staff only, and refuses a malformed day with a clear error", async () => {
    expect(await trpcError(callerAs(t.database, p.customerA).calendar.get({ view: "week", scope: "everyone", day: "2026-12-07" }))).toMatchObject({ code: "FORBIDDEN" });
    expect(await trpcError(support().calendar.get({ view: "week", scope: "mine", day: "next monday" }))).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("YYYY-MM-DD") });
  });
});

describe("proposing a window that would overfill the target", () => {
  it("warns with the numbers before it is sent, and not for a time that fits", async () => {
    const a = await engagementOnTarget();
    const b = await engagementOnTarget("fbrh");
    await support().windows.propose({ engagementId: a, windows: [{ startsAt: at(0), endsAt: at(1) }] });
    const check = await support().windows.checkOverlaps({
      engagementId: b,
      windows: [
        { startsAt: at(0), endsAt: at(1) },
        { startsAt: at(1), endsAt: at(2) },
      ],
    });
    expect(check.windows[0]).toMatchObject({ limit: "rate", needed: 96, allowed: 60, with: [{ engagementId: a }] });
    expect(check.windows[1]).toBeNull();
    // Checking is only a question: nothing was proposed.
    expect((await support().windows.plan({ engagementId: b })).windows).toEqual([]);
    expect(await trpcError(callerAs(t.database, p.customerA).windows.checkOverlaps({ engagementId: b, windows: [{ startsAt: at(0), endsAt: at(1) }] }))).toMatchObject({ code: "FORBIDDEN" });
  });
});

describe("the calendar feed", () => {
  it("gives each staff member a secret .ics URL of their windows, which a reset replaces", async () => {
    const a = await engagementOnTarget();
    const b = await engagementOnTarget("fbrh");
    await support().windows.propose({ engagementId: a, windows: [{ startsAt: at(0), endsAt: at(1) }] });
    await support().windows.propose({ engagementId: b, windows: [{ startsAt: at(0), endsAt: at(1) }] });
    await support().engagements.setOwner({ engagementId: b, ownerId: p.support2.id });

    expect(await support().calendar.feed()).toEqual({ url: null });
    const { url } = await support().calendar.resetFeed();
    expect(url).toMatch(/^http:\/\/.+\/api\/calendar\/[A-Za-z0-9_-]{43}\.ics$/);
    expect(await support().calendar.feed()).toEqual({ url });
    // The secret is kept hashed and encrypted, never in the clear.
    const token = url.split("/").pop()!.replace(/\.ics$/, "");
    const [row] = await t.db.select().from(users).where(eq(users.id, p.support.id));
    expect(JSON.stringify(row)).not.toContain(token);

    const text = (await calendarFeedText(t.database, { appUrl: config().appUrl }, token))!;
    expect(text).toContain("BEGIN:VCALENDAR");
    expect(text).toContain("X-WR-CALNAME:Ferry migration windows (Support One)");
    expect(text.match(/BEGIN:VEVENT/g)).toHaveLength(1); // only the engagement this person owns
    expect(text).toContain("STATUS:TENTATIVE");
    expect(text.replace(/\r\n /g, "")).toContain("⚠ Overlap");
    expect(text.replace(/\r\n /g, "")).toContain("requests 48 for 4 companies");

    const again = await support().calendar.resetFeed();
    expect(again.url).not.toBe(url);
    expect(await calendarFeedText(t.database, { appUrl: config().appUrl }, token)).toBeNull();
    expect(await calendarFeedText(t.database, { appUrl: config().appUrl }, again.url.split("/").pop()!.replace(/\.ics$/, ""))).toContain("BEGIN:VEVENT");
    expect(await calendarFeedText(t.database, { appUrl: config().appUrl }, "not-a-feed")).toBeNull();
    const audited = await t.db.select().from(auditEvents).where(eq(auditEvents.action, "user.calendar_feed_reset"));
    expect(audited).toHaveLength(2);

    // A deactivated account's feed opens nothing.
    await t.db.update(users).set({ active: false }).where(eq(users.id, p.support.id));
    expect(await calendarFeedText(t.database, { appUrl: config().appUrl }, again.url.split("/").pop()!.replace(/\.ics$/, ""))).toBeNull();
    expect(await trpcError(callerAs(t.database, p.customerA).calendar.resetFeed())).toMatchObject({ code: "FORBIDDEN" });
  });
});
