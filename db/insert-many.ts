/**
 * Many rows into one table, as a step of the caller's transaction, the fastest way each database
 * allows. What differs between the dialects lives here, not in domain code:
 *
 * - SQLite: a statement of ROWS_PER_STATEMENT rows, prepared once per connection and run again for
 *   every full batch (a single-row one for the rest). Re-preparing a many-row statement for every
 *   chunk costs more than it saves (SQLite compiles thousands of parameters each time); a reused one
 *   runs a 100,000-row file in a fraction of the single-row statement's time.
 * - PostgreSQL: each statement is a round trip to the server, so rows go 5,000 at a time as one
 *   array per column (`insert … select * from unnest(…)`), a statement prepared once per connection.
 *
 * Every row gives the same columns (the first row's keys decide them). Values are encoded by the
 * table's own columns (a Date as SQLite's epoch milliseconds, a JSON column as text…), null stays
 * null, and a column with a `$defaultFn` left out of the rows gets it per row, as drizzle's insert
 * would; other columns left out take the database's default.
 */
import { createHash } from "node:crypto";
import { getTableColumns, getTableName, is, type Table } from "drizzle-orm";
import { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { q, type Steps, type Tx } from "./database";

/** Rows per SQLite statement (× columns parameters; SQLite allows 32,766). */
const ROWS_PER_STATEMENT = 100;
/** Rows per PostgreSQL INSERT (one array parameter per column, whatever the rows). */
const PG_ROWS_PER_INSERT = 5_000;

type AnyColumn = ReturnType<typeof getTableColumns<Table>>[string];
type Insertable<T extends Table> = T["$inferInsert"];
type SqliteStatement = { run(...params: unknown[]): { changes: number } };
/** node-postgres's client, as far as this module uses it. */
type PgClient = { query(config: { name: string; text: string; values: unknown[] }): Promise<{ rowCount: number | null }> };
type SqliteClient = { prepare(source: string): SqliteStatement };

/** The columns the rows give (by their JavaScript keys), plus those with a `$defaultFn` left out. */
function columnsOf(table: Table, first: Record<string, unknown>): [string, AnyColumn][] {
  return Object.entries(getTableColumns(table)).filter(([key, column]) => first[key] !== undefined || column.defaultFn !== undefined);
}

function encode(column: AnyColumn, value: unknown): unknown {
  if (value === undefined) value = column.defaultFn?.();
  if (value === undefined || value === null) return null;
  return column.mapToDriverValue(value);
}

/** better-sqlite3's connection under a SQLite transaction's (or database's) drizzle handle. */
function sqliteClient(tx: Tx): SqliteClient {
  return (tx as Tx & { session: { client: SqliteClient } }).session.client;
}

const statements = new WeakMap<SqliteClient, Map<string, SqliteStatement>>();

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

function sqliteStatement(client: SqliteClient, table: Table, names: readonly string[], rows: number): SqliteStatement {
  const quoted = quote;
  const tuple = `(${names.map(() => "?").join(", ")})`;
  const source = `insert into ${quoted(getTableName(table))} (${names.map(quoted).join(", ")}) values ${Array.from({ length: rows }, () => tuple).join(", ")}`;
  let cache = statements.get(client);
  if (!cache) statements.set(client, (cache = new Map()));
  let statement = cache.get(source);
  if (!statement) cache.set(source, (statement = client.prepare(source)));
  return statement;
}

function* insertManySqlite(tx: Tx, table: Table, rows: readonly Record<string, unknown>[]): Steps<number> {
  const columns = columnsOf(table, rows[0]!);
  const names = columns.map(([, column]) => column.name);
  const client = sqliteClient(tx);
  let changes = 0;
  for (let start = 0; start < rows.length; ) {
    const size = rows.length - start >= ROWS_PER_STATEMENT ? ROWS_PER_STATEMENT : 1;
    const statement = sqliteStatement(client, table, names, size);
    const params: unknown[] = [];
    for (let i = start; i < start + size; i++) for (const [key, column] of columns) params.push(encode(column, rows[i]![key]));
    // A step like any query: the runner calls run() inside the transaction.
    changes += (yield* q.run({ run: () => statement.run(...params) })).changes;
    start += size;
  }
  return changes;
}

/** node-postgres's connection under a PostgreSQL transaction's drizzle handle (the transaction's own). */
function pgClient(tx: Tx): PgClient {
  return (tx as Tx & { session: { client: PgClient } }).session.client;
}

/**
 * PostgreSQL: `insert … select * from unnest($1::type[], $2::type[], …)`, one array per column,
 * PG_ROWS_PER_INSERT rows a statement, prepared once per connection (named by its text). A
 * statement's size no longer grows with its rows (a parameter per column, not per value), and
 * drizzle's query builder is not asked to build a hundred thousand placeholders.
 */
function* insertManyPg(tx: Tx, table: Table, rows: readonly Record<string, unknown>[]): Steps<number> {
  const columns = columnsOf(table, rows[0]!);
  const arrays = columns.map(([, column], i) => `$${i + 1}::${column.getSQLType()}[]`).join(", ");
  const text = `insert into ${quote(getTableName(table))} (${columns.map(([, column]) => quote(column.name)).join(", ")}) select * from unnest(${arrays})`;
  const name = `ferry_insert_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`;
  const client = pgClient(tx);
  let changes = 0;
  for (let start = 0; start < rows.length; start += PG_ROWS_PER_INSERT) {
    const batch = rows.slice(start, start + PG_ROWS_PER_INSERT);
    const values = columns.map(([key, column]) => batch.map((row) => encode(column, row[key])));
    // A step like any query: the runner awaits it, on the transaction's own connection.
    const insert = { then: (resolve: (r: { rowCount: number | null }) => unknown, reject: (e: unknown) => unknown) => client.query({ name, text, values }).then(resolve, reject) };
    changes += (yield* q.run(insert as typeof insert & { run(): unknown })).changes;
  }
  return changes;
}

/** Inserts `rows` into `table` (see the module note); returns how many rows were inserted. */
export function* insertMany<T extends Table>(tx: Tx, table: T, rows: readonly Insertable<T>[]): Steps<number> {
  if (!rows.length) return 0;
  const plain = rows as readonly Record<string, unknown>[];
  return is(tx, BaseSQLiteDatabase) ? yield* insertManySqlite(tx, table, plain) : yield* insertManyPg(tx, table, plain);
}
