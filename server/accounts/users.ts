/** People: staff (admin, support) and customer users. */
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db/client";
import { organizations, users, type Role } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { Actor } from "@/server/security/actor";
import { recordAudit } from "@/server/security/audit";

export type UserSummary = {
  id: string;
  email: string;
  name: string;
  role: Role;
  organizationId: string | null;
  organizationName: string | null;
  active: boolean;
  lastSignInAt: Date | null;
  createdAt: Date;
};

/** Normalises an email for storage and comparison. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Loads the actor for a session's user id; null when the user is gone or deactivated. */
export function loadActor(db: Db, userId: string): Actor | null {
  const u = db
    .select({ id: users.id, email: users.email, name: users.name, role: users.role, organizationId: users.organizationId, active: users.active })
    .from(users)
    .where(eq(users.id, userId))
    .get();
  if (!u || !u.active) return null;
  return { id: u.id, email: u.email, name: u.name, role: u.role, organizationId: u.organizationId };
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

/** Deactivates or reactivates a user; their next request sees the change. */
export function setUserActive(db: Db, actor: Actor, input: { userId: string; active: boolean }): void {
  if (input.userId === actor.id && !input.active) {
    throw new AppError("PRECONDITION_FAILED", "You cannot deactivate yourself.");
  }
  db.transaction((tx) => {
    const u = tx.select().from(users).where(eq(users.id, input.userId)).get();
    if (!u) throw new AppError("NOT_FOUND", "No such user.");
    if (u.active === input.active) return;
    tx.update(users).set({ active: input.active }).where(eq(users.id, u.id)).run();
    recordAudit(tx, {
      actor,
      action: input.active ? "user.reactivated" : "user.deactivated",
      targetType: "user",
      targetId: u.id,
      organizationId: u.organizationId,
      before: { active: u.active },
      after: { active: input.active },
    });
  });
}
