/**
 * The transactional outbox: a message queued in a change's transaction commits or rolls back with
 * it; the worker's sender delivers each message once (embedded: the row and one log line; SMTP: one
 * message with a Message-ID made from the row's id), retries failures with backoff and gives up
 * after its attempts; senders claiming at once deliver each message once, and a sender whose claim
 * ran out and was taken over writes nothing.
 *
 * Its tests tagged both-databases run on PostgreSQL too: the rollback, the claims and the fences.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mailOutbox } from "@/db/schema";
import { callerAs, testConfig } from "@/server/testing/caller";
import { createTestDatabase, seedPeople, type TestDatabase } from "@/server/testing/test-db";
import { enqueueMail, HIDDEN_LINK, prepareMail, queueMail } from "./mailer";
import { claimNextMail, createSender, deliverDueMail, markMailFailed, markMailSent, messageIdOf } from "./sender";
import { startSmtp } from "../testing/mail";

let t: TestDatabase;
beforeEach(async () => {
  t = await createTestDatabase();
});
afterEach(() => t.close());

const FROM = "Ferry <f@ferry.test>";
const at = (ms: number) => new Date(Date.UTC(2031, 0, 1) + ms);
const rows = () => t.db.select().from(mailOutbox);

describe("queueing mail with a change", { tags: ["both-databases"] }, () => {
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

describe("the sender, without SMTP", () => {
  it("delivers to the outbox and the log, once", async () => {
    const log: string[] = [];
    await enqueueMail(t.database, {}, { to: "x@test", subject: "Hi", text: "Body" });
    const mail = { from: FROM, log: (l: string) => log.push(l) };
    expect(await deliverDueMail({ database: t.database, mail }, at(0))).toEqual({ sent: 1, retrying: 0, failed: 0, superseded: 0 });
    expect(await deliverDueMail({ database: t.database, mail }, at(1_000))).toEqual({ sent: 0, retrying: 0, failed: 0, superseded: 0 });
    expect(await rows()).toMatchObject([{ to: "x@test", transport: "outbox", error: null, attempts: 1, sentAt: at(0) }]);
    expect(log).toEqual(['[mail] to=x@test subject="Hi" text="Body"']);
  });

  it("logs each message as one line: a line break in a name, in the subject or the text, cannot start a log line of its own", async () => {
    const log: string[] = [];
    const name = "Mallory\r\n[trpc] internal error ref=forged\nEve\u2028";
    await enqueueMail(t.database, {}, { to: "x@test", subject: `${name} accepted`, text: `Hello,\n\n${name} accepted the window.\n` });
    await deliverDueMail({ database: t.database, mail: { from: FROM, log: (l) => log.push(l) } });
    expect(log).toHaveLength(1);
    expect(log[0]).not.toMatch(/[\r\n\u2028]/);
    expect(log[0]).toBe(
      '[mail] to=x@test subject="Mallory\\r\\n[trpc] internal error ref=forged\\nEve\\u2028 accepted" text="Hello,\\n\\nMallory\\r\\n[trpc] internal error ref=forged\\nEve\\u2028 accepted the window.\\n"',
    );
    // The outbox keeps the message as written.
    expect((await rows())[0]!.subject).toBe(`${name} accepted`);
  });

  it("an invitation to a person whose name holds line breaks is logged on one line, its link hidden", async () => {
    const p = await seedPeople(t.database);
    const log: string[] = [];
    await callerAs(t.database, p.admin, testConfig(log)).invitations.create({ email: "new@org-a.test", name: "New\n[next-auth][error][FORGED] Person", role: "customer", organizationId: p.orgA });
    await deliverDueMail({ database: t.database, mail: testConfig(log).mail });
    expect(log).toHaveLength(1);
    expect(log[0]).not.toMatch(/[\r\n]/);
    expect(log[0]).toContain("New\\n[next-auth][error][FORGED] Person");
    expect(log[0]).toContain(HIDDEN_LINK);
  });
});

describe("the sender, with SMTP", () => {
  it("really sends, with a Message-ID made from the row's id, and records it as sent", async () => {
    const smtp = await startSmtp();
    try {
      const { id } = await enqueueMail(t.database, { smtpUrl: "smtp://configured" }, { to: "y@test", subject: "Invite", text: "Link inside" });
      const done = await deliverDueMail({ database: t.database, mail: { smtpUrl: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`, from: FROM } }, at(0));
      expect(done.sent).toBe(1);
      expect(smtp.messages).toHaveLength(1);
      expect(smtp.messages[0]).toContain("Subject: Invite");
      expect(smtp.messages[0]).toContain("Link inside");
      expect(smtp.messages[0]).toContain(`Message-ID: ${messageIdOf(id, FROM)}`);
      expect(messageIdOf(id, FROM)).toBe(`<${id}@ferry.test>`);
      expect(await rows()).toMatchObject([{ transport: "smtp", error: null, sentAt: at(0), attempts: 1 }]);
    } finally {
      await smtp.close();
    }
  });

  it("keeps the SMTP error and retries with exponential backoff; gives up after its attempts, shown as not delivered", async () => {
    const { id } = await enqueueMail(t.database, { smtpUrl: "smtp://127.0.0.1:1" }, { to: "z@test", subject: "S", text: "T" });
    const options = { database: t.database, mail: { smtpUrl: "smtp://127.0.0.1:1", from: FROM, log: () => {} }, backoffMs: 1_000, maxAttempts: 3, random: () => 1 };
    const row = async () => (await t.db.select().from(mailOutbox).where(eq(mailOutbox.id, id)))[0]!;

    expect(await deliverDueMail(options, at(0))).toMatchObject({ retrying: 1 });
    expect(await row()).toMatchObject({ attempts: 1, sentAt: null, failedAt: null, nextAttemptAt: at(1_000), claimExpiresAt: null });
    expect((await row()).error).toMatch(/ECONNREFUSED|connect/i);
    // Not due before its next try.
    expect(await deliverDueMail(options, at(999))).toEqual({ sent: 0, retrying: 0, failed: 0, superseded: 0 });
    // The wait doubles.
    expect(await deliverDueMail(options, at(1_000))).toMatchObject({ retrying: 1 });
    expect(await row()).toMatchObject({ attempts: 2, nextAttemptAt: at(3_000) });
    // The third attempt is the last.
    expect(await deliverDueMail(options, at(3_000))).toMatchObject({ failed: 1 });
    expect(await row()).toMatchObject({ attempts: 3, sentAt: null, failedAt: at(3_000) });
    expect(await deliverDueMail(options, at(100_000))).toEqual({ sent: 0, retrying: 0, failed: 0, superseded: 0 });

    const p = await seedPeople(t.database);
    const [shown] = await callerAs(t.database, p.admin).outbox.list();
    expect(shown).toMatchObject({ status: "failed", attempts: 3, error: expect.stringMatching(/ECONNREFUSED|connect/i) });
  });
});

describe("senders at once", { tags: ["both-databases"] }, () => {
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
