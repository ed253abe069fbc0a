/**
 * The PostgreSQL pass of the suite: `npm test` runs it after the SQLite pass, with DATABASE_URL set
 * to its throwaway PostgreSQL server, so db/schema.ts hands domain code PostgreSQL's tables. It
 * holds the test files whose code runs on the dialect-neutral layer (db/database.ts); the list
 * grows as modules are converted, until it is the whole suite.
 */
import { defineConfig } from "vitest/config";
import base from "./vitest.config.mjs";

export const POSTGRES_READY = ["db/database.test.ts", "db/schema-drift.test.ts", "server/accounts/accounts-pg.test.ts", "server/targets/targets-pg.test.ts", "server/migration/handover/handover-pg.test.ts", "server/migration/supplementary/supplementary-pg.test.ts"];

// Replaces the SQLite pass's include (mergeConfig would append to it).
export default defineConfig({ ...base, test: { ...base.test, include: POSTGRES_READY } });
