/**
 * Test support for router and domain tests: a real temporary SQLite database with the committed
 * migrations, people of every role, and tRPC callers acting as each of them.
 */
import fs from "node:fs";
import { TRPCError } from "@trpc/server";
import os from "node:os";
import path from "node:path";
import { openDb, type Db } from "@/db/client";
import { organizations, users, type Role } from "@/db/schema";
import type { Actor } from "@/server/security/actor";
import { hashPassword } from "@/server/security/passwords";
import { generateKeySpec, keyRingFrom } from "@/server/security/secrets";
import { createCaller } from "./root";
import type { AppConfig } from "./trpc";

export type TestDb = { db: Db; file: string; close: () => void };

/** A fresh database file in the OS temp folder, deleted on close. */
export function createTestDb(): TestDb {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-test-"));
  const file = path.join(dir, "ferry.db");
  const db = openDb(file);
  return {
    db,
    file,
    close: () => {
      db.$client.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const TEST_PASSWORD = "correct horse battery";

/** A key ring for tests (a fresh random key per test process). */
export const TEST_KEY_RING = keyRingFrom(generateKeySpec("test"));

/** Mail goes to the outbox table only; the log line is kept here for assertions. */
export function testConfig(log: string[] = []): AppConfig {
  return {
    appUrl: "http://ferry.test",
    mail: { from: "Ferry <ferry@test>", log: (l) => log.push(l), keyRing: TEST_KEY_RING },
    keyRing: TEST_KEY_RING,
  };
}

export type People = {
  admin: Actor;
  support: Actor;
  support2: Actor;
  customerA: Actor;
  customerB: Actor;
  orgA: string;
  orgB: string;
};

let cachedHash: Promise<string> | undefined;

/** Two organisations and one person of each role (customers A and B in different organisations). */
export async function seedPeople(db: Db): Promise<People> {
  cachedHash ??= hashPassword(TEST_PASSWORD);
  const passwordHash = await cachedHash;
  const orgA = db.insert(organizations).values({ name: "Org A" }).returning().get().id;
  const orgB = db.insert(organizations).values({ name: "Org B" }).returning().get().id;
  const make = (email: string, name: string, role: Role, organizationId: string | null): Actor => {
    const u = db.insert(users).values({ email, name, role, organizationId, passwordHash }).returning().get();
    return { id: u.id, email, name, role, organizationId };
  };
  return {
    admin: make("admin@test", "Admin", "admin", null),
    support: make("support@test", "Support One", "support", null),
    support2: make("support2@test", "Support Two", "support", null),
    customerA: make("a@org-a.test", "Customer A", "customer", orgA),
    customerB: make("b@org-b.test", "Customer B", "customer", orgB),
    orgA,
    orgB,
  };
}

/** The TRPCError a call fails with (fails the test if it succeeds or throws something else). */
export async function trpcError(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof TRPCError)) throw new Error(`expected a TRPCError, got ${error === null ? "success" : String(error)}`);
  return error;
}

/** A tRPC caller acting as `actor` (or anonymous). */
export function callerAs(db: Db, actor: Actor | null, config: AppConfig = testConfig()) {
  return createCaller({ db, actor, clientAddress: "127.0.0.1", config });
}
