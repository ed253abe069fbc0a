/**
 * Many rows into one table, as a step of the caller's transaction, the fastest way each database
 * allows. What differs between the dialects lives here, not in domain code:
 *
 * - SQLite: a statement of ROWS_PER_STATEMENT rows, prepared once per connection and run again for
 *   every full batch (a single-row one for the rest). Re-preparing a many-row statement for every
 *   chunk costs more than it saves (SQLite compiles thousands of parameters each time); a reused one
 *   runs a 100,000-row file in a fraction of the single-row statement's time.
 * - PostgreSQL: `COPY … FROM STDIN` (pg-copy-streams) in PostgreSQL's text format, COPY statements
 *   of PG_ROWS_PER_COPY rows, each batch written as it comes so the server stores one while the next
 *   is made. It costs the server far less than an INSERT of the same rows: 100,000 migration items
 *   in 1.9 s instead of 3.0 s as `insert … select * from unnest(…)` arrays (docs/benchmarks.md).
 *
 * `insertMany` stores rows already made; `loadMany` stores rows made while
 * the step runs (a RowProducer: a file read and its companies sealed batch by batch), so they are
 * never all held at once, and on PostgreSQL the server stores a batch while the next is made.
 *
 * Every row gives the same columns (the first row's keys decide them). Values are encoded by the
 * table's own columns (a Date as SQLite's epoch milliseconds, a JSON column as text…), null stays
 * null, and a column with a `$defaultFn` left out of the rows gets it per row, as drizzle's insert
 * would; other columns left out take the database's default.
 */
import { getTableColumns, getTableName, is, type Table } from "drizzle-orm";
import { from as copyFrom } from "pg-copy-streams";
import { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { once } from "node:events";
import { q, runSync, type Steps, type Tx } from "./database";

/** Rows per SQLite statement (× columns parameters; SQLite allows 32,766). */
const ROWS_PER_STATEMENT = 100;

type AnyColumn = ReturnType<typeof getTableColumns<Table>>[string];
type Insertable<T extends Table> = T["$inferInsert"];
type SqliteStatement = { run(...params: unknown[]): { changes: number } };
/** node-postgres's client, as far as this module uses it: a COPY is a query given a stream. */
type PgClient = { query<S extends ReturnType<typeof copyFrom>>(stream: S): S };
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

/** The characters COPY's text format escapes with a backslash. */
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIAL_ALL = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** One encoded value in COPY's text format: null as \N, a boolean as t or f, text with its backslashes, tabs and line breaks escaped. */
function copyText(value: unknown): string {
  if (value === null) return "\\N";
  const text = typeof value === "string" ? value : typeof value === "boolean" ? (value ? "t" : "f") : String(value);
  return COPY_SPECIAL.test(text) ? text.replace(COPY_SPECIAL_ALL, (c) => COPY_ESCAPES[c]!) : text;
}

/** The lines of `rows` in COPY's text format, one string. */
function copyLines(columns: readonly CopyColumn[], rows: readonly Record<string, unknown>[]): string {
  let lines = "";
  for (const row of rows) {
    let line = columns[0]!.text(row);
    for (let i = 1; i < columns.length; i++) line += `\t${columns[i]!.text(row)}`;
    lines += `${line}\n`;
  }
  return lines;
}

/** A column as COPY writes it: its value of a row in COPY's text format. */
type CopyColumn = { text(row: Record<string, unknown>): string };

/**
 * Each column's writer: the value encoded as drizzle's insert would (encode), then as COPY's text.
 * A moment equal to the row before's reuses its text (every item of a file has the same `updated_at`,
 * and a date's text costs a microsecond a row).
 */
function copyColumns(columns: readonly [string, AnyColumn][]): CopyColumn[] {
  return columns.map(([key, column]) => {
    let lastTime = NaN;
    let lastText = "";
    return {
      text(row) {
        const value = row[key];
        if (value instanceof Date) {
          const time = value.getTime();
          if (time !== lastTime) {
            lastTime = time;
            lastText = copyText(encode(column, value));
          }
          return lastText;
        }
        return copyText(encode(column, value));
      },
    };
  });
}

/**
 * Rows made while a transaction runs, stored as they come (loadMany): a generator that hands each
 * batch to `store` and yields between batches, where the runner may wait for the database to catch
 * up (on PostgreSQL when the COPY's buffer is full; never on SQLite, which stores each batch at once).
 */
export type RowProducer<R> = (store: (rows: readonly R[]) => void) => Generator<void, void, void>;

/**
 * Rows per PostgreSQL COPY statement. A COPY checks its rows' foreign keys when it ends (they are
 * AFTER triggers; 100,000 migration items' take about 0.65 s): a COPY per 10,000 rows has the server
 * check one part while the next is made, instead of all of them after the last row.
 */
const PG_ROWS_PER_COPY = 10_000;

/** `copy <table> (<columns>) from stdin` on the client; resolves to the rows stored once the server has checked them. */
function openCopy(client: PgClient, table: Table, columns: readonly [string, AnyColumn][]): { stream: ReturnType<typeof copyFrom>; stored: Promise<number> } {
  const stream = client.query(copyFrom(`copy ${quote(getTableName(table))} (${columns.map(([, column]) => quote(column.name)).join(", ")}) from stdin`));
  const stored = new Promise<number>((resolve, reject) => {
    stream.on("error", reject);
    stream.on("finish", () => resolve(stream.rowCount));
  });
  // Awaited at the end; a failure while the producer still runs surfaces there (or at a drain).
  stored.catch(() => undefined);
  return { stream, stored };
}

/**
 * PostgreSQL: the producer's rows in COPY statements of PG_ROWS_PER_COPY rows (columns the first
 * row's), each batch written as the producer hands it on. The next COPY opens once the one before
 * has ended (node-postgres runs one query at a time); the lines made meanwhile wait for it. At each
 * of the producer's yields the runner lets the connection's events in and, while the server is
 * behind (the open COPY's buffer full), waits. Resolves to the rows stored. A producer that throws
 * abandons the open COPY, and the transaction with it.
 */
async function loadPg(client: PgClient, table: Table, produce: RowProducer<Record<string, unknown>>): Promise<number> {
  let columns: [string, AnyColumn][] | undefined;
  let writers: CopyColumn[] = [];
  let open: { stream: ReturnType<typeof copyFrom>; rows: number } | undefined;
  let ending = false;
  let waiting: { lines: string[]; rows: number } = { lines: [], rows: 0 };
  const copies: Promise<number>[] = [];
  const write = (lines: string, rows: number) => {
    if (!open) {
      const copy = openCopy(client, table, columns!);
      copies.push(copy.stored);
      open = { stream: copy.stream, rows: 0 };
    }
    open.stream.write(lines);
    open.rows += rows;
    if (open.rows < PG_ROWS_PER_COPY) return;
    open.stream.end();
    open = undefined;
    ending = true;
    // The next COPY opens as soon as this one has ended, with the lines made meanwhile.
    copies.at(-1)!.then(
      () => {
        ending = false;
        release();
      },
      () => undefined,
    );
  };
  /** The lines made while a COPY was ending, into the next. */
  const release = () => {
    if (ending || !waiting.rows) return;
    const { lines, rows } = waiting;
    waiting = { lines: [], rows: 0 };
    write(lines.join(""), rows);
  };
  const store = (rows: readonly Record<string, unknown>[]) => {
    if (!rows.length) return;
    if (!columns) writers = copyColumns((columns = columnsOf(table, rows[0]!)));
    const lines = copyLines(writers, rows);
    if (ending || waiting.rows) {
      waiting.lines.push(lines);
      waiting.rows += rows.length;
    } else write(lines, rows.length);
  };
  try {
    const steps = produce(store);
    for (let step = steps.next(); !step.done; step = steps.next()) {
      // The connection's events in: a COPY that has ended opens the next.
      await new Promise(setImmediate);
      // The server behind: the open COPY's buffer full, or a COPY's worth of lines waiting for the next.
      if (open?.stream.writableNeedDrain) await once(open.stream, "drain");
      while (ending && waiting.rows >= PG_ROWS_PER_COPY) await copies.at(-1);
    }
  } catch (error) {
    open?.stream.destroy(error as Error);
    throw error;
  }
  while (ending) await copies.at(-1);
  open?.stream.end();
  return (await Promise.all(copies)).reduce((sum, n) => sum + n, 0);
}

/** PostgreSQL: the producer's rows in COPY statements (see loadPg), as one step the runner awaits on the transaction's own connection. */
function* loadManyPg(tx: Tx, table: Table, produce: RowProducer<Record<string, unknown>>): Steps<number> {
  const client = pgClient(tx);
  const copy = { then: (resolve: (r: { rowCount: number }) => unknown, reject: (e: unknown) => unknown) => loadPg(client, table, produce).then((rowCount) => resolve({ rowCount }), reject) };
  return (yield* q.run(copy as typeof copy & { run(): unknown })).changes;
}

/** SQLite: each batch stored as the producer hands it on, inside the runner's synchronous step. */
function* loadManySqlite(tx: Tx, table: Table, produce: RowProducer<Record<string, unknown>>): Steps<number> {
  const load = {
    run: () => {
      let changes = 0;
      const steps = produce((rows) => {
        if (rows.length) changes += runSync(insertManySqlite(tx, table, rows));
      });
      for (let step = steps.next(); !step.done; step = steps.next());
      return { changes };
    },
  };
  return (yield* q.run(load)).changes;
}

/**
 * Stores the rows `produce` makes while the step runs (see RowProducer), the fastest way each
 * database allows (see the module note); returns how many rows were stored. For rows too many to
 * hold at once: each batch is let go once stored.
 */
export function* loadMany<T extends Table>(tx: Tx, table: T, produce: RowProducer<Insertable<T>>): Steps<number> {
  const plain = produce as RowProducer<Record<string, unknown>>;
  return is(tx, BaseSQLiteDatabase) ? yield* loadManySqlite(tx, table, plain) : yield* loadManyPg(tx, table, plain);
}

/** Inserts `rows` into `table` (see the module note); returns how many rows were inserted. */
export function* insertMany<T extends Table>(tx: Tx, table: T, rows: readonly Insertable<T>[]): Steps<number> {
  return yield* loadMany(tx, table, function* (store) {
    store(rows);
  });
}
