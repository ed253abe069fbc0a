/**
 * The PostgreSQL pass of the suite: `npm test` runs it after the SQLite pass, with DATABASE_URL set
 * to its throwaway PostgreSQL server, so db/schema.ts hands domain code PostgreSQL's tables and
 * createTestDatabase() gives each test file a database of its own there. It holds every test file
 * whose run-time imports reach the app database (scripts/app-database-tests.mjs walks the import
 * graph; `node scripts/app-database-tests.mjs` lists both sides); the rest never open it, and
 * would only repeat themselves.
 */
import { defineConfig } from "vitest/config";
import { appDatabaseTests } from "./scripts/app-database-tests.mjs";
import base from "./vitest.config.mjs";

// Replaces the SQLite pass's include (mergeConfig would append to it).
export default defineConfig({ ...base, test: { ...base.test, include: appDatabaseTests().included } });
