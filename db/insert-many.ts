/**
 * Many rows into one table, as a step of the caller's transaction, the fastest way each database
 * allows. What differs between the dialects lives here, not in domain code:
 *
 * - SQLite: a statement of ROWS_PER_STATEMENT rows, prepared once per connection and run again for
 *   every full batch (a single-row one for the rest). Re-preparing a many-row statement for every
 *   chunk costs more than it saves (SQLite compiles thousands of parameters each time); a reused one
 *   runs a 100,000-row file in a fraction of the single-row statement's time.
 * - PostgreSQL: each statement is a round trip to the server, so rows go in multi-row INSERTs of
 *   as many rows as its 65,535 parameters a statement allow (capped at 1,000).
 *
 * Every row gives the same columns (the first row's keys decide them). Values are encoded by the
 * table's own columns (a Date as SQLite's epoch milliseconds, a JSON column as text…), null stays
 * null, and a column with a `$defaultFn` left out of the rows gets it per row, as drizzle's insert
 * would; other columns left out take the database's default.
 */
import { getTableColumns, getTableName, is, type Table } from "drizzle-orm";
import { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { q, type Steps, type Tx } from "./database";

/** Rows per SQLite statement (× columns parameters; SQLite allows 32,766). */
const ROWS_PER_STATEMENT = 100;
/** Rows per PostgreSQL INSERT at most. */
const PG_MAX_ROWS_PER_INSERT = 1_000;
const PG_MAX_PARAMETERS = 65_535;

type AnyColumn = ReturnType<typeof getTableColumns<Table>>[string];
type Insertable<T extends Table> = T["$inferInsert"];
type SqliteStatement = { run(...params: unknown[]): { changes: number } };
/** PostgreSQL's insert builder, as far as this module uses it. */
type PgInsert = { insert(table: Table): { values(rows: readonly Record<string, unknown>[]): { run(): unknown } } };
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

function sqliteStatement(client: SqliteClient, table: Table, names: readonly string[], rows: number): SqliteStatement {
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
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

function* insertManyPg(tx: Tx, table: Table, rows: readonly Record<string, unknown>[]): Steps<number> {
  const perRow = Math.max(1, columnsOf(table, rows[0]!).length);
  const batch = Math.min(PG_MAX_ROWS_PER_INSERT, Math.floor(PG_MAX_PARAMETERS / perRow));
  let changes = 0;
  for (let start = 0; start < rows.length; start += batch) {
    changes += (yield* q.run((tx as Tx & PgInsert).insert(table).values(rows.slice(start, start + batch)))).changes;
  }
  return changes;
}

/** Inserts `rows` into `table` (see the module note); returns how many rows were inserted. */
export function* insertMany<T extends Table>(tx: Tx, table: T, rows: readonly Insertable<T>[]): Steps<number> {
  if (!rows.length) return 0;
  const plain = rows as readonly Record<string, unknown>[];
  return is(tx, BaseSQLiteDatabase) ? yield* insertManySqlite(tx, table, plain) : yield* insertManyPg(tx, table, plain);
}
