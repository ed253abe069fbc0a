/**
 * Reminders and digests on a real database: each due reminder, each day's digest and each week's
 * customer digest is queued in the outbox once, whatever the number of ticks and workers and
 * however late the worker comes; a move that changed hands gets no reminder of the old one; each
 * person's mail preference is kept. Clocks are the test's: `now` is passed, nothing waits.
 *
 * Runs on both databases: the keys are claimed many to a statement (ON CONFLICT DO NOTHING …
 * RETURNING) and the mail written with insertMany, whose statements differ between the two.
 * @module-tag both-databases
 */
import { and, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engagements, engagementSteps, intakeSubmissions, mailOutbox, migrationItems, migrationRuns, users, watches, weeklyDigestsSent, windowProposals } from "@/db/schema";
import { writeAudit } from "@/server/security/audit";
import { storeMoveDeadlines } from "@/server/engagements/engagement-repository";
import { createMigrationWorker } from "@/server/migration/migration-worker";
import { callerAs, testConfig } from "@/server/testing/caller";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
import { REMINDERS } from "./reminder-work";
import { claimReminders, sendRemindersAndDigests } from "./send-reminders";

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
    expect((await tick(new Date(due - D - H))).reminders).toBe(0);
    expect((await tick(new Date(due - D + H))).reminders).toBe(1);
    expect((await tick(new Date(due - D + 2 * H))).reminders).toBe(0);
    const reminders = async () => (await mailTo("a@org-a.test")).filter((m) => /(Due tomorrow|Late): your move/.test(m.subject));
    expect((await reminders()).map((m) => m.subject)).toEqual([expect.stringMatching(/Due tomorrow: your move/)]);
    expect((await tick(at(H))).reminders).toBe(1);
    expect((await tick(at(2 * H))).reminders).toBe(0);
    expect((await tick(at(D + H))).reminders).toBe(1);
    const sent = await reminders();
    expect(sent.map((m) => m.subject)).toEqual([expect.stringMatching(/Due tomorrow/), expect.stringMatching(/Late: your move/), expect.stringMatching(/Late: your move/)]);
    expect(sent[1]!.text).toContain("http://ferry.test/portal/engagements/");
    // Late by so many days, in words that agree with the count.
    expect(sent[1]!.text).toContain("was due on Sat, 7 Nov 2026, 09:00 UTC, 1 hour ago. The engagement waits on you until you make it.");
    expect(sent[2]!.text).toContain(", 1 day ago.");
    expect(sent[0]!.text).toContain("Your next move is due on Sat, 7 Nov 2026, 09:00 UTC. The engagement waits on you until you make it.");
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

  it("claim a move's key only while the move is as it was read, and only once", async () => {
    const since = new Date("2026-11-02T05:00:00Z");
    const id = await customersMove(since);
    const [read] = await t.db.select().from(engagements).where(eq(engagements.id, id));
    const move = { ...read!, organizationName: "Org A" };
    const claim = (m: typeof move) =>
      t.database.transaction((tx) => claimReminders(tx, [m], { kind: "late", seq: 0 }, new Date(since.getTime() + 5 * D + H)), { isolation: "read committed" });
    // The move changed hands after it was read: its reminder is not owed, nothing is claimed.
    await t.db.update(engagements).set({ waitingOn: "support", waitingSince: new Date(since.getTime() + D) }).where(eq(engagements.id, id));
    expect([...(await claim(move))]).toEqual([]);
    // As it is now: claimed once, then held.
    const [now] = await t.db.select().from(engagements).where(eq(engagements.id, id));
    expect([...(await claim({ ...move, ...now! }))]).toEqual([id]);
    expect([...(await claim({ ...move, ...now! }))]).toEqual([]);
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

/** A company of the engagement's token file, stored as the migration left it. */
async function company(engagementId: string, name: string, set: Partial<typeof migrationItems.$inferInsert>) {
  let [submission] = await t.db.select({ id: intakeSubmissions.id }).from(intakeSubmissions).where(eq(intakeSubmissions.engagementId, engagementId));
  submission ??= (
    await t.db
      .insert(intakeSubmissions)
      .values({ engagementId, status: "accepted", clientId: "c", clientSecretMask: "••••", contacts: [], fileName: "f.csv", fileKind: "csv", rowCount: 1, warningCount: 0, countsByKind: {}, preview: [], submittedAt: new Date() })
      .returning({ id: intakeSubmissions.id })
  )[0]!;
  await t.db.insert(migrationItems).values({ engagementId, submissionId: submission.id, position: 0, sourceRef: "line 2", name, credentialsMask: {}, ...set });
}

/** A bulk run of the engagement that finished at `at`, audited as the runner does. */
async function bulkRunFinished(engagementId: string, at: Date) {
  const [run] = await t.db.insert(migrationRuns).values({ engagementId, kind: "bulk", status: "completed", requestedAt: at, startedAt: at, finishedAt: at }).returning({ id: migrationRuns.id });
  await t.database.transaction(
    (tx) => writeAudit(tx, { actor: null, action: "migration.bulk_finished", targetId: run!.id, engagementId, organizationId: p.orgA, after: { counts: { verified: 3, reconnect_pending: 1 } }, at }),
    { isolation: "read committed" },
  );
}

const weeklyTo = async (to: string) => (await mailTo(to)).filter((m) => m.subject.startsWith("Your week in Ferry"));

describe("the customers' weekly digest", () => {
  // Monday 2 November 2026: the customer's move (step 1, five days) began at 05:00, due Saturday 05:00.
  const since = new Date("2026-11-02T05:00:00Z");

  it("goes to each customer once a week from Monday 07:00 UTC, across ticks and workers, with what waits on them and what happened", async () => {
    const id = await customersMove(since);
    const tuesday = new Date("2026-11-10T09:00:00Z");
    // What happened in the past seven days: step 1 done, a bulk run finished; and what waits: a
    // window proposed, a company waiting for its end customer. Something older is not told.
    await t.db.update(engagementSteps).set({ state: "done", completedAt: new Date(tuesday.getTime() - 2 * D) }).where(and(eq(engagementSteps.engagementId, id), eq(engagementSteps.step, 1)));
    await bulkRunFinished(id, new Date(tuesday.getTime() - D));
    await bulkRunFinished(id, new Date(tuesday.getTime() - 9 * D));
    await t.db.insert(windowProposals).values({ engagementId: id, status: "proposed", startsAt: new Date("2026-11-14T09:00:00Z"), endsAt: new Date("2026-11-14T17:00:00Z"), estimateSeconds: 3600, estimate: {}, proposedAt: since });
    await company(id, "Waiting Co", { state: "reconnect_pending", reconnectSince: since });

    const [a, b] = await Promise.all([tick(tuesday), tick(tuesday)]);
    expect(a.weeklyDigests + b.weeklyDigests).toBe(1);
    expect((await tick(new Date("2026-11-13T18:00:00Z"))).weeklyDigests).toBe(0);
    const [digest, ...more] = await weeklyTo("a@org-a.test");
    expect(more).toEqual([]);
    expect(digest!.subject).toBe("Your week in Ferry (Org A): 1 engagement waits on you, 2 updates");
    expect(digest!.text).toContain("Hello Customer A,");
    expect(digest!.text).toMatch(/FER-\d+ · QuickBooks Online · step 1 of 6 \(Details gathered\)/);
    expect(digest!.text).toContain("Your move, since Mon, 2 Nov 2026, 05:00 UTC, due Sat, 7 Nov 2026, 05:00 UTC (late).");
    expect(digest!.text).toContain("Windows proposed, awaiting your answer: Sat, 14 Nov 2026, 09:00 UTC – Sat, 14 Nov 2026, 17:00 UTC.");
    expect(digest!.text).toContain("1 company waits for its end customer to reconnect, or for fresh tokens from you.");
    expect(digest!.text).toContain("- Sun 8 Nov: Step 1 (Details gathered) was completed");
    expect(digest!.text.match(/The bulk migration finished/g)).toHaveLength(1);
    expect(digest!.text).toContain(`http://ferry.test/portal/engagements/${id}`);
    // Org B has no engagement: its customer gets none. Staff never get the weekly digest.
    expect(await weeklyTo("b@org-b.test")).toEqual([]);
    expect(await weeklyTo("support@test")).toEqual([]);
    // Next week, before Monday 07:00: still this week's (sent); from 07:00, the next one.
    expect((await tick(new Date("2026-11-16T06:30:00Z"))).weeklyDigests).toBe(0);
    expect((await tick(new Date("2026-11-16T07:30:00Z"))).weeklyDigests).toBe(1);
    expect(await weeklyTo("a@org-a.test")).toHaveLength(2);
  });

  it("keeps each customer's choice: the digest only still gets it, mail off gets none", async () => {
    await customersMove(since);
    await t.db.update(users).set({ mailPreference: "off" }).where(eq(users.id, p.customerA.id));
    expect((await tick(new Date("2026-11-10T09:00:00Z"))).weeklyDigests).toBe(0);
    await t.db.update(users).set({ mailPreference: "digest" }).where(eq(users.id, p.customerA.id));
    expect((await tick(new Date("2026-11-17T09:00:00Z"))).weeklyDigests).toBe(1);
    // The digest only: the week's digest came, no reminder of the late move did.
    expect((await subjectsTo("a@org-a.test")).filter((s) => /Your week|Due tomorrow|Late:/.test(s))).toEqual([expect.stringMatching(/^Your week in Ferry/)]);
    // A customer deactivated, or an organisation whose engagements are all done, gets none.
    await t.db.update(users).set({ active: false }).where(eq(users.id, p.customerA.id));
    expect((await tick(new Date("2026-11-24T09:00:00Z"))).weeklyDigests).toBe(0);
  });

  it("after downtime, only the latest week's, telling only the past seven days", async () => {
    const id = await customersMove(since);
    await bulkRunFinished(id, new Date("2026-11-05T12:00:00Z"));
    // The worker was down from before Monday 2 November until Thursday 19 November.
    expect((await tick(new Date("2026-11-19T10:00:00Z"))).weeklyDigests).toBe(1);
    expect((await tick(new Date("2026-11-19T10:05:00Z"))).weeklyDigests).toBe(0);
    const keys = await t.db.select({ week: weeklyDigestsSent.week }).from(weeklyDigestsSent).where(eq(weeklyDigestsSent.userId, p.customerA.id));
    expect(keys).toEqual([{ week: "2026-11-16" }]);
    const [digest] = await weeklyTo("a@org-a.test");
    expect(digest!.text).not.toContain("The bulk migration finished");
    expect(digest!.text).toContain("Nothing happened in the past seven days.");
  });
});

describe("the daily digest's news", () => {
  it("tells the owner of runs that finished and connections dropped during hypercare since their previous digest", async () => {
    const id = await customersMove(since0());
    const eight = new Date("2026-11-04T08:00:00Z");
    await bulkRunFinished(id, new Date(eight.getTime() - 3 * H));
    await t.db.insert(watches).values({ engagementId: id, status: "watching", startedAt: new Date(eight.getTime() - 2 * D), nextCheckAt: new Date(eight.getTime() + D) });
    await company(id, "Dropped Co", { state: "reconnect_pending", droppedAt: new Date(eight.getTime() - 2 * H), reconnectSince: new Date(eight.getTime() - 2 * H) });
    await company(id, "Old Drop Co", { position: 1, state: "reconnect_pending", droppedAt: new Date(eight.getTime() - 2 * D) });
    expect((await tick(eight)).digests).toBe(1);
    const [digest] = (await mailTo("support@test")).filter((m) => m.subject.startsWith("Your day in Ferry"));
    expect(digest!.subject).toBe("Your day in Ferry: 1 run(s) finished, 1 drop");
    expect(digest!.text).toMatch(/Runs that finished since Tue, 3 Nov 2026, 08:00 UTC \(1\):\n- FER-\d+ · Org A: The bulk migration finished: .* — http:\/\/ferry\.test\/engagements\//);
    expect(digest!.text).toMatch(/Connections dropped during hypercare since .* \(1\):\n- FER-\d+ · Org A: 1 connection dropped \(Dropped Co\): send the reconnect links/);
    expect(digest!.text).not.toContain("Old Drop Co");
    // The next day's digest tells only what came after this one: nothing new, so none.
    expect((await tick(new Date(eight.getTime() + D))).digests).toBe(0);
    await bulkRunFinished(id, new Date(eight.getTime() + D + 30 * 60_000));
    expect((await tick(new Date(eight.getTime() + 2 * D))).digests).toBe(1);
    const texts = (await mailTo("support@test")).filter((m) => m.subject.startsWith("Your day in Ferry")).map((m) => m.text);
    expect(texts).toHaveLength(2);
    expect(texts[1]!.match(/The bulk migration finished/g)).toHaveLength(1);
    expect(texts[1]).toContain("Runs that finished since Thu, 5 Nov 2026, 08:00 UTC");
  });
});

/** A move that began long enough ago to be neither due nor late in the week of 2 November. */
function since0() {
  return new Date("2026-11-03T20:00:00Z");
}
