/**
 * Reminders and digests on a real database: each due reminder and each day's digest is queued in
 * the outbox once, whatever the number of ticks and however late the worker comes; a move that
 * changed hands gets no reminder of the old one; each person's mail preference is kept. Clocks are
 * the test's: `now` is passed, nothing waits.
 */
import { and, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engagements, mailOutbox, users } from "@/db/schema";
import { storeMoveDeadlines } from "@/server/engagements/engagement-repository";
import { createMigrationWorker } from "@/server/migration/migration-worker";
import { callerAs, testConfig } from "@/server/testing/caller";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
import { REMINDERS } from "./reminder-work";
import { sendRemindersAndDigests } from "./send-reminders";

let t: TestDatabase;
let p: People;
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

const H = 3_600_000;
const D = 24 * H;
const notify = () => ({ appUrl: "http://ferry.test", mail: testConfig().mail });
const support = () => callerAs(t.database, p.support);
const tick = (now: Date) => sendRemindersAndDigests(t.database, notify(), now);
const mailTo = async (to: string) => t.db.select({ subject: mailOutbox.subject, text: mailOutbox.text }).from(mailOutbox).where(eq(mailOutbox.to, to));
const subjectsTo = async (to: string) => (await mailTo(to)).map((m) => m.subject);

/** A new engagement whose customer's move (step 1, five days) began `since`. */
async function customersMove(since: Date) {
  const { id } = await support().engagements.create({ organizationId: p.orgA, platformKey: "qhyg" });
  await t.db.update(engagements).set({ waitingSince: since, updatedAt: since }).where(eq(engagements.id, id));
  await t.database.transaction((tx) => storeMoveDeadlines(tx, id), { isolation: "read committed" });
  return id;
}

describe("reminders", () => {
  it("go to whoever's move it is a day before it is due, once, then daily while late, once a day", async () => {
    const since = new Date("2026-11-02T09:00:00Z");
    await customersMove(since);
    const due = since.getTime() + 5 * D;
    // Staff get no digest here: the clock is before 07:00 UTC.
    const at = (ms: number) => new Date(due + ms);
    const before = await subjectsTo("a@org-a.test");
    expect((await tick(new Date(due - D - H))).reminders).toBe(0);
    expect((await tick(new Date(due - D + H))).reminders).toBe(1);
    expect((await tick(new Date(due - D + 2 * H))).reminders).toBe(0);
    expect((await subjectsTo("a@org-a.test")).slice(before.length)).toEqual([expect.stringMatching(/Due tomorrow: your move/)]);
    expect((await tick(at(H))).reminders).toBe(1);
    expect((await tick(at(2 * H))).reminders).toBe(0);
    expect((await tick(at(D + H))).reminders).toBe(1);
    const sent = (await mailTo("a@org-a.test")).slice(before.length);
    expect(sent.map((m) => m.subject)).toEqual([expect.stringMatching(/Due tomorrow/), expect.stringMatching(/Late: your move/), expect.stringMatching(/Late: your move/)]);
    expect(sent[1]!.text).toContain("http://ferry.test/portal/engagements/");
    // The owner (support) is not reminded of the customer's move.
    expect((await subjectsTo("support@test")).filter((s) => /your move/.test(s))).toEqual([]);
  });

  it("after days of downtime, only the latest one that fell due; and none once the move changed hands", async () => {
    const since = new Date("2026-11-02T05:00:00Z");
    const id = await customersMove(since);
    const due = since.getTime() + 5 * D;
    expect((await tick(new Date(due + 3 * D + H))).reminders).toBe(1);
    expect((await tick(new Date(due + 3 * D + 2 * H))).reminders).toBe(0);
    // The move passes to support: a new move, and no more reminders of the customer's.
    await t.db.update(engagements).set({ waitingOn: "support", waitingSince: new Date(due + 3 * D + 3 * H) }).where(eq(engagements.id, id));
    await t.database.transaction((tx) => storeMoveDeadlines(tx, id), { isolation: "read committed" });
    const late = (await subjectsTo("a@org-a.test")).length;
    await tick(new Date(due + 4 * D + 4 * H));
    expect((await subjectsTo("a@org-a.test")).length).toBe(late);
  });

  it("two workers ticking at once send each reminder once", async () => {
    const since = new Date("2026-11-02T05:00:00Z");
    await customersMove(since);
    const now = new Date(since.getTime() + 5 * D + H);
    const [a, b] = await Promise.all([tick(now), tick(now)]);
    expect(a.reminders + b.reminders).toBe(1);
    expect((await subjectsTo("a@org-a.test")).filter((s) => /Late/.test(s))).toHaveLength(1);
  });

  it("keep each person's choice: none for someone who wants only mail that needs them to act", async () => {
    await callerAs(t.database, p.customerA).me.setMailPreference({ preference: "off" });
    expect(await callerAs(t.database, p.customerA).me.mailPreference()).toEqual({ preference: "off" });
    const since = new Date("2026-11-02T05:00:00Z");
    await customersMove(since);
    const before = (await subjectsTo("a@org-a.test")).length;
    expect((await tick(new Date(since.getTime() + 5 * D + H))).reminders).toBe(1);
    expect((await subjectsTo("a@org-a.test")).length).toBe(before);
  });
});

describe("the daily digest", () => {
  it("goes to each staff member with something in it, once a day from 07:00 UTC, unless they switched mail off", async () => {
    const since = new Date("2026-11-02T05:00:00Z");
    const id = await customersMove(since);
    const day = new Date(since.getTime() + 6 * D); // the customer's move is a day late
    const early = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 6));
    const eight = new Date(early.getTime() + 2 * H);
    expect((await tick(early)).digests).toBe(0);
    expect((await tick(eight)).digests).toBe(1);
    expect((await tick(new Date(eight.getTime() + H))).digests).toBe(0);
    const [digest] = (await mailTo("support@test")).filter((m) => m.subject.startsWith("Your day in Ferry"));
    expect(digest!.subject).toBe("Your day in Ferry: 1 late");
    expect(digest!.text).toContain(`/engagements/${id}`);
    expect(digest!.text).toContain("the customer's move");
    // Support Two owns nothing: no digest. The next day, with support's mail off: none either.
    expect((await mailTo("support2@test")).filter((m) => m.subject.startsWith("Your day"))).toEqual([]);
    await t.db.update(users).set({ mailPreference: "off" }).where(eq(users.id, p.support.id));
    expect((await tick(new Date(eight.getTime() + D))).digests).toBe(0);
  });

  it("is run by the worker's periodic reminder work", async () => {
    const since = new Date("2026-11-02T05:00:00Z");
    await customersMove(since);
    const now = new Date(since.getTime() + 5 * D + 3 * H);
    const worker = createMigrationWorker({ database: t.database, ring: TEST_KEY_RING, sandbox: null, log: () => {}, notify: notify(), watch: false, reminders: { notify: notify(), now: () => now } });
    try {
      expect(await worker.tick(REMINDERS)).toBeGreaterThanOrEqual(1);
      expect(await worker.tick(REMINDERS)).toBe(0);
    } finally {
      await worker.stop();
    }
    expect((await t.db.select().from(mailOutbox).where(and(eq(mailOutbox.to, "a@org-a.test")))).some((m) => /Late/.test(m.subject))).toBe(true);
  });
});
