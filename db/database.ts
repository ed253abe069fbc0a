/**
 * The database as domain code sees it, on SQLite (better-sqlite3, the embedded default) and on
 * PostgreSQL (node-postgres, selected by DATABASE_URL=postgres://…). One `Database` object:
 * `dialect`, `db` (the drizzle handle), `transaction(body, { isolation })` and `close()`. Its types
 * are the dialect's own in each of the two type checks (db/app-db.ts): SQLite's in `tsc -p .`,
 * PostgreSQL's in `tsc -p tsconfig.pg.json`, so domain code compiles only if it is right on both.
 *
 * Design note: how domain code is written against it
 *
 * - Outside a transaction, `await` drizzle queries: `const rows = await database.db.select()…`.
 *   Query builders are promises on both drivers. Read one row as `const [row] = await ….limit(1)`.
 *   Don't use the awaited result of a write without `.returning()` (SQLite and pg return different
 *   things). Use `.returning()`, or `q.run` in a transaction, which gives `{ changes }` on both.
 *
 * - A transaction body is a generator function. It builds queries on its `tx` and yields them
 *   through the `q` helpers, which keep the result types:
 *     const rows = yield* q.all(tx.select().from(users).where(…));   // T[]
 *     const row = yield* q.get(tx.select().from(users).where(…));    // T | undefined (first row)
 *     const { changes } = yield* q.run(tx.update(users).set(…).where(…));
 *   Helpers used inside transactions (the audit entry, ending sessions) are generators too,
 *   composed with `yield*`.
 *   Why generators: a better-sqlite3 connection is shared by the whole process. If a transaction
 *   awaited, another request's statements would run inside it, and `await` in a better-sqlite3
 *   transaction also skips rollback. So on SQLite the runner drives the body *synchronously* inside
 *   one BEGIN IMMEDIATE transaction and runs each yielded query with the sync API (.all/.get/.run).
 *   Nothing else can run between BEGIN and COMMIT. On PostgreSQL the same body runs in a real async
 *   transaction on a connection of its own (`db.transaction(async tx => …, { isolationLevel })`),
 *   with each yielded query awaited. A body written once behaves the same on both.
 *
 * - The rules for a body. (1) It only yields queries built on its own `tx`. A query built on
 *   `database.db` would run outside the transaction on PostgreSQL; the pg runner refuses it. (2) It
 *   does nothing slow or outside the database: no awaits, no password hashing, no mail, no HTTP. Do
 *   those before or after. (3) It may run more than once: on PostgreSQL a serialization failure or
 *   a deadlock rolls it back and the runner runs it again. So a body changes nothing but the
 *   database (no counters, no pushes to outer arrays), and values it must not regenerate (tokens,
 *   ids shown to someone) are made before it starts. (4) It doesn't catch database errors to carry
 *   on: on PostgreSQL a failed statement aborts the whole transaction.
 *
 * - Isolation is chosen per operation, because SQLite's single writer made every transaction
 *   serializable for free and PostgreSQL does not:
 *     "read committed": enough for writes that don't depend on what was read, for single atomic
 *       statements (an increment, `UPDATE … WHERE state = … RETURNING`, an upsert), and for "check,
 *       then change" on rows that exist when their reads lock them with `forUpdate(…)`
 *       (SELECT … FOR UPDATE). Contenders then queue on the row lock, which suits hot rows such
 *       as a sign-in throttle under parallel guesses.
 *     "serializable": "check, then change" whose check is about rows that may not exist yet
 *       ("no user has this email, so insert one"; "no organisation has this name"). Row locks
 *       cannot lock a missing row. The runner retries on 40001/40P01 with backoff.
 *   Work queues take rows with `forUpdate(query, { skipLocked: true })`.
 *   On SQLite `isolation` and `forUpdate` change nothing: BEGIN IMMEDIATE already serialises all
 *   writers.
 *
 * - Every module of Ferry is written this way. The synchronous SQLite handle (`getDb()`/`openDb()`
 *   in db/client.ts) is what the SQLite `Database` wraps; only SQLite's own concerns touch it (a
 *   WAL checkpoint after a purge, the tests of the file itself, benches that fill a SQLite file).
 */
import { Pool } from "pg";
import type BetterSqlite3 from "better-sqlite3";
import { drizzle as drizzlePg, type NodePgDatabase } from "drizzle-orm/node-postgres";
import type { AppDb, QueryRow, QueryRows } from "@/db/app-db";
import { getDb, type Db } from "./client";
import { databaseDialect, type DatabaseDialect } from "./dialect";
import * as pgSchema from "./schema.pg";

export type Dialect = DatabaseDialect;

/** What a step may build queries with, of a drizzle handle `D`. */
type TxOf<D> = Pick<D, Extract<"insert" | "select" | "update" | "delete" | "query", keyof D>>;

/**
 * The one handle a step builds its queries on: a transaction body's `tx`, or (read-only steps run by
 * `readSteps` on SQLite) the database itself. The dialect's own type in each type check (db/app-db.ts).
 */
export type Tx = TxOf<AppDb>;

/** One query a transaction body hands to its runner, and how its result is read. */
export type Step = { readonly read: "all" | "get" | "run"; readonly query: object };

/** A transaction body, or a helper composed into one with `yield*`, returning T. */
export type Steps<T> = Generator<Step, T, unknown>;

/** What a write without `.returning()` tells: how many rows it changed. */
export type Written = { changes: number };

export type Isolation = "read committed" | "repeatable read" | "serializable";

export type TransactionOptions = {
  /** What PostgreSQL needs for this operation to be correct (see the note above). SQLite is always serializable. */
  isolation: Isolation;
};

/** A `Database` whose drizzle handle is `D`. */
type DatabaseOf<D> = {
  readonly dialect: Dialect;
  /** The drizzle handle for queries outside transactions; await them. */
  readonly db: D;
  /** Runs a generator body as one transaction; resolves to what it returns, rejects (rolled back) with what it throws. */
  transaction<T>(body: (tx: TxOf<D>) => Steps<T>, options: TransactionOptions): Promise<T>;
  close(): Promise<void>;
};

/** The database as domain code sees it: the dialect's own types in each type check (db/app-db.ts). */
export type Database = DatabaseOf<AppDb>;
type SqliteDatabase = DatabaseOf<Db>;
type PgDatabase = DatabaseOf<NodePgDatabase<typeof pgSchema>>;

/**
 * The one place db/database.ts assumes that the dialect the environment selects is the one this
 * type check is for (db/app-db.ts): a cast from both dialects' union to one of its members. The
 * other type check makes the opposite assumption, so together they cover what runs.
 */
function asAppDatabase(database: SqliteDatabase | PgDatabase): Database {
  return database as Database;
}

/** The `yield*` helpers a transaction body reads and writes with. */
export const q = {
  /** Every row of a select, or of a write with `.returning()`. */
  *all<Q extends object>(query: Q): Steps<QueryRows<Q>> {
    return (yield { read: "all", query }) as QueryRows<Q>;
  },
  /** The first row (undefined when none) of a select, or the row of a write with `.returning()`. */
  *get<Q extends object>(query: Q): Steps<QueryRow<Q>> {
    return (yield { read: "get", query }) as QueryRow<Q>;
  },
  /** Runs a write; resolves to how many rows it changed. */
  *run(query: object): Steps<Written> {
    return (yield { read: "run", query }) as Written;
  },
};

/**
 * Locks the rows a select reads until the transaction ends (SELECT … FOR UPDATE on PostgreSQL;
 * with `skipLocked`, rows another transaction holds are passed over). On SQLite the query is
 * returned as it is: BEGIN IMMEDIATE already holds the only write lock.
 */
export function forUpdate<Q extends object>(query: Q, options: { skipLocked?: boolean } = {}): Q {
  const lockable = query as { for?: (strength: "update", config?: { skipLocked?: boolean }) => Q };
  if (typeof lockable.for !== "function") return query;
  return lockable.for("update", options.skipLocked ? { skipLocked: true } : undefined);
}

function isStep(value: unknown): value is Step {
  return !!value && typeof value === "object" && "read" in value && "query" in value;
}

function notAStep(value: unknown): TypeError {
  return new TypeError(`A transaction body yielded ${String(value)}; yield queries with yield* q.all/q.get/q.run.`);
}

type SyncQuery = { all(): unknown[]; get(): unknown; run(): { changes: number } };

function executeSync(step: Step): unknown {
  const query = step.query as SyncQuery;
  switch (step.read) {
    case "all":
      return query.all();
    case "get":
      return query.get();
    case "run":
      return { changes: query.run().changes } satisfies Written;
  }
}

/**
 * Drives a body to its end synchronously, running each query with better-sqlite3's sync API
 * (SQLite only): what the SQLite runner does inside its BEGIN IMMEDIATE, and `readSteps` outside one.
 */
export function runSync<T>(steps: Steps<T>): T {
  let next = steps.next();
  while (!next.done) {
    if (!isStep(next.value)) next = steps.throw(notAStep(next.value));
    else {
      let result: unknown;
      try {
        result = executeSync(next.value);
      } catch (error) {
        next = steps.throw(error);
        continue;
      }
      next = steps.next(result);
    }
  }
  return next.value;
}

type PgTx = { session?: unknown };

/**
 * A select read with q.get asks PostgreSQL for its first row alone (LIMIT 1), as better-sqlite3's
 * `.get()` reads one row: without it every match would cross the wire to be thrown away. A select
 * with a limit of its own keeps it; a write's RETURNING has no limit to set.
 */
function firstRowOnly(query: object): void {
  const select = query as { limit?: (n: number) => unknown; config?: { limit?: unknown } };
  if (typeof select.limit === "function" && select.config && select.config.limit === undefined) select.limit(1);
}

async function executeAsync(tx: PgTx, step: Step): Promise<unknown> {
  const query = step.query as { session?: unknown } & PromiseLike<unknown>;
  if ("session" in query && query.session !== tx.session) {
    throw new Error("A query in a transaction body was built on the database, not on the body's tx: it would run outside the transaction.");
  }
  if (step.read === "get") firstRowOnly(query);
  const result = await query;
  switch (step.read) {
    case "all":
      return result;
    case "get":
      return (result as unknown[])[0];
    case "run":
      return { changes: Array.isArray(result) ? result.length : ((result as { rowCount?: number | null }).rowCount ?? 0) } satisfies Written;
  }
}

async function runAsync<T>(tx: PgTx, steps: Steps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    if (!isStep(next.value)) next = steps.throw(notAStep(next.value));
    else {
      let result: unknown;
      try {
        result = await executeAsync(tx, next.value);
      } catch (error) {
        next = steps.throw(error);
        continue;
      }
      next = steps.next(result);
    }
  }
  return next.value;
}

const registry = new WeakMap<object, Database>();
/** Each SQLite `Database`'s better-sqlite3 connection, for SQLite's own concerns (db/checkpoint.ts). */
const sqliteClients = new WeakMap<Database, BetterSqlite3.Database>();

/** The better-sqlite3 connection under a SQLite `Database`; undefined on PostgreSQL. */
export function sqliteClientOf(database: Database): BetterSqlite3.Database | undefined {
  return sqliteClients.get(database);
}

/** The SQLite `Database` over an open better-sqlite3 handle (the same connection; one per handle). */
function sqliteDatabase(db: Db): Database {
  const sqlite: SqliteDatabase = {
    dialect: "sqlite",
    db,
    transaction<T>(body: (tx: TxOf<typeof db>) => Steps<T>): Promise<T> {
      // Runs now, to the end, before anything else on this process can: see the note above.
      try {
        return Promise.resolve(db.transaction((tx) => runSync(body(tx)), { behavior: "immediate" }));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    async close() {
      db.$client.close();
    },
  };
  const database = asAppDatabase(sqlite);
  registry.set(db, database);
  sqliteClients.set(database, db.$client);
  return database;
}

/** How many times a PostgreSQL transaction is tried when it loses a serialization race or a deadlock. */
export const PG_TRANSACTION_ATTEMPTS = 10;

/** SQLSTATEs after which the whole transaction may simply run again: serialization_failure, deadlock_detected. */
const RETRYABLE = new Set(["40001", "40P01"]);

function sqlState(error: unknown): string | undefined {
  for (let e = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
  }
  return undefined;
}

/** True when a PostgreSQL error means "run the transaction again". */
export function isRetryable(error: unknown): boolean {
  const code = sqlState(error);
  return code !== undefined && RETRYABLE.has(code);
}

/** The PostgreSQL `Database` over a node-postgres pool at `url`. */
export function openPostgres(url: string, options: { max?: number } = {}): Database {
  const pool = new Pool({ connectionString: url, max: options.max ?? 10 });
  const pg = drizzlePg(pool, { schema: pgSchema });
  const postgres: PgDatabase = {
    dialect: "postgresql",
    db: pg,
    async transaction<T>(body: (tx: TxOf<typeof pg>) => Steps<T>, { isolation }: TransactionOptions): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await pg.transaction((tx) => runAsync(tx as PgTx, body(tx)), { isolationLevel: isolation });
        } catch (error) {
          if (!isRetryable(error) || attempt >= PG_TRANSACTION_ATTEMPTS) throw error;
          // Full jitter, so the transactions that collided don't collide again in step.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1000, 5 * 2 ** attempt)));
        }
      }
    },
    async close() {
      // Sessions of its own opened on its server (db/advisory-locks.ts) end with it.
      await Promise.allSettled([...(closeHooks.get(database) ?? [])].map((hook) => hook()));
      await pool.end();
    },
  };
  const database = asAppDatabase(postgres);
  registry.set(pg, database);
  postgresUrls.set(database, url);
  return database;
}

/** The URL each PostgreSQL `Database` was opened on (db/advisory-locks.ts opens a session of its own there). */
const postgresUrls = new WeakMap<Database, string>();

/** What ends with a PostgreSQL `Database` when it is closed (a session of its own on its server). */
const closeHooks = new WeakMap<Database, Set<() => Promise<void>>>();

/** Runs `hook` when `database` is closed (PostgreSQL); answers a function that takes it back. */
export function onClose(database: Database, hook: () => Promise<void>): () => void {
  const hooks = closeHooks.get(database) ?? new Set();
  closeHooks.set(database, hooks);
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/** The URL a PostgreSQL `Database` was opened on; undefined on SQLite. */
export function postgresUrlOf(database: Database): string | undefined {
  return postgresUrls.get(database);
}

/**
 * How many of this machine's cores the database itself works on while this process stores rows:
 * none for SQLite (it stores on the caller's own thread, already counted as the caller's), one for a
 * PostgreSQL server on this machine (its backend parses, checks and indexes what it is sent), none
 * for one elsewhere. For a caller deciding whether a thread of its own would have a core to run on
 * (server/security/sealing-thread.ts), rather than take one from the database.
 */
export function coresTheDatabaseTakes(database: Database): number {
  const url = postgresUrlOf(database);
  if (!url) return 0;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  return host === "" || host === "localhost" || host === "::1" || host.startsWith("127.") ? 1 : 0;
}

/**
 * The `Database` a drizzle handle belongs to: the one it was opened as, or (a handle from
 * `openDb`) the SQLite one over it (tests and benches that open a second SQLite connection).
 */
export function databaseOf(db: Db | Database["db"]): Database {
  const known = registry.get(db);
  if (known) return known;
  if (!("$client" in db)) throw new Error("This drizzle handle belongs to no Database: open it with openDb or openPostgres.");
  return sqliteDatabase(db as Db);
}

/** DATABASE_URL when it selects PostgreSQL (db/dialect.ts decides; another kind of URL is refused there). */
export function postgresUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return databaseDialect(env) === "postgresql" ? env.DATABASE_URL!.trim() : undefined;
}

declare global {
  // Cached on globalThis so a dev server's reloads share one pool or connection.
  var __ferryDatabase: Database | undefined;
}

/** The process's database: PostgreSQL when DATABASE_URL says so, otherwise SQLite at DATABASE_FILE. */
export function getDatabase(): Database {
  if (!globalThis.__ferryDatabase) {
    const url = postgresUrl();
    globalThis.__ferryDatabase = url ? openPostgres(url) : databaseOf(getDb());
  }
  return globalThis.__ferryDatabase;
}

/**
 * Runs steps that only read, outside a transaction: straight on SQLite's connection (a read needs
 * no write lock there); on PostgreSQL in a read-committed transaction, since a step's queries must
 * be built on a transaction's handle.
 */
export function readSteps<T>(database: Database, body: (tx: Tx) => Steps<T>): Promise<T> {
  if (database.dialect === "sqlite") {
    try {
      return Promise.resolve(runSync(body(database.db)));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return database.transaction(body, { isolation: "read committed" });
}
