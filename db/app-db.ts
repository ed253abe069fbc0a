/**
 * The types domain code is checked against, for the dialect one type check assumes.
 *
 * Ferry's code is written once for SQLite and PostgreSQL, and drizzle's tables and query builders
 * are typed per dialect, so no single drizzle type is true for both. Instead the code is checked
 * twice: `tsc -p .` resolves `@/db/app-db` to this file (SQLite's types), `tsc -p tsconfig.pg.json`
 * resolves it to db/app-db.pg.ts (PostgreSQL's); `npm run typecheck` runs both. Domain code names
 * one type — the tables of db/schema.ts, `Tx` and `Database` of db/database.ts — and each check
 * gives it the dialect's true type, so what compiles is right on both, and an operation one driver
 * lacks (better-sqlite3's `.all()`, a RunResult's `changes`…) fails one of the checks.
 *
 * The assumption "the dialect the environment selects is the one this check is for" is made in two
 * places only, by name: db/schema.ts (which tables) and `asAppDatabase` in db/database.ts (which
 * handle); each is a cast from the union of both dialects to one of its members, never through
 * `unknown`.
 *
 * Type-only: nothing imports it at run time.
 */
import type { Db } from "./client";
import type * as tables from "./schema.sqlite";

export type AppDialect = "sqlite";
/** The tables domain code uses (db/schema.ts). */
export type AppTables = typeof tables;
/**
 * The drizzle handle domain code awaits queries on and builds transaction steps with (with its
 * better-sqlite3 `$client`, which the lint rules keep in db/ and the test support; PostgreSQL's
 * `$client` is a pool, so a use of SQLite's fails the other check).
 */
export type AppDb = Db;

/** The rows a query gives a transaction step (`q.all`): what better-sqlite3's `.all()` returns. */
export type QueryRows<Q> = Q extends { all(): infer R } ? R : never;
/** The row a query gives a step (`q.get`): what better-sqlite3's `.get()` returns (undefined when a select finds none). */
export type QueryRow<Q> = Q extends { get(): infer R } ? R : never;
