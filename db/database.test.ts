/**
 * Runs on both databases: the database layer itself: transactions, isolation, retries, locks.
 * @module-tag both-databases
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq, inArray, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import { integer, pgTable, text } from "drizzle-orm/pg-core";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import { openDb, type Db } from "./client";
import { coresTheDatabaseTakes, databaseOf, forUpdate, openPostgres, postgresUrl, q, runSync, type Database, type Steps, type Tx, type Written } from "./database";
import { organizations } from "./schema";

/** The suite runs against SQLite, or against PostgreSQL when DATABASE_URL says so. */
const PG_URL = postgresUrl();

let dir: string;
let db: Db;
let database: Database;

/** A helper of the kind domain code composes into transactions: creates an organisation, returns its id. */
function* addOrganization(tx: Tx, name: string): Steps<string> {
  const org = yield* q.get(tx.insert(organizations).values({ name }).returning({ id: organizations.id }));
  return org.id;
}

/** A helper built on another helper. */
function* addOrganizations(tx: Tx, names: string[]): Steps<string[]> {
  const ids: string[] = [];
  for (const name of names) ids.push(yield* addOrganization(tx, name));
  return ids;
}

const names = async () => (await database.db.select({ name: organizations.name }).from(organizations)).map((o) => o.name).sort();

describe.skipIf(PG_URL)("the SQLite runner", () => {
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-database-"));
    db = openDb(path.join(dir, "ferry.db"));
    database = databaseOf(db);
  });
  afterEach(async () => {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("is the same Database for the same handle, and says it is SQLite", () => {
    expect(databaseOf(db)).toBe(database);
    expect(database.dialect).toBe("sqlite");
  });

  it("never lets the event loop run between BEGIN and COMMIT", async () => {
    const seen: string[] = [];
    const spy = (label: string) => () => seen.push(`${label}${db.$client.inTransaction ? " inside" : " outside"}`);
    queueMicrotask(spy("microtask"));
    void Promise.resolve().then(spy("then"));
    setImmediate(spy("immediate"));
    setTimeout(spy("timeout"), 0);
    const done = database.transaction(
      function* (tx) {
        for (let i = 0; i < 5; i++) {
          seen.push(`step ${i}${db.$client.inTransaction ? " inside" : " outside"}`);
          yield* addOrganization(tx, `Org ${i}`);
          yield* q.all(tx.select().from(organizations));
        }
        return "committed";
      },
      { isolation: "serializable" },
    );
    // The whole body ran, to COMMIT, inside the call.
    expect(db.$client.inTransaction).toBe(false);
    expect(seen).toEqual(["step 0 inside", "step 1 inside", "step 2 inside", "step 3 inside", "step 4 inside"]);
    expect(await done).toBe("committed");
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen.slice(5).sort()).toEqual(["immediate outside", "microtask outside", "then outside", "timeout outside"]);
  });

  it("does not interleave transactions started together", async () => {
    const log: string[] = [];
    const body = (who: string) =>
      function* (tx: Tx): Steps<void> {
        for (let i = 0; i < 3; i++) {
          log.push(`${who}${i}`);
          yield* addOrganization(tx, `${who} ${i}`);
        }
      };
    await Promise.all([database.transaction(body("a"), { isolation: "serializable" }), database.transaction(body("b"), { isolation: "serializable" })]);
    expect(log).toEqual(["a0", "a1", "a2", "b0", "b1", "b2"]);
  });

  it("rolls back everything the body wrote when it throws, and rejects with that error", async () => {
    const refusal = new Error("refused half-way");
    const failed = database.transaction(
      function* (tx) {
        yield* addOrganizations(tx, ["Kept?", "Also kept?"]);
        throw refusal;
      },
      { isolation: "read committed" },
    );
    await expect(failed).rejects.toBe(refusal);
    expect(await names()).toEqual([]);
  });

  it("hands a failing query's error to the body (its finally runs) and rolls back", async () => {
    await database.transaction((tx) => addOrganization(tx, "Taken"), { isolation: "serializable" });
    let cleanedUp = false;
    const failed = database.transaction(
      function* (tx) {
        try {
          yield* addOrganization(tx, "Fresh");
          yield* addOrganization(tx, "TAKEN"); // the unique index on lower(name)
        } finally {
          cleanedUp = true;
        }
      },
      { isolation: "serializable" },
    );
    await expect(failed).rejects.toThrow(/UNIQUE constraint failed/);
    expect(cleanedUp).toBe(true);
    expect(await names()).toEqual(["Taken"]);
  });

  it("composes helper generators and returns the body's value, typed", async () => {
    const result = await database.transaction(
      function* (tx) {
        const ids = yield* addOrganizations(tx, ["North", "South"]);
        const all = yield* q.all(tx.select().from(organizations));
        const first = yield* q.get(tx.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, ids[0]!)));
        const none = yield* q.get(tx.select().from(organizations).where(eq(organizations.name, "Nowhere")));
        const renamed = yield* q.run(tx.update(organizations).set({ name: sql`upper(${organizations.name})` }).where(inArray(organizations.id, ids)));
        const removed = yield* q.all(tx.delete(organizations).where(eq(organizations.id, ids[1]!)).returning({ id: organizations.id }));
        expectTypeOf(ids).toEqualTypeOf<string[]>();
        expectTypeOf(all).toEqualTypeOf<(typeof organizations.$inferSelect)[]>();
        expectTypeOf(first).toEqualTypeOf<{ name: string } | undefined>();
        expectTypeOf(renamed).toEqualTypeOf<Written>();
        expectTypeOf(removed).toEqualTypeOf<{ id: string }[]>();
        return { ids, count: all.length, first: first?.name, none, renamed: renamed.changes, removed: removed.map((r) => r.id) };
      },
      { isolation: "read committed" },
    );
    expectTypeOf(result.ids).toEqualTypeOf<string[]>();
    expect(result).toEqual({ ids: result.ids, count: 2, first: "North", none: undefined, renamed: 2, removed: [result.ids[1]] });
    expect(await names()).toEqual(["NORTH"]);
  });

  it("refuses a body that yields something other than a query (a missing star)", async () => {
    const failed = database.transaction(
      // @ts-expect-error yielding the helper itself instead of delegating to it with yield*
      function* (tx) {
        yield addOrganization(tx, "Never"); // eslint-disable-line ferry/delegate-steps -- the runner's own refusal is what this tests
      },
      { isolation: "read committed" },
    );
    await expect(failed).rejects.toThrow(/yield\* q\.all\/q\.get\/q\.run/);
    expect(await names()).toEqual([]);
  });

  it("runs a helper synchronously inside code that still uses better-sqlite3's own transactions", () => {
    const ids = db.transaction((tx) => runSync(addOrganizations(tx, ["Sync A", "Sync B"])));
    expect(ids).toHaveLength(2);
    expect(db.select().from(organizations).all().map((o) => o.name).sort()).toEqual(["Sync A", "Sync B"]);
  });

  it("leaves a select as it is for forUpdate (BEGIN IMMEDIATE already locks)", () => {
    const query = db.select().from(organizations);
    expect(forUpdate(query)).toBe(query);
  });
});

/**
 * The PostgreSQL runner, on a table of its own (so it needs nothing of the app's schema): real
 * async transactions, each on its own connection, with isolation, retries and row locks.
 */
describe.runIf(PG_URL)("the PostgreSQL runner", () => {
  const table = `database_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const counters = pgTable(table, { name: text("name").primaryKey(), n: integer("n").notNull() });
  type Counter = typeof counters.$inferSelect;
  /** The body's tx as pg's own (the app's tables are typed as SQLite's; this test's table is pg's). */
  const pg = (tx: Tx | Db) => tx as unknown as NodePgDatabase;
  /** A pg query seen by the q helpers, which are typed on the SQLite builders domain code uses. */
  const rows = <T>(query: PromiseLike<T[]>) => query as unknown as { all(): T[]; get(): T | undefined; run(): unknown };

  beforeEach(async () => {
    database = openPostgres(PG_URL!, { max: 20 });
    await pg(database.db).execute(sql.raw(`create table "${table}" (name text primary key, n integer not null)`));
    await pg(database.db).insert(counters).values({ name: "c", n: 0 });
  });
  afterEach(async () => {
    await pg(database.db).execute(sql.raw(`drop table if exists "${table}"`));
    await database.close();
  });

  const read = (tx: Tx) => q.get(rows(pg(tx).select().from(counters).where(eq(counters.name, "c"))));
  const count = async () => (await pg(database.db).select().from(counters).where(eq(counters.name, "c")))[0]!.n;

  /** Read, wait a moment (so others read the same value), then write what was read plus one. */
  function* increment(tx: Tx, lock: boolean): Steps<void> {
    const select = pg(tx).select().from(counters).where(eq(counters.name, "c"));
    const row = (yield* q.get(rows(lock ? forUpdate(select) : select))) as Counter;
    yield* q.run(rows(pg(tx).execute(sql`select pg_sleep(0.02)`) as unknown as PromiseLike<unknown[]>));
    yield* q.run(rows(pg(tx).update(counters).set({ n: row.n + 1 }).where(eq(counters.name, "c")).returning()));
  }

  it("says it is PostgreSQL and rolls back a body that throws", async () => {
    expect(database.dialect).toBe("postgresql");
    const refusal = new Error("refused half-way");
    const failed = database.transaction(
      function* (tx) {
        yield* q.run(rows(pg(tx).update(counters).set({ n: 99 }).where(eq(counters.name, "c")).returning()));
        throw refusal;
      },
      { isolation: "read committed" },
    );
    await expect(failed).rejects.toBe(refusal);
    expect(await count()).toBe(0);
  });

  it("loses updates with neither a lock nor serializable isolation (the race the others prevent)", async () => {
    await Promise.all(Array.from({ length: 8 }, () => database.transaction((tx) => increment(tx, false), { isolation: "read committed" })));
    expect(await count()).toBeLessThan(8);
  });

  it("serializable: parallel read-then-write transactions are retried until each has counted once", async () => {
    await Promise.all(Array.from({ length: 8 }, () => database.transaction((tx) => increment(tx, false), { isolation: "serializable" })));
    expect(await count()).toBe(8);
  });

  it("forUpdate: parallel read-then-write transactions queue on the row lock", async () => {
    await Promise.all(Array.from({ length: 8 }, () => database.transaction((tx) => increment(tx, true), { isolation: "read committed" })));
    expect(await count()).toBe(8);
  });

  it("reads one row for q.get: the select asks for its first row alone, and one with a limit of its own keeps it", async () => {
    await pg(database.db).insert(counters).values([{ name: "d", n: 1 }, { name: "e", n: 2 }]);
    const seen: { sql: string; limit: unknown; row: unknown }[] = [];
    await database.transaction(
      function* (tx) {
        for (const query of [pg(tx).select().from(counters).orderBy(counters.name), pg(tx).select().from(counters).orderBy(counters.name).limit(2)]) {
          const row = yield* q.get(rows(query));
          const statement = query.toSQL();
          seen.push({ sql: statement.sql, limit: statement.params.at(-1), row });
        }
      },
      { isolation: "read committed" },
    );
    expect(seen.map((s) => s.row)).toEqual([{ name: "c", n: 0 }, { name: "c", n: 0 }]);
    expect(seen.map((s) => [/ limit \$\d+$/.test(s.sql), s.limit])).toEqual([
      [true, 1],
      [true, 2],
    ]);
  });

  it("refuses a query built on the database instead of the body's tx", async () => {
    const failed = database.transaction(
      function* () {
        yield* q.run(rows(pg(database.db).update(counters).set({ n: 5 }).where(eq(counters.name, "c")).returning()));
      },
      { isolation: "read committed" },
    );
    await expect(failed).rejects.toThrow(/built on the database, not on the body's tx/);
    expect(await count()).toBe(0);
  });

  it("reads rows, the first row and changes like the SQLite runner", async () => {
    const result = await database.transaction(
      function* (tx) {
        yield* q.run(rows(pg(tx).insert(counters).values([{ name: "d", n: 1 }, { name: "e", n: 2 }]).returning()));
        const all = yield* q.all(rows(pg(tx).select().from(counters)));
        const none = yield* q.get(rows(pg(tx).select().from(counters).where(eq(counters.name, "zz"))));
        const changed = yield* q.run(rows(pg(tx).update(counters).set({ n: 7 }) as unknown as PromiseLike<unknown[]>));
        return { names: all.map((r) => r.name).sort(), none, changed: changed.changes, row: yield* read(tx) };
      },
      { isolation: "read committed" },
    );
    expect(result).toEqual({ names: ["c", "d", "e"], none: undefined, changed: 3, row: { name: "c", n: 7 } });
  });
});

describe("the cores a database takes while this process stores rows", () => {
  it("is none for SQLite, one for a PostgreSQL server on this machine, none for one elsewhere", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-cores-"));
    const sqlite = databaseOf(openDb(path.join(dir, "cores.db")));
    expect(coresTheDatabaseTakes(sqlite)).toBe(0);
    await sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
    // Pools connect on their first query; these never query.
    const cases = [
      ["postgres://ferry@127.0.0.1:5432/ferry", 1],
      ["postgres://ferry@localhost/ferry", 1],
      ["postgres://ferry@[::1]:5432/ferry", 1],
      ["postgres://ferry@db.internal.example:5432/ferry", 0],
      ["postgres://ferry@10.0.3.7/ferry", 0],
    ] as const;
    for (const [url, cores] of cases) {
      const pg = openPostgres(url);
      expect([url, coresTheDatabaseTakes(pg)]).toEqual([url, cores]);
      await pg.close();
    }
  });
});
