/**
 * Test support for domain and router tests: a real temporary SQLite database with the committed
 * migrations, and people of every role. (tRPC callers live in server/testing/caller.ts.)
 */
import type { NotifyDeps } from "@/server/engagements/waiting/notify";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, type Db } from "@/db/client";
import { databaseOf, openPostgres, type Database, type Dialect } from "@/db/database";
import { databaseDialect } from "@/db/dialect";
import { createOrganization } from "@/server/accounts/organizations";
import { createUserWithPasswordHash } from "@/server/accounts/users";
import type { Actor } from "@/core/accounts/actor";
import { hashPassword } from "@/server/security/passwords";
import { generateKeySpec, keyRingFrom } from "@/server/security/secrets";
import { TEST_ENV, TEST_PASSWORD } from "./test-env";

/** `database` is the dialect-neutral layer over the same connection as `db` (db/database.ts). */
export type TestDb = { db: Db; database: Database; file: string; close: () => void };

/**
 * A fresh database file in the OS temp folder, deleted on close: a copy of the run's migrated
 * template (server/testing/global-setup.ts), or migrated here when there is none.
 */
export function createTestDb(): TestDb {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-test-"));
  const file = path.join(dir, "ferry.db");
  const template = process.env[TEST_ENV.sqliteTemplate];
  if (template) fs.copyFileSync(template, file);
  const db = openDb(file, { migrate: !template });
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

/**
 * A fresh app database for one test file, on the database the test run is for: SQLite (a
 * temporary file, the SQLite pass) or, when DATABASE_URL names PostgreSQL (the PostgreSQL pass of
 * `npm test`), a database of its own on the throwaway server with the committed migrations.
 */
export type TestDatabase = {
  database: Database;
  /** `database.db`: await its queries (both drivers answer alike). */
  db: Database["db"];
  dialect: Dialect;
  /** The SQLite file (SQLite only: tests about the file itself, e.g. what a purge leaves in it). */
  file?: string;
  /** What a child process needs in its environment to open this same database. */
  env: { DATABASE_FILE: string; DATABASE_URL: "" } | { DATABASE_URL: string };
  close: () => Promise<void>;
};

/** A fresh, migrated app database on the dialect DATABASE_URL selects (see TestDatabase). */
export async function createTestDatabase(options: { max?: number } = {}): Promise<TestDatabase> {
  if (databaseDialect() === "postgresql") {
    // Imported here so the SQLite pass never loads the PostgreSQL harness.
    const { createMigratedPgDatabase } = await import("./pg");
    const { url, drop } = await createMigratedPgDatabase();
    const database = openPostgres(url, { max: options.max ?? 10 });
    return {
      database,
      db: database.db,
      dialect: "postgresql",
      env: { DATABASE_URL: url },
      close: async () => {
        await database.close();
        await drop();
      },
    };
  }
  const t = createTestDb();
  return {
    database: t.database,
    db: t.database.db,
    dialect: "sqlite",
    file: t.file,
    // An empty DATABASE_URL, so a child process of the SQLite pass never inherits a PostgreSQL one.
    env: { DATABASE_FILE: t.file, DATABASE_URL: "" },
    close: async () => t.close(),
  };
}

export { TEST_PASSWORD };

let ownHash: Promise<string> | undefined;
/** The scrypt hash of TEST_PASSWORD: the run's (global-setup.ts), else made once in this process. */
export function testPasswordHash(): Promise<string> {
  const given = process.env[TEST_ENV.passwordHash];
  if (given) return Promise.resolve(given);
  ownHash ??= hashPassword(TEST_PASSWORD);
  return ownHash;
}

/** A key ring for tests (a fresh random key per test process). */
export const TEST_KEY_RING = keyRingFrom(generateKeySpec("test"));

/** How the flows called directly in tests write their mail (queued in the outbox; the app config's settings). */
export const TEST_NOTIFY: NotifyDeps = { notify: { appUrl: "http://ferry.test", mail: { from: "Ferry <ferry@test>", keyRing: TEST_KEY_RING, log: () => {} } } };

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

/** Another connection to a test's database (pool of `max` on PostgreSQL), as another worker process has; close it before the test database. */
export function otherConnection(t: Pick<TestDatabase, "env">, options: { max?: number } = {}): Database {
  return "DATABASE_FILE" in t.env ? databaseOf(openDb(t.env.DATABASE_FILE, { migrate: false })) : openPostgres(t.env.DATABASE_URL, { max: options.max ?? 1 });
}

/** The `Database` of a test's handle: the layer itself, or the one a drizzle handle belongs to (fixtures take either). */
export function asDatabase(target: Db | Database["db"] | Database): Database {
  return "db" in target ? target : databaseOf(target);
}

/** Two organisations and one person of each role (customers A and B in different organisations). */
export async function seedPeople(target: Db | Database["db"] | Database): Promise<People> {
  const database = asDatabase(target);
  const orgA = (await createOrganization(database, SEEDER, { name: "Org A" })).id;
  const orgB = (await createOrganization(database, SEEDER, { name: "Org B" })).id;
  const passwordHash = await testPasswordHash();
  const make = (email: string, name: string, role: Actor["role"], organizationId: string | null) =>
    createUserWithPasswordHash(database, { email, name, role, organizationId, passwordHash });
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
