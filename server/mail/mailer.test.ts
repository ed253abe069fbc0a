/**
 * Delivering the outbox: the worker's sender delivers each queued message once (embedded: the row
 * and one log line; SMTP: one message with a Message-ID made from the row's id), retries failures
 * with exponential backoff and gives up after its attempts. The claims, the fences and the
 * rollback with a change are in outbox-claims.test.ts (both databases).
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mailOutbox } from "@/db/schema";
import { callerAs, testConfig } from "@/server/testing/caller";
import { createTestDatabase, seedPeople, type TestDatabase } from "@/server/testing/test-db";
import { enqueueMail, HIDDEN_LINK } from "./mailer";
import { deliverDueMail, messageIdOf } from "./sender";
import { startSmtp } from "../testing/mail";

let t: TestDatabase;
beforeEach(async () => {
  t = await createTestDatabase();
});
afterEach(() => t.close());

const FROM = "Ferry <f@ferry.test>";
const at = (ms: number) => new Date(Date.UTC(2031, 0, 1) + ms);
const rows = () => t.db.select().from(mailOutbox);

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
