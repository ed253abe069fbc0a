/**
 * Password sign-in with throttling: after repeated failures for one email (or from one address)
 * sign-in is refused for a while, even with the right password.
 */
import { eq } from "drizzle-orm";
import type { Db } from "@/db/client";
import { signInThrottle, users } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { Actor } from "@/server/security/actor";
import { decoyHash, verifyPassword } from "@/server/security/passwords";
import { normalizeEmail } from "./users";

export const THROTTLE = {
  windowMs: 15 * 60 * 1000,
  lockMs: 15 * 60 * 1000,
  maxFailuresPerEmail: 5,
  maxFailuresPerAddress: 30,
} as const;

/** The message every wrong email or password gets (it never says which was wrong). */
export const BAD_CREDENTIALS = "Wrong email or password.";

function lockedUntil(db: Db, key: string, now: Date): Date | null {
  const row = db.select().from(signInThrottle).where(eq(signInThrottle.key, key)).get();
  return row?.lockedUntil && row.lockedUntil.getTime() > now.getTime() ? row.lockedUntil : null;
}

function recordFailure(db: Db, key: string, limit: number, now: Date): void {
  const row = db.select().from(signInThrottle).where(eq(signInThrottle.key, key)).get();
  const fresh = !row || now.getTime() - row.windowStartedAt.getTime() > THROTTLE.windowMs;
  const failures = fresh ? 1 : row.failures + 1;
  const windowStartedAt = fresh ? now : row.windowStartedAt;
  const locked = failures >= limit ? new Date(now.getTime() + THROTTLE.lockMs) : null;
  db.insert(signInThrottle)
    .values({ key, failures, windowStartedAt, lockedUntil: locked })
    .onConflictDoUpdate({ target: signInThrottle.key, set: { failures, windowStartedAt, lockedUntil: locked } })
    .run();
}

/** Checks an email and password; returns the actor or throws UNAUTHENTICATED / RATE_LIMITED. */
export async function signIn(
  db: Db,
  input: { email: string; password: string; address?: string | null },
  now = new Date(),
): Promise<Actor> {
  const email = normalizeEmail(input.email);
  const keys = [`email:${email}`, ...(input.address ? [`addr:${input.address}`] : [])];
  for (const key of keys) {
    const until = lockedUntil(db, key, now);
    if (until) {
      const minutes = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 60000));
      throw new AppError("RATE_LIMITED", `Too many failed sign-ins. Try again in ${minutes} minute${minutes > 1 ? "s" : ""}.`);
    }
  }
  const user = db.select().from(users).where(eq(users.email, email)).get();
  const ok = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash()));
  if (!user || !user.passwordHash || !ok || !user.active) {
    recordFailure(db, `email:${email}`, THROTTLE.maxFailuresPerEmail, now);
    if (input.address) recordFailure(db, `addr:${input.address}`, THROTTLE.maxFailuresPerAddress, now);
    throw new AppError("UNAUTHENTICATED", user && ok && !user.active ? "This account is deactivated." : BAD_CREDENTIALS);
  }
  db.delete(signInThrottle).where(eq(signInThrottle.key, `email:${email}`)).run();
  db.update(users).set({ lastSignInAt: now }).where(eq(users.id, user.id)).run();
  return { id: user.id, email: user.email, name: user.name, role: user.role, organizationId: user.organizationId };
}
