/**
 * Sign-in limits under parallel guesses, as checks that take the Database they run on, so the
 * same checks run on SQLite and on PostgreSQL (where the guesses really run in parallel, each in a
 * transaction on its own connection).
 */
import { expect } from "vitest";
import type { Database } from "@/db/database";
import { signIn, THROTTLE } from "@/server/accounts/sign-in";
import { createUserWithPassword } from "@/server/accounts/users";
import { AppError } from "@/server/errors";
import { verifyPassword } from "@/server/security/passwords";
import { TEST_PASSWORD } from "./test-db";

/** The real password check, counting how many attempts reach it. */
function countingVerify() {
  const counter = { calls: 0 };
  const verify = (password: string, hash: string) => {
    counter.calls++;
    return verifyPassword(password, hash);
  };
  return { counter, verify };
}

type Outcome = { ok: true } | { ok: false; code: string };

function attempt(database: Database, input: { email: string; password: string; address: string }, now: Date, verify?: typeof verifyPassword): Promise<Outcome> {
  return signIn(database, input, { now, verify }).then(
    () => ({ ok: true as const }),
    (e: unknown) => {
      if (!(e instanceof AppError)) throw e;
      return { ok: false as const, code: e.code };
    },
  );
}

const unique = () => crypto.randomUUID().slice(0, 8);

/**
 * Many wrong guesses for one email at once, each from its own address: at most the limit reach
 * the password check; then the email is locked, the right password refused unchecked, until the
 * lock ends.
 */
export async function expectEmailLimitHoldsUnderParallelGuesses(database: Database, guesses = 50): Promise<void> {
  const email = `target-${unique()}@test`;
  await createUserWithPassword(database, { email, name: "Target", role: "support", organizationId: null, password: TEST_PASSWORD });
  const now = new Date("2026-11-22T10:00:00Z");
  const { counter, verify } = countingVerify();
  const tag = unique();
  const results = await Promise.all(
    Array.from({ length: guesses }, (_, i) => attempt(database, { email, password: `wrong-guess-${i}`, address: `guess-${tag}-${i}` }, now, verify)),
  );
  expect(counter.calls).toBe(THROTTLE.maxFailuresPerEmail);
  expect(results.filter((r) => !r.ok && r.code === "UNAUTHENTICATED")).toHaveLength(counter.calls);
  expect(results.filter((r) => !r.ok && r.code === "RATE_LIMITED")).toHaveLength(guesses - counter.calls);

  const right = { email, password: TEST_PASSWORD, address: `right-${tag}` };
  expect(await attempt(database, right, new Date(now.getTime() + 1000), verify)).toEqual({ ok: false, code: "RATE_LIMITED" });
  expect(counter.calls).toBe(THROTTLE.maxFailuresPerEmail);
  expect(await attempt(database, right, new Date(now.getTime() + THROTTLE.lockMs + 1000), verify)).toEqual({ ok: true });
}

/** Many guesses at different emails from one address at once: exactly the address's limit reach the password check. */
export async function expectAddressLimitHoldsUnderParallelGuesses(database: Database, guesses = 60): Promise<void> {
  const now = new Date("2026-11-22T10:00:00Z");
  const { counter, verify } = countingVerify();
  const tag = unique();
  const address = `spray-${tag}`;
  const results = await Promise.all(
    Array.from({ length: guesses }, (_, i) => attempt(database, { email: `spray-${tag}-${i}@test`, password: "wrong password!", address }, now, verify)),
  );
  expect(counter.calls).toBe(THROTTLE.maxFailuresPerAddress);
  expect(results.filter((r) => !r.ok && r.code === "RATE_LIMITED")).toHaveLength(guesses - THROTTLE.maxFailuresPerAddress);
  expect(await attempt(database, { email: `spray-${tag}-0@test`, password: "wrong password!", address }, now, verify)).toEqual({ ok: false, code: "RATE_LIMITED" });
}
