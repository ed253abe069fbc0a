/**
 * Sessions end when their person's session version moves on. Every session token carries the
 * version its user had at sign-in; a request whose token carries another is treated as signed out.
 * The version moves on at sign-out, "sign out everywhere", password change and deactivation, so
 * each of these ends every session of that person at once, including copies of a stolen cookie.
 */
import { and, eq, sql } from "drizzle-orm";
import { q, type Database, type Steps, type Tx } from "@/db/database";
import { users } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";

/** What a session token says about its person. */
export type SessionClaim = { userId: string; sessionVersion: number | undefined };

/** True while the claim's person is active and has not ended their sessions since it was issued. */
export async function sessionIsCurrent(database: Database, claim: SessionClaim): Promise<boolean> {
  if (typeof claim.sessionVersion !== "number") return false;
  const [u] = await database.db
    .select({ active: users.active, sessionVersion: users.sessionVersion })
    .from(users)
    .where(eq(users.id, claim.userId));
  return !!u && u.active && u.sessionVersion === claim.sessionVersion;
}

/**
 * Ends every session of a person (a transaction step). With `ifVersion`, only if that is still the
 * current version: a sign-out with an old token must not end the sessions that came after it.
 * One conditional increment, so it needs no more than read committed.
 */
export function* endSessions(tx: Tx, input: { userId: string; ifVersion?: number }): Steps<boolean> {
  const ended = yield* q.all(
    tx
      .update(users)
      .set({ sessionVersion: sql`${users.sessionVersion} + 1` })
      .where(and(eq(users.id, input.userId), input.ifVersion === undefined ? undefined : eq(users.sessionVersion, input.ifVersion)))
      .returning({ id: users.id }),
  );
  return ended.length > 0;
}

/** Signing out: ends the person's sessions if the token's version is still the current one. */
export function signOut(database: Database, input: { userId: string; ifVersion: number }): Promise<boolean> {
  return database.transaction((tx) => endSessions(tx, input), { isolation: "read committed" });
}

/** "Sign out everywhere": ends every session of a person. People may do it for themselves, admins for anyone. */
export async function signOutEverywhere(database: Database, actor: Actor, input: { userId: string }): Promise<void> {
  if (input.userId !== actor.id && actor.role !== "admin") {
    throw new AppError("FORBIDDEN", "Only admins can sign other people out.");
  }
  // Read committed: the increment is atomic, and a person is never deleted between the read and it.
  await database.transaction(
    function* (tx) {
      const u = yield* q.get(tx.select({ id: users.id, organizationId: users.organizationId }).from(users).where(eq(users.id, input.userId)));
      if (!u) throw new AppError("NOT_FOUND", "No such user.");
      yield* endSessions(tx, { userId: u.id });
      yield* writeAudit(tx, {
        actor,
        action: "user.sessions_ended",
        targetId: u.id,
        organizationId: u.organizationId,
        after: { by: input.userId === actor.id ? "self" : "admin" },
      });
    },
    { isolation: "read committed" },
  );
}
