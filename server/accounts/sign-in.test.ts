import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, seedPeople, TEST_PASSWORD, type People, type TestDb } from "@/server/testing/test-db";
import { AppError } from "@/server/errors";
import { BAD_CREDENTIALS, signIn, THROTTLE } from "./sign-in";

let t: TestDb;
let p: People;
beforeEach(async () => {
  t = createTestDb();
  p = await seedPeople(t.db);
});
afterEach(() => t.close());

const attempt = (email: string, password: string, now: Date, address: string | null = "10.0.0.1") =>
  signIn(t.db, { email, password, address }, now).then(
    (a) => ({ ok: true as const, actor: a }),
    (e: unknown) => {
      if (!(e instanceof AppError)) throw e;
      return { ok: false as const, code: e.code, message: e.message };
    },
  );

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
    const start = new Date("2026-11-22T10:00:00Z");
    for (let i = 0; i < THROTTLE.maxFailuresPerEmail - 1; i++) await attempt("support@test", "wrong password!", start);
    const afterWindow = new Date(start.getTime() + THROTTLE.windowMs + 1000);
    expect(await attempt("support@test", "wrong password!", afterWindow)).toMatchObject({ code: "UNAUTHENTICATED" });
    expect((await attempt("support@test", TEST_PASSWORD, afterWindow)).ok).toBe(true);
  });

  it("locks a client address that tries many emails", async () => {
    const now = new Date("2026-11-22T10:00:00Z");
    for (let i = 0; i < THROTTLE.maxFailuresPerAddress; i++) await attempt(`spray${i}@test`, "wrong password!", now, "10.9.9.9");
    expect(await attempt("admin@test", TEST_PASSWORD, now, "10.9.9.9")).toMatchObject({ code: "RATE_LIMITED" });
    expect((await attempt("admin@test", TEST_PASSWORD, now, "10.1.1.1")).ok).toBe(true);
  });
});
