/** Its tests tagged both-databases run on PostgreSQL too: the throttle under parallel guesses (its rows locked FOR UPDATE on PostgreSQL). */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { signInThrottle } from "@/db/schema";
import { createTestDatabase, seedPeople, TEST_PASSWORD, testPasswordHash, type People, type TestDatabase } from "@/server/testing/test-db";
import { AppError } from "@/server/errors";
import { verifyPassword } from "@/server/security/passwords";
import { expectAddressLimitHoldsUnderParallelGuesses, expectEmailLimitHoldsUnderParallelGuesses } from "@/server/testing/sign-in-races";
import { BAD_CREDENTIALS, signIn, SIGN_IN_LIMITS, THROTTLE } from "./sign-in";

let t: TestDatabase;
let p: People;
beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
});
afterEach(() => t?.close());

/** The real password check, counting how many attempts reach it. */
function countingVerify() {
  const counter = { calls: 0 };
  const verify = (password: string, hash: string) => {
    counter.calls++;
    return verifyPassword(password, hash);
  };
  return { counter, verify };
}

/**
 * The seeded people's password checked without scrypt, for tests of what the throttle counts (a
 * few dozen attempts each, a real hash 150 ms a check): right for the seeded hash and
 * TEST_PASSWORD alone, as the real check is (the first tests here and passwords.test.ts prove it).
 */
const quickVerify = async (password: string, hash: string) => password === TEST_PASSWORD && hash === (await testPasswordHash());

const attempt = (
  email: string,
  password: string,
  now: Date,
  address: string | null = "10.0.0.1",
  verify?: (password: string, hash: string) => Promise<boolean>,
) =>
  signIn(t.database, { email, password, address }, { now, verify }).then(
    (a) => ({ ok: true as const, actor: a }),
    (e: unknown) => {
      if (!(e instanceof AppError)) throw e;
      return { ok: false as const, code: e.code, message: e.message };
    },
  );

/** An attempt whose password check is quickVerify. */
const quick = (email: string, password: string, now: Date, address: string | null = "10.0.0.1") => attempt(email, password, now, address, quickVerify);

describe("sign-in", () => {
  it("accepts the right password, any email case, and records the time", async () => {
    const now = new Date();
    const r = await attempt(" SUPPORT@test ", TEST_PASSWORD, now);
    expect(r).toMatchObject({ ok: true, actor: { id: p.support.id, role: "support" } });
  });

  it("gives the same message for a wrong password and an unknown email", async () => {
    const now = new Date();
    expect(await attempt("support@test", "wrong password!", now)).toMatchObject({ ok: false, code: "UNAUTHENTICATED", message: BAD_CREDENTIALS });
    expect(await attempt("nobody@test", "wrong password!", now)).toMatchObject({ ok: false, code: "UNAUTHENTICATED", message: BAD_CREDENTIALS });
  });

  it("locks an email after repeated failures, even for the right password, until the lock ends", async () => {
    const attempt = quick;
    const start = new Date("2026-11-22T10:00:00Z");
    for (let i = 0; i < THROTTLE.maxFailuresPerEmail; i++) {
      expect((await attempt("support@test", `wrong-${i}-password`, start)).ok).toBe(false);
    }
    const locked = await attempt("support@test", TEST_PASSWORD, new Date(start.getTime() + 1000));
    expect(locked).toMatchObject({ ok: false, code: "RATE_LIMITED", message: "Too many failed sign-ins. Try again in 15 minutes." });
    // Other people are not affected.
    expect((await attempt("admin@test", TEST_PASSWORD, start, "10.0.0.2")).ok).toBe(true);
    const later = new Date(start.getTime() + THROTTLE.lockMs + 1000);
    expect((await attempt("support@test", TEST_PASSWORD, later)).ok).toBe(true);
  });

  it("forgets failures older than the window", async () => {
    const attempt = quick;
    const start = new Date("2026-11-22T10:00:00Z");
    for (let i = 0; i < THROTTLE.maxFailuresPerEmail - 1; i++) await attempt("support@test", "wrong password!", start);
    const afterWindow = new Date(start.getTime() + THROTTLE.windowMs + 1000);
    expect(await attempt("support@test", "wrong password!", afterWindow)).toMatchObject({ code: "UNAUTHENTICATED" });
    expect((await attempt("support@test", TEST_PASSWORD, afterWindow)).ok).toBe(true);
  });

  it("locks a client address that tries many emails", async () => {
    const attempt = quick;
    const now = new Date("2026-11-22T10:00:00Z");
    for (let i = 0; i < THROTTLE.maxFailuresPerAddress; i++) await attempt(`spray${i}@test`, "wrong password!", now, "10.9.9.9");
    expect(await attempt("admin@test", TEST_PASSWORD, now, "10.9.9.9")).toMatchObject({ code: "RATE_LIMITED" });
    expect((await attempt("admin@test", TEST_PASSWORD, now, "10.1.1.1")).ok).toBe(true);
  });

  it("lets only five of 50 parallel wrong guesses reach the password check, then refuses the right one while locked", { tags: ["both-databases"] }, async () => {
    await expectEmailLimitHoldsUnderParallelGuesses(t.database, 50);
  });

  it("lets only 30 of 60 parallel guesses from one address reach the password check", { tags: ["both-databases"] }, async () => {
    await expectAddressLimitHoldsUnderParallelGuesses(t.database, 60);
  });

  it("does not count successful sign-ins against the address", async () => {
    const attempt = quick;
    const now = new Date("2026-11-22T10:00:00Z");
    for (let i = 0; i < THROTTLE.maxFailuresPerAddress + 5; i++) {
      expect((await attempt("admin@test", TEST_PASSWORD, now, "10.7.7.7")).ok).toBe(true);
    }
  });

  it("refuses an over-long email or password before storing or checking anything", async () => {
    const now = new Date("2026-11-22T10:00:00Z");
    const { counter, verify } = countingVerify();
    const longEmail = `${"x".repeat(1024 * 1024)}@test`;
    expect(await attempt(longEmail, "wrong password!", now, "10.0.0.9", verify)).toMatchObject({ code: "UNAUTHENTICATED", message: BAD_CREDENTIALS });
    const longPassword = "p".repeat(SIGN_IN_LIMITS.maxPasswordLength + 1);
    expect(await attempt("support@test", longPassword, now, "10.0.0.9", verify)).toMatchObject({ code: "UNAUTHENTICATED", message: BAD_CREDENTIALS });
    expect(counter.calls).toBe(0);
    expect(await t.database.db.select().from(signInThrottle)).toEqual([]);
  });

  it("deletes throttle rows whose window and lock are over", async () => {
    const attempt = quick;
    const start = new Date("2026-11-22T10:00:00Z");
    for (let i = 0; i < 10; i++) await attempt(`gone${i}@test`, "wrong password!", start, `10.5.0.${i}`);
    for (let i = 0; i < THROTTLE.maxFailuresPerEmail; i++) await attempt("locked@test", "wrong password!", start, "10.5.1.1");
    expect((await t.database.db.select().from(signInThrottle)).length).toBeGreaterThan(10);
    const later = new Date(start.getTime() + Math.max(THROTTLE.windowMs, THROTTLE.lockMs) + 1000);
    await attempt("support@test", "wrong password!", later, null);
    expect(await t.database.db.select({ key: signInThrottle.key }).from(signInThrottle)).toEqual([{ key: "email:support@test" }]);
  });
});
