/**
 * Accounts on a real PostgreSQL server, in the PostgreSQL pass of the suite (vitest.pg.config.ts,
 * DATABASE_URL set to the test server): the file's own database is created there and migrated with
 * the committed PostgreSQL migrations. The parallel guesses really are parallel here: each
 * sign-in's transactions run on their own connection.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPostgres, postgresUrl, type Database } from "@/db/database";
import { createPgTestDb, type PgTestDb } from "@/server/testing/pg";
import { expectAddressLimitHoldsUnderParallelGuesses, expectEmailLimitHoldsUnderParallelGuesses } from "@/server/testing/sign-in-races";
import { seedPeople, TEST_PASSWORD } from "@/server/testing/test-db";
import { createOrganization, listOrganizations } from "@/server/accounts/organizations";
import { signIn } from "@/server/accounts/sign-in";
import { loadActor, setUserActive, changePassword, listUsers, getMe } from "@/server/accounts/users";
import { signOutEverywhere, sessionIsCurrent } from "@/server/accounts/sessions";
import { invite, listInvitations, revokeInvitation, lookupInvitation } from "@/server/accounts/invitations";
import { auditEvents, mailOutbox } from "@/db/schema";

const base = postgresUrl();
let pg: PgTestDb;
let database: Database;
beforeAll(async () => {
  if (!base) return;
  pg = await createPgTestDb();
  database = openPostgres(pg.url, { max: 20 });
});
afterAll(async () => {
  await database?.close();
  await pg?.close();
});

describe.runIf(base)("accounts on PostgreSQL", () => {
  it("lets only five of 50 parallel wrong guesses for one email reach the password check", async () => {
    await expectEmailLimitHoldsUnderParallelGuesses(database, 50);
  });
  it("lets only 30 of 60 parallel guesses from one address reach the password check", async () => {
    await expectAddressLimitHoldsUnderParallelGuesses(database, 60);
  });
  it("signs in, creates one of four same-named organisations at once, invites, revokes, deactivates, signs out, audited", async () => {
    const p = await seedPeople(database.db);
    const me = await signIn(database, { email: "admin@test", password: TEST_PASSWORD, address: "1.2.3.4" });
    expect(await loadActor(database, { userId: me.id, sessionVersion: me.sessionVersion })).toMatchObject({ id: p.admin.id });
    const same = await Promise.allSettled([1, 2, 3, 4].map(() => createOrganization(database, p.admin, { name: "Race Org" })));
    expect(same.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(same.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(Array(3).fill('An organisation named "Race Org" already exists.'));
    expect((await listOrganizations(database)).map((o) => o.name)).toContain("Race Org");
    const mail = { from: "f@test", log: () => {}, keyRing: undefined };
    const { id } = await invite({ database, mail, appUrl: "http://x" }, p.admin, { email: "new@org-a.test", name: "New", role: "customer", organizationId: p.orgA });
    const [m] = await database.db.select().from(mailOutbox);
    expect(m!.invitationId).toBe(id);
    expect((await listInvitations(database))[0]).toMatchObject({ id, status: "pending" });
    const { id: id2 } = await invite({ database, mail, appUrl: "http://x" }, p.admin, { email: "new2@org-a.test", name: "New2", role: "customer", organizationId: p.orgA });
    await revokeInvitation(database, p.admin, id2);
    await expect(revokeInvitation(database, p.admin, id2)).rejects.toThrow("already revoked");
    expect(await lookupInvitation(database, "nope")).toEqual({ status: "unknown" });
    await setUserActive(database, p.admin, { userId: p.support.id, active: false });
    expect(await sessionIsCurrent(database, { userId: p.support.id, sessionVersion: 0 })).toBe(false);
    await signOutEverywhere(database, p.admin, { userId: p.admin.id });
    await changePassword(database, p.customerA, { currentPassword: TEST_PASSWORD, newPassword: "another long password" });
    expect((await listUsers(database)).length).toBeGreaterThan(4);
    expect(await getMe(database, p.customerA)).toMatchObject({ organizationName: "Org A" });
    const actions = (await database.db.select().from(auditEvents)).map((a) => a.action).sort();
    expect(actions).toContain("user.deactivated");
    expect(actions).toContain("invitation.revoked");
  });
});
