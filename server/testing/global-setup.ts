/**
 * Vitest's global set-up: what every test file would otherwise make for itself, made once per run.
 * - A migrated SQLite template: createTestDb() copies the file (a few ms) instead of applying the
 *   committed migrations to a new one per test.
 * - On the PostgreSQL pass, a migrated template database: createTestDatabase() makes each test's
 *   database with `CREATE DATABASE … TEMPLATE` instead of migrating it.
 * - The scrypt hash of TEST_PASSWORD, which seedPeople() gives every person it seeds (five scrypt
 *   hashes per test otherwise). Production's cost is unchanged: it is the same hashPassword().
 * Handed to the test processes through the environment (the pool forks them after this runs).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb } from "@/db/client";
import { databaseDialect } from "@/db/dialect";
import { hashPassword } from "@/server/security/passwords";
import { TEST_PASSWORD, TEST_ENV } from "./test-env";

export default async function setup(): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-test-template-"));
  const file = path.join(dir, "template.db");
  const db = openDb(file);
  // Everything in the main file, so a copy of that file alone is the whole database.
  db.$client.pragma("wal_checkpoint(TRUNCATE)");
  db.$client.close();
  process.env[TEST_ENV.sqliteTemplate] = file;
  process.env[TEST_ENV.passwordHash] = await hashPassword(TEST_PASSWORD);

  let dropPgTemplate: (() => Promise<void>) | null = null;
  // Only on a server every test process shares (FERRY_TEST_PG_URL, which `npm test` sets): one a
  // process starts for itself is gone with it.
  if (databaseDialect() === "postgresql" && process.env.FERRY_TEST_PG_URL) {
    const { createPgTemplate } = await import("./pg");
    const template = await createPgTemplate();
    process.env[TEST_ENV.pgTemplate] = template.name;
    dropPgTemplate = template.drop;
  }
  return async () => {
    await dropPgTemplate?.();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
