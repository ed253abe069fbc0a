/**
 * Sessions end when their person's session version moves on. Every session token carries the
 * version its user had at sign-in; a request whose token carries another is treated as signed out.
 * The version moves on at sign-out, "sign out everywhere", password change and deactivation, so
 * each of these ends every session of that person at once, including copies of a stolen cookie.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { users } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { recordAudit, type DbOrTx } from "@/server/security/audit";

/** What a session token says about its person. */
export type SessionClaim = { userId: string; sessionVersion: number | undefined };

/** True while the claim's person is active and has not ended their sessions since it was issued. */
export function sessionIsCurrent(db: DbOrTx, claim: SessionClaim): boolean {
  if (typeof claim.sessionVersion !== "number") return false;
  const u = db.select({ active: users.active, sessionVersion: users.sessionVersion }).from(users).where(eq(users.id, claim.userId)).get();
  return !!u && u.active && u.sessionVersion === claim.sessionVersion;
}

/**
 * Ends every session of a person. With `ifVersion`, only if that is still the current version: a
 * sign-out with an old token must not end the sessions that came after it.
 */
export function endSessions(tx: DbOrTx, input: { userId: string; ifVersion?: number }): boolean {
  const ended = tx
    .update(users)
    .set({ sessionVersion: sql`${users.sessionVersion} + 1` })
    .where(
      and(eq(users.id, input.userId), input.ifVersion === undefined ? undefined : eq(users.sessionVersion, input.ifVersion)),
    )
    .returning({ id: users.id })
    .all();
  return ended.length > 0;
}

/** "Sign out everywhere": ends every session of a person. People may do it for themselves, admins for anyone. */
export function signOutEverywhere(db: Db, actor: Actor, input: { userId: string }): void {
  if (input.userId !== actor.id && actor.role !== "admin") {
    throw new AppError("FORBIDDEN", "Only admins can sign other people out.");
  }
  db.transaction((tx) => {
    const u = tx.select({ id: users.id, organizationId: users.organizationId }).from(users).where(eq(users.id, input.userId)).get();
    if (!u) throw new AppError("NOT_FOUND", "No such user.");
    endSessions(tx, { userId: u.id });
    recordAudit(tx, {
      actor,
      action: "user.sessions_ended",
      targetId: u.id,
      organizationId: u.organizationId,
      after: { by: input.userId === actor.id ? "self" : "admin" },
    });
  });
}
