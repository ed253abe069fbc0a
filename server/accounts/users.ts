/** People: staff (admin, support) and customer users. */
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db/client";
import { organizations, users } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
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
export function loadActor(db: Db, claim: SessionClaim): Actor | null {
  const u = db
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
    .where(eq(users.id, claim.userId))
    .get();
  if (!u || !u.active || u.sessionVersion !== claim.sessionVersion) return null;
  return { id: u.id, email: u.email, name: u.name, role: u.role, organizationId: u.organizationId };
}

/** One user's name, role and whether they are active, or undefined. */
export function findUser(tx: DbOrTx, userId: string): { id: string; name: string; role: Role; active: boolean } | undefined {
  return tx.select({ id: users.id, name: users.name, role: users.role, active: users.active }).from(users).where(eq(users.id, userId)).get();
}

/** True once an admin exists (the demo seed runs only on an empty database). */
export function hasAdmin(db: Db): boolean {
  return !!db.select({ id: users.id }).from(users).where(eq(users.role, "admin")).get();
}

/** Creates a user who can sign in at once (demo data and tests; people otherwise arrive by invitation). */
export async function createUserWithPassword(
  db: Db,
  input: { email: string; name: string; role: Role; organizationId: string | null; password: string },
): Promise<Actor> {
  const passwordHash = await hashPassword(input.password);
  const u = db
    .insert(users)
    .values({ email: normalizeEmail(input.email), name: input.name, role: input.role, organizationId: input.organizationId, passwordHash })
    .returning()
    .get();
  return { id: u.id, email: u.email, name: u.name, role: u.role, organizationId: u.organizationId };
}

/** The signed-in user with their organisation's name. */
export function getMe(db: Db, actor: Actor): Me {
  const org = actor.organizationId
    ? db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, actor.organizationId)).get()
    : undefined;
  return { ...actor, organizationName: org?.name ?? null };
}

/** Active staff, for owner pickers. */
export function listActiveStaff(db: Db): StaffMember[] {
  return listUsers(db, { roles: ["admin", "support"] })
    .filter((u) => u.active)
    .map(({ id, name, email, role }) => ({ id, name, email, role }));
}

/** Every user, staff first, then by name. */
export function listUsers(db: Db, filter: { roles?: Role[]; organizationId?: string } = {}): UserSummary[] {
  const where = and(
    filter.roles?.length ? inArray(users.role, filter.roles) : undefined,
    filter.organizationId ? eq(users.organizationId, filter.organizationId) : undefined,
  );
  const rows = db
    .select({ u: users, orgName: organizations.name })
    .from(users)
    .leftJoin(organizations, eq(organizations.id, users.organizationId))
    .where(where)
    .orderBy(asc(users.name))
    .all();
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
export function setUserActive(db: Db, actor: Actor, input: { userId: string; active: boolean }): void {
  if (input.userId === actor.id && !input.active) {
    throw new AppError("PRECONDITION_FAILED", "You cannot deactivate yourself.");
  }
  db.transaction((tx) => {
    const u = tx.select().from(users).where(eq(users.id, input.userId)).get();
    if (!u) throw new AppError("NOT_FOUND", "No such user.");
    if (u.active === input.active) return;
    tx.update(users).set({ active: input.active }).where(eq(users.id, u.id)).run();
    if (!input.active) endSessions(tx, { userId: u.id });
    recordAudit(tx, {
      actor,
      action: input.active ? "user.reactivated" : "user.deactivated",
     
      targetId: u.id,
      organizationId: u.organizationId,
      before: { active: u.active },
      after: { active: input.active },
    });
  });
}

/**
 * Changes the signed-in person's password after checking the current one, and ends every session
 * of theirs (this one included): whoever knew the old password is signed out.
 */
export async function changePassword(db: Db, actor: Actor, input: { currentPassword: string; newPassword: string }): Promise<void> {
  const problem = passwordProblem(input.newPassword);
  if (problem) throw new AppError("BAD_INPUT", problem, { fields: { newPassword: problem } });
  const row = db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, actor.id)).get();
  const ok = !!row?.passwordHash && input.currentPassword.length <= 200 && (await verifyPassword(input.currentPassword, row.passwordHash));
  if (!ok) {
    const message = "That is not your current password.";
    throw new AppError("BAD_INPUT", message, { fields: { currentPassword: message } });
  }
  // Hash outside the transaction (better-sqlite3 transactions must stay synchronous).
  const passwordHash = await hashPassword(input.newPassword);
  db.transaction((tx) => {
    tx.update(users).set({ passwordHash }).where(eq(users.id, actor.id)).run();
    endSessions(tx, { userId: actor.id });
    recordAudit(tx, { actor, action: "user.password_changed", targetId: actor.id, organizationId: actor.organizationId });
  });
}
