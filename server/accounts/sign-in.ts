/**
 * Password sign-in with throttling: after repeated failures for one email (or from one address)
 * sign-in is refused for a while, even with the right password.
 *
 * An attempt is reserved before the password is checked, in the same transaction that checks the
 * lock, and released only if it succeeds. So however many guesses arrive at once, at most
 * `maxFailuresPerEmail` per email and window ever reach the (slow, awaited) password check.
 *
 * The throttle rows are hot under attack: many guesses at once update the same row. Their
 * transactions lock the rows they check (SELECT … FOR UPDATE on PostgreSQL, read committed), so the
 * guesses queue on the row lock and each sees the count the one before it left; on SQLite the
 * single writer does the same. Serializable isolation would be correct too, but it would abort and
 * retry all but one of every batch of simultaneous guesses.
 */
import { and, eq, gt, lte, sql } from "drizzle-orm";
import { forUpdate, q, type Database, type Steps, type Tx } from "@/db/database";
import { signInThrottle, users } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { decoyHash, verifyPassword } from "@/server/security/passwords";
import { normalizeEmail } from "./users";
import { countOf } from "@/core/words";

export const THROTTLE = {
  windowMs: 15 * 60 * 1000,
  lockMs: 15 * 60 * 1000,
  maxFailuresPerEmail: 5,
  maxFailuresPerAddress: 30,
} as const;

/**
 * The longest email and password sign-in looks at. Nothing longer can belong to anyone (invitations
 * take emails of at most 254 characters, passwords of at most 200), so such attempts are refused
 * before anything is stored or hashed.
 */
export const SIGN_IN_LIMITS = { maxEmailLength: 254, maxPasswordLength: 200, maxAddressLength: 64 } as const;

/** The message every wrong email or password gets (it never says which was wrong). */
export const BAD_CREDENTIALS = "Wrong email or password.";

/** A successful sign-in: the person, and the session version their session token must carry. */
export type SignedIn = Actor & { sessionVersion: number };

type ThrottleKey = { key: string; limit: number };

function rateLimited(until: Date, now: Date): AppError {
  const minutes = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 60000));
  return new AppError("RATE_LIMITED", `Too many failed sign-ins. Try again in ${countOf(minutes, "minute", "minutes")}.`);
}

const expiry = (windowStartedAt: Date, lockedUntil: Date | null) =>
  new Date(Math.max(windowStartedAt.getTime() + THROTTLE.windowMs, lockedUntil?.getTime() ?? 0));

/**
 * Reserves one attempt on every key, or throws RATE_LIMITED without reserving any (a transaction
 * step; read committed suffices because every row it checks is locked first).
 */
function* reserveAttempt(tx: Tx, keys: ThrottleKey[], now: Date): Steps<void> {
  // Rows whose window and lock are both over only take space: delete them as we go.
  yield* q.run(tx.delete(signInThrottle).where(lte(signInThrottle.expiresAt, now)));
  // Every key gets a row before any is read, so the reads below can lock it: a row lock cannot
  // hold a row that does not exist, and two first guesses would otherwise both count from zero.
  // (A refused attempt rolls these back.)
  for (const { key } of keys) {
    yield* q.run(
      tx
        .insert(signInThrottle)
        .values({ key, failures: 0, windowStartedAt: now, lockedUntil: null, expiresAt: expiry(now, null) })
        .onConflictDoNothing({ target: signInThrottle.key }),
    );
  }
  const rows: { key: string; limit: number; row: typeof signInThrottle.$inferSelect | undefined }[] = [];
  for (const { key, limit } of keys) {
    const row = yield* q.get(forUpdate(tx.select().from(signInThrottle).where(eq(signInThrottle.key, key))));
    if (row?.lockedUntil && row.lockedUntil.getTime() > now.getTime()) throw rateLimited(row.lockedUntil, now);
    // A lock that has ended starts a new window.
    rows.push({ key, limit, row: row?.lockedUntil ? undefined : row });
  }
  for (const { row, limit } of rows) {
    // The limit is taken by attempts still being checked: refuse, as their failure would lock.
    if (row && row.failures >= limit) throw rateLimited(new Date(now.getTime() + THROTTLE.lockMs), now);
  }
  for (const { key, row } of rows) {
    const fresh = { failures: 1, windowStartedAt: now, lockedUntil: null, expiresAt: expiry(now, null) };
    yield* q.run(
      tx
        .update(signInThrottle)
        .set(row ? { failures: sql`${signInThrottle.failures} + 1` } : fresh)
        .where(eq(signInThrottle.key, key)),
    );
  }
}

/** The reserved attempt failed: it stays counted, and a key at its limit is locked (a transaction step). */
function* recordFailure(tx: Tx, keys: ThrottleKey[], now: Date): Steps<void> {
  for (const { key, limit } of keys) {
    const row = yield* q.get(forUpdate(tx.select().from(signInThrottle).where(eq(signInThrottle.key, key))));
    if (!row || row.failures < limit || row.lockedUntil) continue;
    const lockedUntil = new Date(now.getTime() + THROTTLE.lockMs);
    yield* q.run(
      tx
        .update(signInThrottle)
        .set({ lockedUntil, expiresAt: expiry(row.windowStartedAt, lockedUntil) })
        .where(eq(signInThrottle.key, key)),
    );
  }
}

/** The reserved attempt succeeded: the email starts afresh, the address gets its attempt back (a transaction step). */
function* recordSuccess(tx: Tx, keys: ThrottleKey[]): Steps<void> {
  const [emailKey, ...others] = keys;
  if (emailKey) yield* q.run(tx.delete(signInThrottle).where(eq(signInThrottle.key, emailKey.key)));
  for (const { key } of others) {
    yield* q.run(
      tx
        .update(signInThrottle)
        .set({ failures: sql`${signInThrottle.failures} - 1` })
        .where(and(eq(signInThrottle.key, key), gt(signInThrottle.failures, 0))),
    );
  }
}

/**
 * Checks an email and password; returns the person or throws UNAUTHENTICATED / RATE_LIMITED.
 * `verify` is the password check (replaceable so tests can count how many attempts reach it).
 */
export async function signIn(
  database: Database,
  input: { email: string; password: string; address?: string | null },
  options: { now?: Date; verify?: (password: string, hash: string) => Promise<boolean> } = {},
): Promise<SignedIn> {
  const now = options.now ?? new Date();
  const verify = options.verify ?? verifyPassword;
  const email = normalizeEmail(input.email);
  if (!email || email.length > SIGN_IN_LIMITS.maxEmailLength || input.password.length > SIGN_IN_LIMITS.maxPasswordLength) {
    throw new AppError("UNAUTHENTICATED", BAD_CREDENTIALS);
  }
  const address = input.address?.slice(0, SIGN_IN_LIMITS.maxAddressLength);
  const keys: ThrottleKey[] = [
    { key: `email:${email}`, limit: THROTTLE.maxFailuresPerEmail },
    ...(address ? [{ key: `addr:${address}`, limit: THROTTLE.maxFailuresPerAddress }] : []),
  ];
  const lockingRows = { isolation: "read committed" } as const;
  await database.transaction((tx) => reserveAttempt(tx, keys, now), lockingRows);

  const [user] = await database.db.select().from(users).where(eq(users.email, email));
  let ok = false;
  try {
    ok = await verify(input.password, user?.passwordHash ?? (await decoyHash()));
  } finally {
    if (!ok || !user?.passwordHash || !user.active) await database.transaction((tx) => recordFailure(tx, keys, now), lockingRows);
  }
  if (!user || !user.passwordHash || !ok || !user.active) {
    throw new AppError("UNAUTHENTICATED", user && ok && !user.active ? "This account is deactivated." : BAD_CREDENTIALS);
  }
  await database.transaction(function* (tx) {
    yield* recordSuccess(tx, keys);
    yield* q.run(tx.update(users).set({ lastSignInAt: now }).where(eq(users.id, user.id)));
  }, lockingRows);
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    organizationId: user.organizationId,
    sessionVersion: user.sessionVersion,
  };
}
