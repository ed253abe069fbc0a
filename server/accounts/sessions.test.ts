import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, users } from "@/db/schema";
import { callerAs, trpcError } from "@/server/testing/caller";
import { createTestDb, seedPeople, TEST_PASSWORD, type People, type TestDb } from "@/server/testing/test-db";
import { endSessions, sessionIsCurrent } from "./sessions";
import { signIn } from "./sign-in";
import { loadActor } from "./users";

let t: TestDb;
let p: People;
beforeEach(async () => {
  t = createTestDb();
  p = await seedPeople(t.db);
});
afterEach(() => t.close());

/** Signs in and returns what the session token would carry. */
async function session(email: string, password = TEST_PASSWORD) {
  const person = await signIn(t.db, { email, password, address: null });
  return { userId: person.id, sessionVersion: person.sessionVersion };
}

describe("sessions", () => {
  it("a session works until its person signs out everywhere; a new sign-in works again", async () => {
    const claim = await session("support@test");
    expect(loadActor(t.db, claim)).toMatchObject({ id: p.support.id });
    await callerAs(t.db, p.support).me.signOutEverywhere();
    expect(loadActor(t.db, claim)).toBeNull();
    expect(sessionIsCurrent(t.db, claim)).toBe(false);
    const fresh = await session("support@test");
    expect(loadActor(t.db, fresh)).toMatchObject({ id: p.support.id });
  });

  it("a token without a session version is refused", () => {
    expect(loadActor(t.db, { userId: p.support.id, sessionVersion: undefined })).toBeNull();
    expect(sessionIsCurrent(t.db, { userId: p.support.id, sessionVersion: undefined })).toBe(false);
  });

  it("signing out with an old token does not end the sessions that came after it", async () => {
    const old = await session("support@test");
    endSessions(t.db, { userId: p.support.id });
    const current = await session("support@test");
    expect(endSessions(t.db, { userId: p.support.id, ifVersion: old.sessionVersion })).toBe(false);
    expect(loadActor(t.db, current)).not.toBeNull();
  });

  it("admins sign anyone out everywhere, audited; others only themselves", async () => {
    const claim = await session("a@org-a.test");
    const refused = await trpcError(callerAs(t.db, p.customerB).users.signOutEverywhere({ userId: p.customerA.id }));
    expect(refused.code).toBe("FORBIDDEN");
    expect(loadActor(t.db, claim)).not.toBeNull();
    await callerAs(t.db, p.admin).users.signOutEverywhere({ userId: p.customerA.id });
    expect(loadActor(t.db, claim)).toBeNull();
    const audit = t.db.select().from(auditEvents).where(eq(auditEvents.action, "user.sessions_ended")).all();
    expect(audit).toMatchObject([{ actorId: p.admin.id, targetId: p.customerA.id, after: { by: "admin" } }]);
  });

  it("an unknown user cannot be signed out", async () => {
    expect((await trpcError(callerAs(t.db, p.admin).users.signOutEverywhere({ userId: "nobody" }))).code).toBe("NOT_FOUND");
  });

  it("deactivation ends a person's sessions", async () => {
    const claim = await session("support2@test");
    await callerAs(t.db, p.admin).users.setActive({ userId: p.support2.id, active: false });
    await callerAs(t.db, p.admin).users.setActive({ userId: p.support2.id, active: true });
    expect(loadActor(t.db, claim)).toBeNull();
  });

  it("changing the password checks the current one, then ends every session", async () => {
    const claim = await session("support@test");
    const me = callerAs(t.db, p.support).me;
    const wrong = await trpcError(me.changePassword({ currentPassword: "not my password", newPassword: "a brand new password" }));
    expect(wrong).toMatchObject({ code: "BAD_REQUEST", message: "That is not your current password." });
    const short = await trpcError(me.changePassword({ currentPassword: TEST_PASSWORD, newPassword: "short" }));
    expect(short.code).toBe("BAD_REQUEST");
    expect(loadActor(t.db, claim)).not.toBeNull();

    await me.changePassword({ currentPassword: TEST_PASSWORD, newPassword: "a brand new password" });
    expect(loadActor(t.db, claim)).toBeNull();
    await expect(signIn(t.db, { email: "support@test", password: TEST_PASSWORD, address: null })).rejects.toThrow("Wrong email or password.");
    expect(loadActor(t.db, await session("support@test", "a brand new password"))).not.toBeNull();
    const row = t.db.select().from(auditEvents).where(eq(auditEvents.action, "user.password_changed")).get();
    expect(JSON.stringify(row)).not.toContain("a brand new password");
  });

  it("the session version starts at 0 and only moves forward", async () => {
    const before = t.db.select({ v: users.sessionVersion }).from(users).where(eq(users.id, p.admin.id)).get()!.v;
    endSessions(t.db, { userId: p.admin.id });
    endSessions(t.db, { userId: p.admin.id });
    expect(t.db.select({ v: users.sessionVersion }).from(users).where(eq(users.id, p.admin.id)).get()!.v).toBe(before + 2);
  });
});
