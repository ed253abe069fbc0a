/**
 * The PostgreSQL pass of the suite: `npm test` runs it after the SQLite pass, with DATABASE_URL set
 * to its throwaway PostgreSQL server, so db/schema.ts hands domain code PostgreSQL's tables and
 * createTestDatabase() gives each test a database of its own there (a copy of the run's migrated
 * template). It runs the tests about what can differ between the two databases, tagged
 * both-databases, and the PostgreSQL-only files: the one rule in scripts/database-passes.mjs
 * (`node scripts/database-passes.mjs` lists the files).
 */
import { defineConfig } from "vitest/config";
import { databasePasses } from "./scripts/database-passes.mjs";
import base from "./vitest.config.mjs";

// Replaces the SQLite pass's include and exclude (mergeConfig would append to them). In those files
// only the tests tagged for it run: `npm test` passes the tags filter on the command line
// (`--tags-filter "both-databases || postgresql"`, POSTGRES_PASS_TAGS), where Vitest takes it.
export default defineConfig({ ...base, test: { ...base.test, include: databasePasses().postgresql, exclude: ["node_modules/**"] } });
