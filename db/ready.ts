/**
 * Opening the process's database ready for use: the committed migrations applied first. SQLite's
 * are applied as its file opens (db/client.ts); PostgreSQL's here, under the advisory lock of
 * db/migrate-pg.ts, so web replicas and workers starting together on several machines migrate
 * once and the others wait for it.
 */
import { getDatabase, postgresUrl, type Database } from "./database";
import { migratePostgres, redactDatabaseUrl } from "./migrate-pg";

/** The process's database (PostgreSQL when DATABASE_URL says so, else SQLite), migrated. */
export async function readyDatabase(): Promise<Database> {
  const url = postgresUrl();
  if (url) {
    await migratePostgres(url).catch((error: unknown) => {
      throw new Error(`Migrating ${redactDatabaseUrl(url)} failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
  return getDatabase();
}

/** Where the process's data lives, fit for a log line (a PostgreSQL URL's password hidden). */
export function databaseLabel(env: { DATABASE_FILE: string }): string {
  const url = postgresUrl();
  return url ? `PostgreSQL at ${redactDatabaseUrl(url)}` : `SQLite in ${env.DATABASE_FILE}`;
}
