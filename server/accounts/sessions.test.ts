/**
 * Runs on both databases: session versions written and compared by the repository.
 * @module-tag both-databases
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { auditEvents, users } from "@/db/schema";
import { callerAs, trpcError } from "@/server/testing/caller";
import { createTestDatabase, seedPeople, TEST_PASSWORD, type People, type TestDatabase } from "@/server/testing/test-db";
import { endSessions, sessionIsCurrent, signOut } from "./sessions";
import { signIn } from "./sign-in";
import { loadActor } from "./users";

let t: TestDatabase;
let p: People;
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t?.close());

/** Signs in and returns what the session token would carry. */
async function session(email: string, password = TEST_PASSWORD) {
  const person = await signIn(t.database, { email, password, address: null });
  return { userId: person.id, sessionVersion: person.sessionVersion };
}

/** Ends every session of a person, as a transaction of its own. */
const endAll = (userId: string) => t.database.transaction((tx) => endSessions(tx, { userId }), { isolation: "read committed" });

const sessionVersionOf = async (userId: string) => (await t.database.db.select({ v: users.sessionVersion }).from(users).where(eq(users.id, userId)))[0]!.v;

describe("sessions", () => {
  it("a session works until its person signs out everywhere; a new sign-in works again", async () => {
    const claim = await session("support@test");
    expect(await loadActor(t.database, claim)).toMatchObject({ id: p.support.id });
    await callerAs(t.database, p.support).me.signOutEverywhere();
    expect(await loadActor(t.database, claim)).toBeNull();
    expect(await sessionIsCurrent(t.database, claim)).toBe(false);
    const fresh = await session("support@test");
    expect(await loadActor(t.database, fresh)).toMatchObject({ id: p.support.id });
  });

  it("a token without a session version is refused", async () => {
    expect(await loadActor(t.database, { userId: p.support.id, sessionVersion: undefined })).toBeNull();
    expect(await sessionIsCurrent(t.database, { userId: p.support.id, sessionVersion: undefined })).toBe(false);
  });

  it("signing out with an old token does not end the sessions that came after it", async () => {
    const old = await session("support@test");
    await endAll(p.support.id);
    const current = await session("support@test");
    expect(await signOut(t.database, { userId: p.support.id, ifVersion: old.sessionVersion })).toBe(false);
    expect(await loadActor(t.database, current)).not.toBeNull();
  });

  it("admins sign anyone out everywhere, audited; others only themselves", async () => {
    const claim = await session("a@org-a.test");
    const refused = await trpcError(callerAs(t.database, p.customerB).users.signOutEverywhere({ userId: p.customerA.id }));
    expect(refused.code).toBe("FORBIDDEN");
    expect(await loadActor(t.database, claim)).not.toBeNull();
    await callerAs(t.database, p.admin).users.signOutEverywhere({ userId: p.customerA.id });
    expect(await loadActor(t.database, claim)).toBeNull();
    const audit = await t.database.db.select().from(auditEvents).where(eq(auditEvents.action, "user.sessions_ended"));
    expect(audit).toMatchObject([{ actorId: p.admin.id, targetId: p.customerA.id, after: { by: "admin" } }]);
  });

  it("an unknown user cannot be signed out", async () => {
    expect((await trpcError(callerAs(t.database, p.admin).users.signOutEverywhere({ userId: "nobody" }))).code).toBe("NOT_FOUND");
  });

  it("deactivation ends a person's sessions", async () => {
    const claim = await session("support2@test");
    await callerAs(t.database, p.admin).users.setActive({ userId: p.support2.id, active: false });
    await callerAs(t.database, p.admin).users.setActive({ userId: p.support2.id, active: true });
    expect(await loadActor(t.database, claim)).toBeNull();
  });

  it("changing the password checks the current one, then ends every session", async () => {
    const claim = await session("support@test");
    const me = callerAs(t.database, p.support).me;
    const wrong = await trpcError(me.changePassword({ currentPassword: "not my password", newPassword: "a brand new password" }));
    expect(wrong).toMatchObject({ code: "BAD_REQUEST", message: "That is not your current password." });
    const short = await trpcError(me.changePassword({ currentPassword: TEST_PASSWORD, newPassword: "short" }));
    expect(short.code).toBe("BAD_REQUEST");
    expect(await loadActor(t.database, claim)).not.toBeNull();

    await me.changePassword({ currentPassword: TEST_PASSWORD, newPassword: "a brand new password" });
    expect(await loadActor(t.database, claim)).toBeNull();
    await expect(signIn(t.database, { email: "support@test", password: TEST_PASSWORD, address: null })).rejects.toThrow("Wrong email or password.");
    expect(await loadActor(t.database, await session("support@test", "a brand new password"))).not.toBeNull();
    const [row] = await t.database.db.select().from(auditEvents).where(eq(auditEvents.action, "user.password_changed"));
    expect(JSON.stringify(row)).not.toContain("a brand new password");
  });

  it("the session version starts at 0 and only moves forward", async () => {
    const before = await sessionVersionOf(p.admin.id);
    await endAll(p.admin.id);
    await endAll(p.admin.id);
    expect(await sessionVersionOf(p.admin.id)).toBe(before + 2);
  });
});
