/**
 * One worker at a time for scheduled work that should not run side by side (the reminder-and-digest
 * tick): before each tick the worker takes or renews the work's lease in one statement (an upsert
 * that only writes when the lease is free, lapsed or already this worker's); a worker that does
 * not get it skips the tick. A holder that stops or dies lets it lapse after `leaseMs`, and the
 * next worker to look takes it over, so the work carries on after downtime. The work's own keys
 * still make each effect once; the lease keeps the workers from doing the same reading and
 * writing at once.
 */
import { and, eq, lt, or } from "drizzle-orm";
import { periodicLeases } from "@/db/schema";
import { q, type Database } from "@/db/database";

/** Takes or renews the lease named `name` for `owner` until `now + leaseMs`; true when this worker holds it. */
export async function holdPeriodicLease(database: Database, params: { name: string; owner: string; leaseMs: number; now?: Date }): Promise<boolean> {
  const now = params.now ?? new Date();
  const expiresAt = new Date(now.getTime() + params.leaseMs);
  return database.transaction(
    function* (tx) {
      const row = yield* q.get(
        tx
          .insert(periodicLeases)
          .values({ name: params.name, owner: params.owner, expiresAt, tickedAt: now })
          .onConflictDoUpdate({
            target: periodicLeases.name,
            set: { owner: params.owner, expiresAt, tickedAt: now },
            setWhere: or(lt(periodicLeases.expiresAt, now), eq(periodicLeases.owner, params.owner)),
          })
          .returning({ name: periodicLeases.name }),
      );
      return row !== undefined;
    },
    { isolation: "read committed" },
  );
}

/** Lets the lease go at once (a worker stopping cleanly), if this worker holds it. */
export async function releasePeriodicLease(database: Database, params: { name: string; owner: string }): Promise<void> {
  await database.transaction(
    function* (tx) {
      yield* q.run(tx.delete(periodicLeases).where(and(eq(periodicLeases.name, params.name), eq(periodicLeases.owner, params.owner))));
    },
    { isolation: "read committed" },
  );
}
