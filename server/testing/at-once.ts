/**
 * Test support for races on PostgreSQL: operations started together really contend. A connection of
 * the test's own holds the row they all need locked (as another change in flight would) until every
 * operation waits for a lock, or for two seconds when they do not wait (as without their lock),
 * then lets go, so they meet at the row at once. On SQLite, where one writer runs at a time, they
 * simply run.
 */
import { Client } from "pg";
import type { TestDatabase } from "./test-db";

/** Runs `operations` together behind `lock` (a `SELECT … FOR UPDATE` of the contended row); their settled results, in order. */
export async function atOnce<T>(t: Pick<TestDatabase, "dialect" | "env">, lock: { sql: string; params: unknown[] }, operations: (() => Promise<T>)[]): Promise<PromiseSettledResult<T>[]> {
  if (t.dialect !== "postgresql" || !("DATABASE_URL" in t.env) || !t.env.DATABASE_URL) return Promise.allSettled(operations.map((run) => run()));
  const holder = new Client({ connectionString: t.env.DATABASE_URL });
  await holder.connect();
  try {
    await holder.query("begin");
    await holder.query(lock.sql, lock.params);
    const running = Promise.allSettled(operations.map((run) => run()));
    const deadline = Date.now() + 2_000;
    for (;;) {
      // The holder's transaction would keep reading its first snapshot of the activity without the clear.
      await holder.query("select pg_stat_clear_snapshot()");
      const { rows } = await holder.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()",
      );
      if (rows[0]!.n >= operations.length || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await holder.query("commit");
    return await running;
  } finally {
    await holder.end();
  }
}
