/**
 * `npm run db:migrate`: applies the committed migrations of the selected database (db/dialect.ts):
 * db/migrations-pg to DATABASE_URL when it is a postgres:// URL, else db/migrations to the SQLite
 * file DATABASE_FILE (default data/ferry.db).
 */
import { openDb } from "./client";
import { databaseDialect } from "./dialect";
import { migratePostgres, redactDatabaseUrl } from "./migrate-pg";

async function main(): Promise<string> {
  if (databaseDialect() === "postgresql") {
    const url = redactDatabaseUrl(process.env.DATABASE_URL as string);
    await migratePostgres(process.env.DATABASE_URL as string).catch((error: unknown) => {
      throw new Error(`${url}: ${error instanceof Error ? error.message : String(error)}`);
    });
    return url;
  }
  const file = process.env.DATABASE_FILE ?? "data/ferry.db";
  openDb(file).$client.close();
  return file;
}

main().then(
  (where) => console.log(`Database ready: ${where}`),
  (error: unknown) => {
    console.error(`Migrating the database failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
