/**
 * The transactional outbox on either database: a message queued in a change's transaction commits
 * or rolls back with it; senders claiming at once deliver each message exactly once; a sender whose
 * claim ran out and was taken over writes nothing.
 *
 * Runs on both databases: the rollback, the claims (FOR UPDATE SKIP LOCKED on PostgreSQL) and the fences.
 * @module-tag both-databases
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mailOutbox } from "@/db/schema";
import { callerAs, testConfig } from "@/server/testing/caller";
import { createTestDatabase, seedPeople, type TestDatabase } from "@/server/testing/test-db";
import { enqueueMail, prepareMail, queueMail } from "./mailer";
import { claimNextMail, createSender, deliverDueMail, markMailFailed, markMailSent } from "./sender";
import { startSmtp } from "../testing/mail";

let t: TestDatabase;
beforeEach(async () => {
  t = await createTestDatabase();
});
afterEach(() => t.close());

const FROM = "Ferry <f@ferry.test>";
const at = (ms: number) => new Date(Date.UTC(2031, 0, 1) + ms);
const rows = () => t.db.select().from(mailOutbox);

describe("queueing mail with a change", () => {
  it("commits with the change, and is rolled back with it when the change fails", async () => {
    const failing = t.database.transaction(
      function* (tx) {
        yield* queueMail(tx, prepareMail({}, { to: "x@test", subject: "Never", text: "The change failed" }));
        throw new Error("the change failed after its mail was queued");
      },
      { isolation: "read committed" },
    );
    await expect(failing).rejects.toThrow("the change failed");
    expect(await rows()).toEqual([]);

    await t.database.transaction((tx) => queueMail(tx, prepareMail({}, { to: "x@test", subject: "Kept", text: "The change committed" })), { isolation: "read committed" });
    expect(await rows()).toMatchObject([{ subject: "Kept", sentAt: null, attempts: 0, failedAt: null }]);
  });

  it("a flow's mail is queued by the change itself: the web app sees it at once, no worker needed, and a refused change queues none", async () => {
    const p = await seedPeople(t.database);
    const log: string[] = [];
    const support = callerAs(t.database, p.support, testConfig(log));
    const { id } = await support.engagements.create({ organizationId: p.orgA, platformKey: "qhyg" });
    const queued = await rows();
    expect(queued.length).toBeGreaterThan(0);
    expect(queued.every((m) => m.sentAt === null && m.subject.includes("It is your move"))).toBe(true);
    expect(log).toEqual([]);
    // A second engagement on the same platform is refused: nothing more is queued.
    await expect(support.engagements.create({ organizationId: p.orgA, platformKey: "qhyg" })).rejects.toThrow(/already has an open/);
    expect((await rows()).length).toBe(queued.length);
    expect(id).toBeTruthy();
  });
});

describe("senders at once", () => {
  it("two senders looking at once deliver each message exactly once", async () => {
    const smtp = await startSmtp();
    try {
      for (let i = 0; i < 12; i++) await enqueueMail(t.database, {}, { to: `p${i}@test`, subject: `Message ${i}`, text: "Hello" });
      const mail = { smtpUrl: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`, from: FROM, log: () => {} };
      const a = createSender({ database: t.database, mail });
      const b = createSender({ database: t.database, mail });
      try {
        const [da, db] = await Promise.all([a.deliverDue(at(0)), b.deliverDue(at(0))]);
        expect(da.sent + db.sent).toBe(12);
        expect(da.superseded + db.superseded).toBe(0);
      } finally {
        a.close();
        b.close();
      }
      expect(smtp.messages).toHaveLength(12);
      const ids = smtp.messages.map((m) => /Message-ID: (<[^>]+>)/.exec(m)?.[1]);
      expect(new Set(ids).size).toBe(12);
      expect((await rows()).every((m) => m.sentAt && m.attempts === 1)).toBe(true);
    } finally {
      await smtp.close();
    }
  });

  it("an expired claim is taken over, and the stale sender's fenced writes do nothing", async () => {
    const { id } = await enqueueMail(t.database, {}, { to: "x@test", subject: "Once", text: "Hello" });
    const rc = { isolation: "read committed" } as const;
    const stale = await t.database.transaction((tx) => claimNextMail(tx, { token: "stale", leaseMs: 1_000, now: at(0) }), rc);
    expect(stale).toMatchObject({ id, claimToken: "stale", attempts: 1 });
    // While its claim holds, nobody else takes the message.
    expect(await t.database.transaction((tx) => claimNextMail(tx, { token: "early", leaseMs: 1_000, now: at(999) }), rc)).toBeUndefined();
    // The stale sender stalls past its lease; another claims the message and delivers it.
    const log: string[] = [];
    expect(await deliverDueMail({ database: t.database, mail: { from: FROM, log: (l) => log.push(l) } }, at(1_000))).toMatchObject({ sent: 1 });
    expect(log).toHaveLength(1);
    expect(await t.database.transaction((tx) => markMailSent(tx, { id, token: "stale", transport: "outbox", now: at(2_000) }), rc)).toBe(false);
    expect(await t.database.transaction((tx) => markMailFailed(tx, { id, token: "stale", error: "late", retryAt: at(5_000), now: at(2_000) }), rc)).toBe(false);
    expect(await rows()).toMatchObject([{ id, sentAt: at(1_000), attempts: 2, error: null, failedAt: null }]);
    expect((await rows())[0]!.claimToken).not.toBe("stale");
  });
});
