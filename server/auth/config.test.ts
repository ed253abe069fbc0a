/**
 * next-auth's callbacks and events as Ferry configures them, on a real temporary database: the
 * session version a sign-in puts in the token, the session route refusing an ended session, and
 * sign-out ending every session of the person.
 */
import type { JWT } from "next-auth/jwt";
import type * as ConfigModule from "./config";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDatabase } from "@/db/database";
import { createTestDatabase, seedPeople, TEST_PASSWORD, type People, type TestDatabase } from "@/server/testing/test-db";
import { signIn } from "@/server/accounts/sign-in";
import { loadActor } from "@/server/accounts/users";
import { generateKeySpec } from "@/server/security/secrets";

let t: TestDatabase;
let p: People;
let config: typeof ConfigModule;

beforeAll(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  // The module reads the environment and opens the database it names on first use (this file runs in its own process).
  Object.assign(process.env, { NEXTAUTH_SECRET: "config-test-secret-0123456789", FERRY_ENCRYPTION_KEY: generateKeySpec("t") });
  config = await import("./config");
  Object.assign(process.env, t.env);
});
afterAll(async () => {
  // The module's own connection to the test database, opened by getDatabase(), goes first (PostgreSQL drops no database in use).
  if (config) await getDatabase().close();
  await t?.close();
});

type SessionParams = Parameters<NonNullable<ReturnType<typeof config.authOptions>["callbacks"]>["session"] & object>[0];
type JwtParams = Parameters<NonNullable<ReturnType<typeof config.authOptions>["callbacks"]>["jwt"] & object>[0];
type SignOutParams = Parameters<NonNullable<ReturnType<typeof config.authOptions>["events"]>["signOut"] & object>[0];

async function tokenFor(email: string): Promise<JWT> {
  const person = await signIn(t.database, { email, password: TEST_PASSWORD, address: null });
  const user = { id: person.id, name: person.name, email: person.email, sessionVersion: person.sessionVersion };
  const { jwt } = config.authOptions().callbacks!;
  return jwt!({ token: { name: user.name, email: user.email }, user, account: null } as JwtParams);
}

async function sessionFor(token: JWT) {
  const { session } = config.authOptions().callbacks!;
  return session!({ session: { user: { id: "", name: "", email: "" }, expires: "" }, token } as SessionParams);
}

const signOut = (token: JWT) => config.authOptions().events!.signOut!({ token } as SignOutParams);

describe("next-auth configuration", () => {
  it("puts the session version in the token and answers the session while it is current", async () => {
    const token = await tokenFor("support@test");
    expect(token).toMatchObject({ sub: p.support.id, sv: 0 });
    expect(await sessionFor(token)).toMatchObject({ user: { id: p.support.id } });
  });

  it("signing out ends every session of the person: the session route and the request context refuse the token", async () => {
    const token = await tokenFor("admin@test");
    const copy = { ...token };
    await signOut(token);
    await expect(sessionFor(copy)).rejects.toBeInstanceOf(config.SessionEndedError);
    expect(await loadActor(t.database, { userId: p.admin.id, sessionVersion: copy.sv })).toBeNull();
  });

  it("signing out with an old token leaves the newer sessions alone", async () => {
    const old = await tokenFor("support2@test");
    await signOut(old);
    const current = await tokenFor("support2@test");
    await signOut(old);
    expect(await sessionFor(current)).toMatchObject({ user: { id: p.support2.id } });
  });

  it("refuses a token from before session versions", async () => {
    await expect(sessionFor({ sub: p.customerA.id })).rejects.toBeInstanceOf(config.SessionEndedError);
  });
});
