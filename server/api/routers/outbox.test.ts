/**
 * The outbox as admins read it — a page at a time, searched and filtered — and an invitation's
 * link copied from the invitations list (audited as a reveal; refused once it no longer works).
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, mailOutbox } from "@/db/schema";
import { enqueueMail } from "@/server/mail/mailer";
import { deliverDueMail } from "@/server/mail/sender";
import { createTestDatabase, seedPeople, type People, type TestDatabase } from "@/server/testing/test-db";
import { callerAs, testConfig, trpcError } from "../../testing/caller";

let t: TestDatabase;
let p: People;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t.close());

const admin = () => callerAs(t.database, p.admin);
const mail = (to: string, subject: string, text = "Hello.") => enqueueMail(t.database, testConfig().mail, { to, subject, text });

describe("reading the outbox", () => {
  it("pages newest first, with the total", async () => {
    for (let i = 1; i <= 7; i++) {
      const { id } = await mail(`person${i}@org-a.test`, `Message ${i}`);
      await t.db.update(mailOutbox).set({ createdAt: new Date(Date.UTC(2026, 10, 28, 10, i)) }).where(eq(mailOutbox.id, id));
    }
    const first = await admin().outbox.search({ page: 1, pageSize: 3 });
    expect(first).toMatchObject({ total: 7, page: 1, pageSize: 3 });
    expect(first.messages.map((m) => m.subject)).toEqual(["Message 7", "Message 6", "Message 5"]);
    const last = await admin().outbox.search({ page: 3, pageSize: 3 });
    expect(last.messages.map((m) => m.subject)).toEqual(["Message 1"]);
  });

  it("searches the recipient, the subject and the text, ignoring case and taking % and _ literally", async () => {
    await mail("carol@acme.test", "[FER-1001] Migration window accepted", "Carol accepted the window.");
    await mail("sam@ferry.test", "[FER-1002] It is your move", "Review the 100% complete file.");
    await mail("dan@bluebird.test", "You're invited to Ferry", "Welcome, dan_the_man.");
    const found = async (search: string) => (await admin().outbox.search({ search, page: 1, pageSize: 25 })).messages.map((m) => m.to);
    expect(await found("fer-1001")).toEqual(["carol@acme.test"]);
    expect(await found("SAM@")).toEqual(["sam@ferry.test"]);
    expect(await found("100%")).toEqual(["sam@ferry.test"]);
    expect(await found("dan_the")).toEqual(["dan@bluebird.test"]);
    // "_" is no wildcard: "d_n" would otherwise find "dan".
    expect(await found("d_n")).toEqual([]);
    expect(await found("nobody")).toEqual([]);
  });

  it("filters by where a message stands", async () => {
    const delivered = await mail("a@org-a.test", "Delivered");
    const failed = await mail("b@org-a.test", "Failed");
    await deliverDueMail({ database: t.database, mail: testConfig().mail });
    await t.db.update(mailOutbox).set({ sentAt: null, failedAt: new Date(), attempts: 8, error: "550 mailbox unavailable" }).where(eq(mailOutbox.id, failed.id));
    const sending = await mail("c@org-a.test", "Sending");
    const retrying = await mail("d@org-a.test", "Retrying");
    await t.db.update(mailOutbox).set({ attempts: 1, error: "421 try again later", nextAttemptAt: new Date(Date.now() + 60_000) }).where(eq(mailOutbox.id, retrying.id));
    const ids = async (status: "delivered" | "failed" | "sending") => (await admin().outbox.search({ status, page: 1, pageSize: 25 })).messages.map((m) => m.id);
    expect(await ids("delivered")).toEqual([delivered.id]);
    expect(await ids("failed")).toEqual([failed.id]);
    // Newest first: both still to be delivered, one of them after a failed attempt, its next try shown.
    expect(new Set(await ids("sending"))).toEqual(new Set([sending.id, retrying.id]));
    const shown = (await admin().outbox.search({ status: "sending", page: 1, pageSize: 25 })).messages.find((m) => m.id === retrying.id);
    expect(shown).toMatchObject({ status: "sending", attempts: 1, error: "421 try again later", nextAttemptAt: expect.any(Date) });
    expect((await admin().outbox.search({ status: "failed", page: 1, pageSize: 25 })).messages[0]).toMatchObject({ status: "failed", attempts: 8, error: "550 mailbox unavailable", nextAttemptAt: null });
  });

  it("refuses a search too long, with a sentence", async () => {
    const error = await trpcError(admin().outbox.search({ search: "x".repeat(201), page: 1, pageSize: 25 }));
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.message).toContain("Keep the search under 200 characters.");
  });

  it("is for admins only", async () => {
    expect((await trpcError(callerAs(t.database, p.support).outbox.search({ page: 1, pageSize: 25 }))).code).toBe("FORBIDDEN");
  });
});

describe("an invitation's link from the invitations list", () => {
  it("is shown for a pending invitation whose message is kept, audited as a reveal, and refused once withdrawn", async () => {
    const { id } = await admin().invitations.create({ email: "new@org-a.test", name: "New Person", role: "customer", organizationId: p.orgA });
    const listed = (await admin().invitations.list()).find((i) => i.id === id);
    expect(listed).toMatchObject({ status: "pending", linkKept: true });

    const { link } = await admin().invitations.revealLink({ invitationId: id });
    expect(link).toMatch(/^http:\/\/ferry\.test\/invite\/[A-Za-z0-9_-]{43}$/);
    expect(await t.db.select().from(auditEvents).where(eq(auditEvents.action, "outbox.link_revealed"))).toHaveLength(1);
    // The link works: it leads to the invitation.
    const token = link.split("/").pop()!;
    expect(await callerAs(t.database, null).invitations.lookup({ token })).toMatchObject({ status: "pending", email: "new@org-a.test" });

    await admin().invitations.revoke({ invitationId: id });
    expect((await admin().invitations.list()).find((i) => i.id === id)).toMatchObject({ status: "revoked", linkKept: false });
    const refused = await trpcError(admin().invitations.revealLink({ invitationId: id }));
    expect(refused).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("not kept") });
  });

  it("an unknown invitation is not found", async () => {
    expect((await trpcError(admin().invitations.revealLink({ invitationId: "no-such-invitation" }))).code).toBe("NOT_FOUND");
  });
});
