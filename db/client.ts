/**
 * Opening the app database. `getDb()` is lazy and cached on globalThis: `next build` imports route
 * modules, and a module-level open would fail when ./data does not exist yet (stack-notes P10).
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import * as schema from "./schema";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

const MIGRATIONS_FOLDER = path.join(process.cwd(), "db", "migrations");

/** Opens (creating if needed) a database file and applies the committed migrations. */
export function openDb(file: string, options: { migrate?: boolean } = {}): Db {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  const db = drizzle(sqlite, { schema }) as Db;
  if (options.migrate ?? true) migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return db;
}

const cache = globalThis as unknown as { __ferryDb?: Db };

/** The process's database, from DATABASE_FILE (default data/ferry.db). */
export function getDb(): Db {
  if (!cache.__ferryDb) cache.__ferryDb = openDb(process.env.DATABASE_FILE ?? "data/ferry.db");
  return cache.__ferryDb;
}
