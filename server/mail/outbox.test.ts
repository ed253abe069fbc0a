/**
 * Invitation links are never at rest or in the log in plain text: every row of every table, on
 * SQLite the database file (with its -wal and -shm) too, and the captured log are scanned for the
 * raw token after an invitation, with the embedded outbox and with SMTP.
 */
import fs from "node:fs";
import { eq, is, Table } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as schema from "@/db/schema";
import { auditEvents, mailOutbox } from "@/db/schema";
import { callerAs, testConfig, trpcError } from "@/server/testing/caller";
import { createTestDatabase, seedPeople, type People, type TestDatabase } from "@/server/testing/test-db";
import { enqueueMail, HIDDEN_LINK } from "./mailer";
import { deliverDueMail } from "./sender";
import { startSmtp } from "../testing/mail";

let t: TestDatabase;
let p: People;
let log: string[];
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  log = [];
});
afterEach(() => t.close());

/**
 * Whether `text` is stored anywhere: in a row of any table, or (SQLite) in any byte of the file and
 * its write-ahead log and shared memory, which also hold deleted rows' leftovers.
 */
async function storedAnywhere(text: string): Promise<boolean> {
  const tables = Object.values(schema).filter((v): v is typeof mailOutbox => is(v, Table));
  if (JSON.stringify(await Promise.all(tables.map((table) => t.db.select().from(table)))).includes(text)) return true;
  const files = t.file ? [t.file, `${t.file}-wal`, `${t.file}-shm`] : [];
  return Buffer.concat(files.filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f))).includes(Buffer.from(text));
}

const tokenOf = (text: string) => text.match(/\/invite\/([A-Za-z0-9_-]{20,})/)?.[1];

describe("invitation links in the embedded outbox", () => {
  it("are in no row and no log line in plain text; an admin reveals one while it is pending, audited", async () => {
    const admin = callerAs(t.database, p.admin, testConfig(log));
    await admin.invitations.create({ email: "new@org-a.test", name: "New Person", role: "customer", organizationId: p.orgA });
    // Queued with the invitation, revealable before the worker delivers it; delivered, logged with the link hidden.
    expect((await admin.outbox.list())[0]).toMatchObject({ status: "sending", canRevealLink: true });
    expect(await deliverDueMail({ database: t.database, mail: testConfig(log).mail })).toMatchObject({ sent: 1 });
    const [mail] = await admin.outbox.list();
    expect(mail).toMatchObject({ to: "new@org-a.test", canRevealLink: true });
    expect(mail!.text).toContain(`Set your password here (the link works once and expires in 7 days):\n${HIDDEN_LINK}`);

    const { text } = await admin.outbox.revealLink({ id: mail!.id });
    const token = tokenOf(text);
    expect(token).toBeDefined();
    expect(await storedAnywhere(token!)).toBe(false);
    // The scan finds what is stored: the invitee's address.
    expect(await storedAnywhere("new@org-a.test")).toBe(true);
    expect(log.join("\n")).not.toContain(token);
    expect(log.join("\n")).toContain(HIDDEN_LINK);

    const audit = await t.db.select().from(auditEvents).where(eq(auditEvents.action, "outbox.link_revealed"));
    expect(audit).toMatchObject([{ actorId: p.admin.id, action: "outbox.link_revealed", targetType: "mail", targetId: mail!.id }]);
    expect(JSON.stringify(audit)).not.toContain(token);
  });

  it("stop being revealable once the invitation is used, and the sealed copy is deleted", async () => {
    const admin = callerAs(t.database, p.admin, testConfig(log));
    await admin.invitations.create({ email: "used@org-a.test", name: "Used", role: "customer", organizationId: p.orgA });
    const [mail] = await admin.outbox.list();
    const token = tokenOf((await admin.outbox.revealLink({ id: mail!.id })).text)!;
    await callerAs(t.database, null).invitations.accept({ token, name: "Used", password: "a long enough password" });

    expect((await admin.outbox.list())[0]).toMatchObject({ id: mail!.id, canRevealLink: false });
    expect((await t.db.select().from(mailOutbox).where(eq(mailOutbox.id, mail!.id)).limit(1))[0]!.sealedText).toBeNull();
    const refused = await trpcError(admin.outbox.revealLink({ id: mail!.id }));
    expect(refused).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("no longer works") });
  });

  it("stop being revealable once the invitation is withdrawn or replaced", async () => {
    const admin = callerAs(t.database, p.admin, testConfig(log));
    const first = await admin.invitations.create({ email: "twice@ferry.test", name: "Twice", role: "support" });
    const [firstMail] = await admin.outbox.list();
    await admin.invitations.create({ email: "twice@ferry.test", name: "Twice", role: "support" });
    const [secondMail] = await admin.outbox.list();
    expect((await t.db.select().from(mailOutbox).where(eq(mailOutbox.id, firstMail!.id)).limit(1))[0]!.sealedText).toBeNull();
    expect((await trpcError(admin.outbox.revealLink({ id: firstMail!.id }))).code).toBe("PRECONDITION_FAILED");
    expect(first.id).not.toBe(secondMail!.id);

    const pending = (await admin.invitations.list()).find((i) => i.status === "pending")!;
    await admin.invitations.revoke({ invitationId: pending.id });
    expect((await t.db.select().from(mailOutbox).where(eq(mailOutbox.id, secondMail!.id)).limit(1))[0]!.sealedText).toBeNull();
    expect((await admin.outbox.list()).every((m) => !m.canRevealLink)).toBe(true);
  });

  it("a message without a link has nothing to reveal", async () => {
    const { id } = await enqueueMail(t.database, testConfig(log).mail, { to: "x@test", subject: "Hello", text: "No link here" });
    const refused = await trpcError(callerAs(t.database, p.admin, testConfig(log)).outbox.revealLink({ id }));
    expect(refused).toMatchObject({ code: "PRECONDITION_FAILED", message: "This message has no link to show." });
  });
});

describe("invitation links with SMTP", () => {
  it("go out by email; only a redacted copy is kept, nothing sealed", async () => {
    const smtp = await startSmtp();
    try {
      const config = testConfig(log);
      config.mail = { ...config.mail, smtpUrl: `smtp://127.0.0.1:${smtp.port}?ignoreTLS=true` };
      const admin = callerAs(t.database, p.admin, config);
      await admin.invitations.create({ email: "smtp@org-a.test", name: "By Mail", role: "customer", organizationId: p.orgA });
      // Queued sealed (the sender needs the link to send it), but not revealable: it goes by email.
      expect((await admin.outbox.list())[0]).toMatchObject({ transport: "smtp", status: "sending", canRevealLink: false });
      expect((await t.db.select().from(mailOutbox).limit(1))[0]!.sealedText).not.toBeNull();
      expect(await deliverDueMail({ database: t.database, mail: config.mail })).toMatchObject({ sent: 1 });
      // Quoted-printable may wrap the long link: unfold soft line breaks before reading it.
      const token = tokenOf(smtp.messages[0]!.replace(/=\n/g, ""));
      expect(token).toBeDefined();

      const [mail] = await admin.outbox.list();
      expect(mail).toMatchObject({ transport: "smtp", canRevealLink: false, error: null });
      expect(mail!.text).toContain(HIDDEN_LINK);
      expect((await t.db.select().from(mailOutbox).limit(1))[0]!.sealedText).toBeNull();
      expect(await storedAnywhere(token!)).toBe(false);
      expect(log.join("\n")).not.toContain(token);
    } finally {
      await smtp.close();
    }
  });
});
