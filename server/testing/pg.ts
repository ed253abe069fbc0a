/**
 * Test support for PostgreSQL: a fresh database with the committed PostgreSQL migrations
 * (db/migrations-pg) on a real throwaway server (scripts/postgres.mjs). The server is the one
 * FERRY_TEST_PG_URL names when the test run started one (`npm test` does), else one this test
 * process starts on first use and stops when its last database is closed.
 */
import crypto from "node:crypto";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { Pool } from "pg";
import { migratePostgres, migratePostgresPool } from "@/db/migrate-pg";
import * as pgSchema from "@/db/schema.pg";
import { startPostgres, type ThrowawayPostgres } from "@/scripts/postgres.mjs";
import { TEST_ENV } from "./test-env";

export type PgTestDb = {
  /** The database's own URL (for a child process's DATABASE_URL). */
  url: string;
  pool: Pool;
  db: NodePgDatabase<typeof pgSchema>;
  /** Closes the pool and drops the database (and stops the server this process started, after its last database). */
  close: () => Promise<void>;
};

let ownServer: Promise<ThrowawayPostgres> | null = null;
let openDatabases = 0;

/** The URL of a maintenance database on the test server, starting one for this process if none was given. */
async function serverUrl(): Promise<string> {
  if (process.env.FERRY_TEST_PG_URL) return process.env.FERRY_TEST_PG_URL;
  // Never apt-get from inside a test process: `npm test` installs PostgreSQL before the tests start.
  ownServer ??= startPostgres({ install: false });
  try {
    return (await ownServer).url;
  } catch (error) {
    ownServer = null;
    throw error;
  }
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * PostgreSQL 15's default way of copying a template logs every block of it (about 300 ms a copy
 * here); copying its files is about 50 ms on the test server, which runs without fsync.
 */
let fileCopyClause: Promise<string> | undefined;
function fileCopy(admin: Pool): Promise<string> {
  fileCopyClause ??= admin.query<{ server_version_num: string }>("SHOW server_version_num").then((r) => (Number(r.rows[0]?.server_version_num) >= 150_000 ? " STRATEGY FILE_COPY" : ""));
  return fileCopyClause;
}

/** An empty database of its own on the test server (no migrations), or a copy of `template`. */
export async function createEmptyPgDatabase(options: { template?: string } = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  const server = await serverUrl();
  openDatabases++;
  const name = `ferry_test_${crypto.randomBytes(6).toString("hex")}`;
  const admin = new Pool({ connectionString: server, max: 1 });
  try {
    if (options.template && !/^[a-z0-9_]+$/.test(options.template)) throw new Error(`Not a test template's name: ${options.template}`);
    await admin.query(options.template ? `CREATE DATABASE ${name} TEMPLATE ${options.template}${await fileCopy(admin)}` : `CREATE DATABASE ${name}`);
  } catch (error) {
    openDatabases--;
    await admin.end();
    throw error;
  }
  return {
    url: withDatabase(server, name),
    drop: async () => {
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      } finally {
        await admin.end();
        openDatabases--;
        if (openDatabases === 0 && ownServer) {
          const started = ownServer;
          ownServer = null;
          await (await started).stop();
        }
      }
    },
  };
}

/**
 * A migrated database to copy (Vitest's global set-up makes one per run): `CREATE DATABASE …
 * TEMPLATE` copies it in a fraction of the time the migrations take. Nobody may stay connected
 * to it, or the copies are refused.
 */
export async function createPgTemplate(): Promise<{ name: string; drop: () => Promise<void> }> {
  const created = await createEmptyPgDatabase();
  try {
    await migratePostgres(created.url);
  } catch (error) {
    await created.drop();
    throw error;
  }
  return { name: new URL(created.url).pathname.slice(1), drop: created.drop };
}

/**
 * A fresh database with the committed PostgreSQL migrations applied (no pool kept open): its URL,
 * and how to drop it. A copy of the run's template when there is one (server/testing/global-setup.ts).
 */
export async function createMigratedPgDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const template = process.env[TEST_ENV.pgTemplate];
  if (template) return createEmptyPgDatabase({ template });
  const created = await createEmptyPgDatabase();
  try {
    await migratePostgres(created.url);
  } catch (error) {
    await created.drop();
    throw error;
  }
  return created;
}

/** A fresh database with the committed PostgreSQL migrations applied, and drizzle over it with the PostgreSQL schema. */
export async function createPgTestDb(): Promise<PgTestDb> {
  const { url, drop } = await createEmptyPgDatabase();
  const pool = new Pool({ connectionString: url, max: 4 });
  try {
    await migratePostgresPool(pool);
  } catch (error) {
    await pool.end();
    await drop();
    throw error;
  }
  return {
    url,
    pool,
    db: drizzle(pool, { schema: pgSchema }),
    close: async () => {
      await pool.end();
      await drop();
    },
  };
}
