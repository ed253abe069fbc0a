import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mailOutbox } from "@/db/schema";
import { createTestDb, type TestDb } from "@/server/testing/test-db";
import { sendMail } from "./mailer";
import { startSmtp } from "./testing";

let t: TestDb;
beforeEach(() => {
  t = createTestDb();
});
afterEach(() => t.close());

describe("mail", () => {
  it("without SMTP, lands in the outbox and the log", async () => {
    const log: string[] = [];
    await sendMail(t.db, { from: "Ferry <f@test>", log: (l) => log.push(l) }, { to: "x@test", subject: "Hi", text: "Body" });
    expect(t.db.select().from(mailOutbox).all()).toMatchObject([{ to: "x@test", transport: "outbox", error: null }]);
    expect(log[0]).toContain('subject="Hi"');
  });

  it("with SMTP_URL, is really sent and recorded as sent", async () => {
    const smtp = await startSmtp();
    try {
      const res = await sendMail(
        t.db,
        { smtpUrl: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true`, from: "Ferry <f@test>" },
        { to: "y@test", subject: "Invite", text: "Link inside" },
      );
      expect(res.delivered).toBe(true);
      expect(smtp.messages[0]).toContain("Subject: Invite");
      expect(smtp.messages[0]).toContain("Link inside");
      const [row] = t.db.select().from(mailOutbox).all();
      expect(row).toMatchObject({ transport: "smtp", error: null });
      expect(row!.sentAt).toBeInstanceOf(Date);
    } finally {
      await smtp.close();
    }
  });

  it("keeps the message and the SMTP error when delivery fails", async () => {
    const res = await sendMail(t.db, { smtpUrl: "smtp://127.0.0.1:1", from: "f@test" }, { to: "z@test", subject: "S", text: "T" });
    expect(res.delivered).toBe(false);
    const [row] = t.db.select().from(mailOutbox).all();
    expect(row!.sentAt).toBeNull();
    expect(row!.error).toMatch(/ECONNREFUSED|connect/i);
  });
});
