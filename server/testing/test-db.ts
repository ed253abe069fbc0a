/**
 * Test support for domain and router tests: a real temporary SQLite database with the committed
 * migrations, and people of every role. (tRPC callers live in server/testing/caller.ts.)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, type Db } from "@/db/client";
import { databaseOf, type Database } from "@/db/database";
import { createOrganization } from "@/server/accounts/organizations";
import { createUserWithPassword } from "@/server/accounts/users";
import type { Actor } from "@/core/accounts/actor";
import { generateKeySpec, keyRingFrom } from "@/server/security/secrets";

/** `database` is the dialect-neutral layer over the same connection as `db` (db/database.ts). */
export type TestDb = { db: Db; database: Database; file: string; close: () => void };

/** A fresh database file in the OS temp folder, deleted on close. */
export function createTestDb(): TestDb {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-test-"));
  const file = path.join(dir, "ferry.db");
  const db = openDb(file);
  return {
    db,
    database: databaseOf(db),
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

export type People = {
  admin: Actor;
  support: Actor;
  support2: Actor;
  customerA: Actor;
  customerB: Actor;
  orgA: string;
  orgB: string;
};

const SEEDER: Actor = { id: "test-seed", email: "", name: "Test seed", role: "admin", organizationId: null };

/** Two organisations and one person of each role (customers A and B in different organisations). */
export async function seedPeople(db: Db): Promise<People> {
  const database = databaseOf(db);
  const orgA = (await createOrganization(database, SEEDER, { name: "Org A" })).id;
  const orgB = (await createOrganization(database, SEEDER, { name: "Org B" })).id;
  const make = (email: string, name: string, role: Actor["role"], organizationId: string | null) =>
    createUserWithPassword(database, { email, name, role, organizationId, password: TEST_PASSWORD });
  return {
    admin: await make("admin@test", "Admin", "admin", null),
    support: await make("support@test", "Support One", "support", null),
    support2: await make("support2@test", "Support Two", "support", null),
    customerA: await make("a@org-a.test", "Customer A", "customer", orgA),
    customerB: await make("b@org-b.test", "Customer B", "customer", orgB),
    orgA,
    orgB,
  };
}
