/**
 * Opening the SQLite app database. `getDb()` is lazy and cached on globalThis: `next build` imports
 * route modules, and a module-level open would fail when ./data does not exist yet (stack-notes P10).
 * Domain code uses db/database.ts (one interface for SQLite and PostgreSQL) instead; the
 * synchronous handle here is what the SQLite `Database` wraps.
 */
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { ownerOnlyDatabaseFile } from "./owner-only-file";
// The SQLite tables themselves: db/schema.ts hands domain code the dialect DATABASE_URL selects,
// and a better-sqlite3 handle must never be given PostgreSQL's.
import * as schema from "./schema.sqlite";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

const MIGRATIONS_FOLDER = path.join(process.cwd(), "db", "migrations");

/** Opens (creating if needed, owner-only) a database file and applies the committed migrations. */
export function openDb(file: string, options: { migrate?: boolean } = {}): Db {
  if (file !== ":memory:") ownerOnlyDatabaseFile(file);
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  // Deleted content (a purged ciphertext, a freed page) is overwritten with zeros instead of lingering
  // in free space, so a purge removes secrets from the file, not only from the rows. Checkpoint the
  // WAL afterwards to clear the copies it holds too (server/migration/handover/purge-credentials.ts).
  sqlite.pragma("secure_delete = ON");
  const db = drizzle(sqlite, { schema }) as Db;
  // Every transaction takes the write lock as it begins (BEGIN IMMEDIATE). Web and the migration
  // workers are separate processes on this file: a deferred transaction that reads and then
  // writes fails at once with SQLITE_BUSY when another process committed in between (busy_timeout
  // cannot help it), where an immediate one waits its turn.
  const deferred = db.transaction.bind(db);
  db.transaction = ((transaction, config) => deferred(transaction, { behavior: "immediate", ...config })) as Db["transaction"];
  if (options.migrate ?? true) migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return db;
}

declare global {
  // Cached on globalThis: one connection per process, across a dev server's reloads.
  var __ferryDb: Db | undefined;
}

/** The process's database, from DATABASE_FILE (default data/ferry.db). */
export function getDb(): Db {
  globalThis.__ferryDb ??= openDb(process.env.DATABASE_FILE ?? "data/ferry.db");
  return globalThis.__ferryDb;
}
