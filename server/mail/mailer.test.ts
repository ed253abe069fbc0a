import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mailOutbox } from "@/db/schema";
import { callerAs, testConfig } from "@/server/testing/caller";
import { createTestDatabase, seedPeople, type TestDatabase } from "@/server/testing/test-db";
import { HIDDEN_LINK, sendMail } from "./mailer";
import { startSmtp } from "../testing/mail";

let t: TestDatabase;
beforeEach(async () => {
  t = await createTestDatabase();
});
afterEach(() => t.close());

describe("mail", () => {
  it("without SMTP, lands in the outbox and the log", async () => {
    const log: string[] = [];
    await sendMail(t.database, { from: "Ferry <f@test>", log: (l) => log.push(l) }, { to: "x@test", subject: "Hi", text: "Body" });
    expect(await t.db.select().from(mailOutbox)).toMatchObject([{ to: "x@test", transport: "outbox", error: null }]);
    expect(log[0]).toContain('subject="Hi"');
  });

  it("logs each message as one line: a line break in a name, in the subject or the text, cannot start a log line of its own", async () => {
    const log: string[] = [];
    const name = "Mallory\r\n[trpc] internal error ref=forged\nEve\u2028";
    await sendMail(t.database, { from: "Ferry <f@test>", log: (l) => log.push(l) }, { to: "x@test", subject: `${name} accepted`, text: `Hello,\n\n${name} accepted the window.\n` });
    expect(log).toHaveLength(1);
    expect(log[0]).not.toMatch(/[\r\n\u2028]/);
    expect(log[0]).toBe(
      '[mail] to=x@test subject="Mallory\\r\\n[trpc] internal error ref=forged\\nEve\\u2028 accepted" text="Hello,\\n\\nMallory\\r\\n[trpc] internal error ref=forged\\nEve\\u2028 accepted the window.\\n"',
    );
    // The outbox keeps the message as written.
    expect((await t.db.select().from(mailOutbox).limit(1))[0]!.subject).toBe(`${name} accepted`);
  });

  it("an invitation to a person whose name holds line breaks is logged on one line, its link hidden", async () => {
    const p = await seedPeople(t.database);
    const log: string[] = [];
    await callerAs(t.database, p.admin, testConfig(log)).invitations.create({ email: "new@org-a.test", name: "New\n[next-auth][error][FORGED] Person", role: "customer", organizationId: p.orgA });
    expect(log).toHaveLength(1);
    expect(log[0]).not.toMatch(/[\r\n]/);
    expect(log[0]).toContain("New\\n[next-auth][error][FORGED] Person");
    expect(log[0]).toContain(HIDDEN_LINK);
  });

  it("with SMTP_URL, is really sent and recorded as sent", async () => {
    const smtp = await startSmtp();
    try {
      const res = await sendMail(
        t.database,
        { smtpUrl: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`, from: "Ferry <f@test>" },
        { to: "y@test", subject: "Invite", text: "Link inside" },
      );
      expect(res.delivered).toBe(true);
      expect(smtp.messages[0]).toContain("Subject: Invite");
      expect(smtp.messages[0]).toContain("Link inside");
      const [row] = await t.db.select().from(mailOutbox);
      expect(row).toMatchObject({ transport: "smtp", error: null });
      expect(row!.sentAt).toBeInstanceOf(Date);
    } finally {
      await smtp.close();
    }
  });

  it("keeps the message and the SMTP error when delivery fails", async () => {
    const res = await sendMail(t.database, { smtpUrl: "smtp://127.0.0.1:1", from: "f@test" }, { to: "z@test", subject: "S", text: "T" });
    expect(res.delivered).toBe(false);
    const [row] = await t.db.select().from(mailOutbox);
    expect(row!.sentAt).toBeNull();
    expect(row!.error).toMatch(/ECONNREFUSED|connect/i);
  });
});
