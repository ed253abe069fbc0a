/** People: staff (admin, support) and customer users. */
import type { MailPreference } from "@/core/engagements/reminders";
import { and, asc, eq, inArray } from "drizzle-orm";
import { forUpdate, q, type Database, type Steps, type Tx } from "@/db/database";
import { organizations, users } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { hashPassword, passwordProblem, verifyPassword } from "@/server/security/passwords";
import type { Role } from "@/core/accounts/roles";
import type { Me, StaffMember, UserSummary } from "@/core/accounts/schemas";
import { endSessions, type SessionClaim } from "./sessions";

/** Normalises an email for storage and comparison. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Loads the actor of a session; null when the user is gone, deactivated, or has ended their
 * sessions since the token was issued (its session version is not the current one).
 */
export async function loadActor(database: Database, claim: SessionClaim): Promise<Actor | null> {
  const [u] = await database.db
    .select({
      id: users.id,
      email: users.email,
      name: users.name,
      role: users.role,
      organizationId: users.organizationId,
      active: users.active,
      sessionVersion: users.sessionVersion,
    })
    .from(users)
    .where(eq(users.id, claim.userId));
  if (!u || !u.active || u.sessionVersion !== claim.sessionVersion) return null;
  return { id: u.id, email: u.email, name: u.name, role: u.role, organizationId: u.organizationId };
}

/**
 * One user's name, role and whether they are active, or undefined (a transaction step).
 */
export function* findUser(tx: Tx, userId: string): Steps<{ id: string; name: string; role: Role; active: boolean } | undefined> {
  return yield* q.get(tx.select({ id: users.id, name: users.name, role: users.role, active: users.active }).from(users).where(eq(users.id, userId)));
}

/** True once an admin exists (the demo seed runs only on an empty database). */
export async function hasAdmin(database: Database): Promise<boolean> {
  const [admin] = await database.db.select({ id: users.id }).from(users).where(eq(users.role, "admin")).limit(1);
  return !!admin;
}

/** Creates a user who can sign in at once (demo data and tests; people otherwise arrive by invitation). */
export async function createUserWithPassword(
  database: Database,
  input: { email: string; name: string; role: Role; organizationId: string | null; password: string },
): Promise<Actor> {
  const { password, ...rest } = input;
  return createUserWithPasswordHash(database, { ...rest, passwordHash: await hashPassword(password) });
}

/** Creates a user with a password hashed before (tests seed many people with one hash of the same password). */
export async function createUserWithPasswordHash(
  database: Database,
  input: { email: string; name: string; role: Role; organizationId: string | null; passwordHash: string },
): Promise<Actor> {
  const { passwordHash } = input;
  const [u] = await database.db
    .insert(users)
    .values({ email: normalizeEmail(input.email), name: input.name, role: input.role, organizationId: input.organizationId, passwordHash })
    .returning();
  if (!u) throw new Error("The new user was not returned.");
  return { id: u.id, email: u.email, name: u.name, role: u.role, organizationId: u.organizationId };
}

/** The signed-in user with their organisation's name. */
export async function getMe(database: Database, actor: Actor): Promise<Me> {
  const [org] = actor.organizationId
    ? await database.db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, actor.organizationId))
    : [];
  return { ...actor, organizationName: org?.name ?? null };
}

/** Active staff, for owner pickers. */
export async function listActiveStaff(database: Database): Promise<StaffMember[]> {
  return (await listUsers(database, { roles: ["admin", "support"] }))
    .filter((u) => u.active)
    .map(({ id, name, email, role }) => ({ id, name, email, role }));
}

/** Every user, staff first, then by name. */
export async function listUsers(database: Database, filter: { roles?: Role[]; organizationId?: string } = {}): Promise<UserSummary[]> {
  const where = and(
    filter.roles?.length ? inArray(users.role, filter.roles) : undefined,
    filter.organizationId ? eq(users.organizationId, filter.organizationId) : undefined,
  );
  const rows = await database.db
    .select({ u: users, orgName: organizations.name })
    .from(users)
    .leftJoin(organizations, eq(organizations.id, users.organizationId))
    .where(where)
    .orderBy(asc(users.name));
  const rank: Record<Role, number> = { admin: 0, support: 1, customer: 2 };
  return rows
    .map(({ u, orgName }) => ({
      id: u.id,
      email: u.email,
      name: u.name,
      role: u.role,
      organizationId: u.organizationId,
      organizationName: orgName ?? null,
      active: u.active,
      lastSignInAt: u.lastSignInAt,
      createdAt: u.createdAt,
    }))
    .sort((a, b) => rank[a.role] - rank[b.role]);
}

/** Deactivates or reactivates a user; deactivating ends their sessions, so their next request is refused. */
export async function setUserActive(database: Database, actor: Actor, input: { userId: string; active: boolean }): Promise<void> {
  if (input.userId === actor.id && !input.active) {
    throw new AppError("PRECONDITION_FAILED", "You cannot deactivate yourself.");
  }
  // "Check, then change" on a row that exists: locking it makes a second admin's same change wait,
  // then see it done (no second audit event).
  await database.transaction(
    function* (tx) {
      const u = yield* q.get(forUpdate(tx.select().from(users).where(eq(users.id, input.userId))));
      if (!u) throw new AppError("NOT_FOUND", "No such user.");
      if (u.active === input.active) return;
      yield* q.run(tx.update(users).set({ active: input.active }).where(eq(users.id, u.id)));
      if (!input.active) yield* endSessions(tx, { userId: u.id });
      yield* writeAudit(tx, {
        actor,
        action: input.active ? "user.reactivated" : "user.deactivated",
        targetId: u.id,
        organizationId: u.organizationId,
        before: { active: u.active },
        after: { active: input.active },
      });
    },
    { isolation: "read committed" },
  );
}

/**
 * Changes the signed-in person's password after checking the current one, and ends every session
 * of theirs (this one included): whoever knew the old password is signed out.
 */
export async function changePassword(database: Database, actor: Actor, input: { currentPassword: string; newPassword: string }): Promise<void> {
  const problem = passwordProblem(input.newPassword);
  if (problem) throw new AppError("BAD_INPUT", problem, { fields: { newPassword: problem } });
  const [row] = await database.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, actor.id));
  const ok = !!row?.passwordHash && input.currentPassword.length <= 200 && (await verifyPassword(input.currentPassword, row.passwordHash));
  if (!ok) {
    const message = "That is not your current password.";
    throw new AppError("BAD_INPUT", message, { fields: { currentPassword: message } });
  }
  // Hashing is slow: it happens before the transaction, which only writes.
  const passwordHash = await hashPassword(input.newPassword);
  await database.transaction(
    function* (tx) {
      yield* q.run(tx.update(users).set({ passwordHash }).where(eq(users.id, actor.id)));
      yield* endSessions(tx, { userId: actor.id });
      yield* writeAudit(tx, { actor, action: "user.password_changed", targetId: actor.id, organizationId: actor.organizationId });
    },
    { isolation: "read committed" },
  );
}

/** Which mail the signed-in person wants (core/engagements/reminders.ts). */
export async function getMailPreference(database: Database, actor: Actor): Promise<{ preference: MailPreference }> {
  const [row] = await database.db.select({ preference: users.mailPreference }).from(users).where(eq(users.id, actor.id));
  return { preference: (row?.preference ?? "every") as MailPreference };
}

/** Sets which mail the signed-in person wants; mail that needs them to act goes whatever they choose. */
export async function setMailPreference(database: Database, actor: Actor, input: { preference: MailPreference }): Promise<{ preference: MailPreference }> {
  await database.db.update(users).set({ mailPreference: input.preference }).where(eq(users.id, actor.id));
  return { preference: input.preference };
}
