/**
 * PostgreSQL's side of db/app-db.ts: what `tsc -p tsconfig.pg.json` resolves `@/db/app-db` to (see
 * there). Type-only.
 */
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type * as tables from "./schema.pg";

export type AppDialect = "postgresql";
export type AppTables = typeof tables;
export type AppDb = NodePgDatabase<AppTables>;

/** The rows a query gives a transaction step (`q.all`): what awaiting it gives. */
export type QueryRows<Q> = Q extends PromiseLike<infer R> ? R : never;
/** The row a query gives a step (`q.get`): a select's first row or undefined; a write's RETURNING row. */
export type QueryRow<Q> = Q extends PromiseLike<(infer R)[]> ? (Q extends { _: { selectMode: unknown } } ? R | undefined : R) : never;
