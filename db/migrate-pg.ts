/**
 * Applying the committed PostgreSQL migrations (db/migrations-pg) to a database. Web replicas and
 * workers on several machines may start at once: a session-level advisory lock lets one of them
 * migrate while the others wait, then find nothing left to apply.
 */
import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { Pool } from "pg";

export const PG_MIGRATIONS_FOLDER = path.join(process.cwd(), "db", "migrations-pg");

/** Any fixed 64-bit key: it names "Ferry's migrations" among the database's advisory locks. */
const MIGRATION_LOCK_KEY = 7_390_120_261_125;

/** Applies the committed migrations through an open pool (the caller keeps owning it). */
export async function migratePostgresPool(pool: Pool, migrationsFolder = PG_MIGRATIONS_FOLDER): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      await migrate(drizzle(client), { migrationsFolder });
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

/** Connects to `url`, applies the committed migrations, and disconnects. */
export async function migratePostgres(url: string, migrationsFolder = PG_MIGRATIONS_FOLDER): Promise<void> {
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    await migratePostgresPool(pool, migrationsFolder);
  } finally {
    await pool.end();
  }
}

/** A database URL fit for a log line: its password replaced. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(a DATABASE_URL that is not a valid URL)";
  }
}
