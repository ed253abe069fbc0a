/** People, organisations, invitations and the outbox through createCaller on a real database.
 *
 * Its tests tagged both-databases run on PostgreSQL too: organisations and invitations asked for at once (serializable checks on PostgreSQL).
 */
import { count, desc, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, invitations, mailOutbox, organizations, users } from "@/db/schema";
import { invite } from "@/server/accounts/invitations";
import { signIn } from "@/server/accounts/sign-in";
import { HIDDEN_LINK, mailAad } from "@/server/mail/mailer";
import { deliverDueMail } from "@/server/mail/sender";
import { decryptSecret } from "@/server/security/secrets";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase } from "@/server/testing/test-db";
import { callerAs, testConfig, trpcError } from "../../testing/caller";

let t: TestDatabase;
let p: People;
let log: string[];

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  log = [];
});
afterEach(() => t.close());

const admin = () => callerAs(t.database, p.admin, testConfig(log));
const anonymous = () => callerAs(t.database, null, testConfig(log));

/**
 * The one-time token from the newest invitation mail, read from its sealed copy (the stored text
 * hides it; admins reveal it with outbox.revealLink, which refuses once the invitation expired).
 */
async function tokenFromOutbox(): Promise<string> {
  const [mail] = await t.db.select().from(mailOutbox).orderBy(desc(mailOutbox.createdAt)).limit(1);
  const text = mail?.sealedText ? decryptSecret(TEST_KEY_RING, mail.sealedText, mailAad(mail.id)) : "";
  const match = text.match(/\/invite\/([A-Za-z0-9_-]+)/);
  if (!match?.[1]) throw new Error("no invitation link in the outbox");
  return match[1];
}

describe("organisations", () => {
  it("creates one, and refuses a duplicate name regardless of case with a field error", async () => {
    await admin().organizations.create({ name: "Zeta Finance" });
    const error = await trpcError(admin().organizations.create({ name: "  zeta   FINANCE " }));
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.cause).toMatchObject({ fields: { name: expect.stringContaining("already exists") } });
    const list = await callerAs(t.database, p.support).organizations.list();
    expect(list.filter((o) => o.name.toLowerCase() === "zeta finance")).toHaveLength(1);
  });

  it("creates one of eight same-named organisations asked for at once; the others are told it exists", { tags: ["both-databases"] }, async () => {
    // On PostgreSQL each request runs on a connection of its own: the check is serializable, so the losers run again and find the winner's.
    const names = ["Race Org", "race org", "RACE ORG", " Race  Org ", "Race Org", "race org", "RACE ORG", " Race  Org "];
    // Connections opened first (queries at once each take one), so the requests do not queue behind their opening.
    await Promise.all(names.map(() => t.db.select().from(organizations)));
    const tries = await Promise.allSettled(names.map((name) => admin().organizations.create({ name })));
    expect(tries.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = tries.filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => r.reason as { code: string; message: string });
    expect(refused).toHaveLength(names.length - 1);
    for (const error of refused) expect(error).toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/^An organisation named ".+" already exists\.$/) });
    expect((await callerAs(t.database, p.support).organizations.list()).filter((o) => o.name.toLowerCase() === "race org")).toHaveLength(1);
    expect(await t.db.select().from(auditEvents).where(eq(auditEvents.action, "organization.created"))).toHaveLength(2 + 1);
  });

  it("refuses an empty name", async () => {
    const error = await trpcError(admin().organizations.create({ name: "   " }));
    expect(error.code).toBe("BAD_REQUEST");
  });
});

describe("invitations", () => {
  it("invites a customer, mails a one-time link to the outbox, and the invitee sets a password and can sign in", async () => {
    await admin().invitations.create({ email: "New.Person@Org-A.test", name: "New Person", role: "customer", organizationId: p.orgA });
    // Queued with the invitation; the worker's sender delivers it.
    expect(await deliverDueMail({ database: t.database, mail: testConfig(log).mail })).toMatchObject({ sent: 1 });
    const [mail] = await admin().outbox.list();
    expect(mail).toMatchObject({ to: "new.person@org-a.test", subject: "You're invited to Ferry for Org A", transport: "outbox" });
    expect(mail!.sentAt).toBeInstanceOf(Date);
    expect(log[0]).toContain("[mail] to=new.person@org-a.test");
    const token = await tokenFromOutbox();
    // The list hides the link; an admin reveals it while the invitation is pending.
    expect(mail!.text).toContain(HIDDEN_LINK);
    expect(mail!.text).not.toContain(token);
    expect(mail!.canRevealLink).toBe(true);
    expect((await admin().outbox.revealLink({ id: mail!.id })).text).toContain(`http://ferry.test/invite/${token}`);

    // The token is stored only as a hash.
    const stored = (await t.db.select().from(invitations).limit(1))[0]!;
    expect(stored.tokenHash).not.toContain(token);

    expect(await anonymous().invitations.lookup({ token })).toEqual({
      status: "pending",
      email: "new.person@org-a.test",
      name: "New Person",
      role: "customer",
      organizationName: "Org A",
    });

    await anonymous().invitations.accept({ token, name: "Nova Person", password: "a long enough password" });
    const actor = await signIn(t.database, { email: "NEW.person@org-a.test", password: "a long enough password" });
    expect(actor).toMatchObject({ name: "Nova Person", role: "customer", organizationId: p.orgA });
    const user = (await t.db.select().from(users).where(eq(users.email, "new.person@org-a.test")).limit(1))[0]!;
    expect(user.passwordHash).toMatch(/^scrypt\$/);
    expect(user.passwordHash).not.toContain("a long enough password");

    // The link works once.
    expect(await anonymous().invitations.lookup({ token })).toMatchObject({ status: "accepted", message: expect.stringContaining("already been used") });
    const again = await trpcError(anonymous().invitations.accept({ token, name: "X", password: "another long password" }));
    expect(again.code).toBe("PRECONDITION_FAILED");
    expect(again.message).toContain("already been used");
  });

  it("refuses an email that already belongs to a user, clearly, and sends nothing", async () => {
    const error = await trpcError(admin().invitations.create({ email: "A@org-a.test", name: "Dup", role: "customer", organizationId: p.orgA }));
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.cause).toMatchObject({ fields: { email: "A user with the email a@org-a.test already exists." } });
    expect((await t.db.select({ n: count() }).from(mailOutbox))[0]!.n).toBe(0);
    expect((await t.db.select({ n: count() }).from(invitations))[0]!.n).toBe(0);
  });

  it.each([
    [{ email: "not-an-email", name: "X", role: "customer" as const }, "email"],
    [{ email: "x@y.test", name: " ", role: "customer" as const }, "name"],
  ])("rejects bad input %j with a field error on %s", async (input, field) => {
    const error = await trpcError(admin().invitations.create({ ...input, organizationId: p.orgA }));
    expect(error.code).toBe("BAD_REQUEST");
    const fields = (error.cause as { fields?: Record<string, string>; issues?: { path: string[] }[] });
    const named = fields.fields ? Object.keys(fields.fields) : (fields.issues ?? []).map((i) => i.path[0]);
    expect(named).toContain(field);
  });

  it("requires an organisation for customers and none for staff", async () => {
    const noOrg = await trpcError(admin().invitations.create({ email: "c@x.test", name: "C", role: "customer" }));
    expect(noOrg.cause).toMatchObject({ fields: { organizationId: "Choose the customer's organisation." } });
    const staffWithOrg = await trpcError(admin().invitations.create({ email: "s@x.test", name: "S", role: "support", organizationId: p.orgA }));
    expect(staffWithOrg.cause).toMatchObject({ fields: { organizationId: expect.any(String) } });
  });

  it("a link used eight times at once creates one user; the others are told it was used", { tags: ["both-databases"] }, async () => {
    await admin().invitations.create({ email: "racer@org-a.test", name: "Racer", role: "customer", organizationId: p.orgA });
    const token = await tokenFromOutbox();
    const uses = Array.from({ length: 8 }, (_, i) => i);
    await Promise.all(uses.map(() => t.db.select().from(users)));
    const tries = await Promise.allSettled(uses.map(() => anonymous().invitations.accept({ token, name: "Racer", password: "a long enough password" })));
    expect(tries.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of tries.filter((r): r is PromiseRejectedResult => r.status === "rejected")) {
      expect(r.reason).toMatchObject({ code: "PRECONDITION_FAILED", message: expect.stringContaining("already been used") });
    }
    expect(await t.db.select().from(users).where(eq(users.email, "racer@org-a.test"))).toHaveLength(1);
    expect(await t.db.select().from(auditEvents).where(eq(auditEvents.action, "invitation.accepted"))).toHaveLength(1);
  });

  it("invites staff without an organisation", async () => {
    await admin().invitations.create({ email: "newstaff@ferry.test", name: "New Staff", role: "support" });
    const token = await tokenFromOutbox();
    await anonymous().invitations.accept({ token, name: "New Staff", password: "staff password 123" });
    expect((await signIn(t.database, { email: "newstaff@ferry.test", password: "staff password 123" })).role).toBe("support");
  });

  it("an expired link says so and cannot be used", async () => {
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    await invite({ database: t.database, mail: testConfig(log).mail, appUrl: "http://ferry.test" }, p.admin, { email: "late@org-a.test", name: "Late", role: "customer", organizationId: p.orgA }, eightDaysAgo);
    const token = await tokenFromOutbox();
    expect(await anonymous().invitations.lookup({ token })).toMatchObject({ status: "expired", message: expect.stringContaining("expired") });
    const error = await trpcError(anonymous().invitations.accept({ token, name: "Late", password: "long enough password" }));
    expect(error.message).toContain("expired");
    expect((await t.db.select().from(users).where(eq(users.email, "late@org-a.test")).limit(1))[0]).toBeUndefined();
  });

  it("a revoked or superseded link says so; an unknown one is not valid", async () => {
    await admin().invitations.create({ email: "twice@org-a.test", name: "Twice", role: "customer", organizationId: p.orgA });
    const first = await tokenFromOutbox();
    await admin().invitations.create({ email: "twice@org-a.test", name: "Twice", role: "customer", organizationId: p.orgA });
    const second = await tokenFromOutbox();
    expect(await anonymous().invitations.lookup({ token: first })).toMatchObject({ status: "revoked" });
    const [latest] = await admin().invitations.list();
    await admin().invitations.revoke({ invitationId: latest!.id });
    expect(await anonymous().invitations.lookup({ token: second })).toMatchObject({ status: "revoked" });
    expect(await anonymous().invitations.lookup({ token: "never-issued-token" })).toMatchObject({ status: "unknown", message: "This invitation link is not valid." });
    const again = await trpcError(admin().invitations.revoke({ invitationId: latest!.id }));
    expect(again.code).toBe("PRECONDITION_FAILED");
  });

  it("a weak password is refused with a field error and the link stays usable", async () => {
    await admin().invitations.create({ email: "weak@org-a.test", name: "Weak", role: "customer", organizationId: p.orgA });
    const token = await tokenFromOutbox();
    const error = await trpcError(anonymous().invitations.accept({ token, name: "Weak", password: "short" }));
    expect(error.cause).toMatchObject({ fields: { password: expect.stringContaining("at least 10 characters") } });
    expect(await anonymous().invitations.lookup({ token })).toMatchObject({ status: "pending" });
  });

  it("records invitations in the audit log without the token", async () => {
    await admin().invitations.create({ email: "audit@org-a.test", name: "Audit", role: "customer", organizationId: p.orgA });
    const token = await tokenFromOutbox();
    const events = await t.db.select().from(auditEvents);
    expect(events.some((e) => e.action === "invitation.created")).toBe(true);
    expect(JSON.stringify(events)).not.toContain(token);
  });
});

describe("users", () => {
  it("lists everyone for admins, staff for owner pickers", async () => {
    expect((await admin().users.list()).map((u) => u.role)).toEqual(["admin", "support", "support", "customer", "customer"]);
    expect((await callerAs(t.database, p.support).users.staff()).map((u) => u.name).sort()).toEqual(["Admin", "Support One", "Support Two"]);
  });

  it("an admin cannot deactivate themself", async () => {
    const error = await trpcError(admin().users.setActive({ userId: p.admin.id, active: false }));
    expect(error.code).toBe("PRECONDITION_FAILED");
  });

  it("me.get names the customer's organisation", async () => {
    expect(await callerAs(t.database, p.customerA).me.get()).toMatchObject({ role: "customer", organizationName: "Org A" });
  });
});
