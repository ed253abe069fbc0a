/**
 * Knowing a dead worker at once, where that can be known, instead of waiting out its leases.
 *
 * Every worker registers as it starts (worker_processes: its lease owner id, its host, its process
 * id, and on PostgreSQL that it holds a session-level advisory lock on its owner id on a connection
 * of its own) and leaves as it stops. Before it claims, a worker looks at the others registered:
 * - **on its own host** (the same host name and process namespace), a worker whose process is gone
 *   (`process.kill(pid, 0)` answers ESRCH) is dead;
 * - **on PostgreSQL**, a worker whose advisory lock is free is dead: the server releases a
 *   session's locks the moment its connection ends, as it does when the process is killed.
 * A dead worker's leases on runs and companies are made to run out now (their owner kept, so its
 * companies are claimed before any free one, as when a lease runs out by itself), its seats in the
 * targets' rate budgets go stale now (its share of the window and its unused quota come back, and a
 * new seat need not wait for it to heartbeat), and its row goes.
 * What cannot be known — a worker on another machine on SQLite's shared file, a machine that
 * vanished without closing its connection — is still taken over when its lease runs out.
 *
 * Being wrong is safe both ways: a process id reused by another process reads as alive (the lease
 * then decides); a live worker read as dead (its lock connection dropped) loses its leases, and its
 * writes, each fenced by its claim's token, are refused from then on.
 */
import fs from "node:fs";
import os from "node:os";
import { and, gte, inArray, ne, or, sql } from "drizzle-orm";
import { openAdvisoryLocks, type AdvisoryLocks } from "@/db/advisory-locks";
import { q, readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { migrationItems, migrationRuns, rateBudgetMembers, workerProcesses } from "@/db/schema";

/** The advisory-lock namespace of Ferry's workers (each one's key: hashtext of its owner id). */
export const WORKER_LOCK_NAMESPACE = 0x4665_7279; // "Fery"

export type WorkerRow = typeof workerProcesses.$inferSelect;

/**
 * Where a process id means something: the host name, and on Linux the process namespace (two
 * containers may share a host name, never a process namespace).
 */
export function hostOf(): string {
  try {
    return `${os.hostname()}/${fs.readlinkSync("/proc/self/ns/pid")}`;
  } catch {
    return os.hostname();
  }
}

/** Whether no process has this id here any more (ESRCH); a process we may not signal (EPERM) is alive. */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Registers a worker (or updates its row). */
export function* registerWorker(tx: Tx, row: WorkerRow): Steps<void> {
  yield* q.run(tx.insert(workerProcesses).values(row).onConflictDoUpdate({ target: workerProcesses.owner, set: { host: row.host, pid: row.pid, holdsLock: row.holdsLock, startedAt: row.startedAt } }));
}

/** The workers registered, but `owner`. */
export function* otherWorkers(tx: Tx, owner: string): Steps<WorkerRow[]> {
  return yield* q.all(tx.select().from(workerProcesses).where(ne(workerProcesses.owner, owner)));
}

/** Forgets a worker (it stopped, or it is dead). */
export function* forgetWorkers(tx: Tx, owners: readonly string[]): Steps<void> {
  if (owners.length) yield* q.run(tx.delete(workerProcesses).where(inArray(workerProcesses.owner, [...owners])));
}

/**
 * Makes the leases these (dead) workers hold on runs and companies run out now: their owner stays,
 * so the companies are claimed first as a dead worker's; only leases still running are touched
 * (the item leases by their expiry's index). Answers how many runs and items it freed.
 */
export function* expireLeasesOf(tx: Tx, owners: readonly string[], now: Date): Steps<{ runs: number; items: number }> {
  if (!owners.length) return { runs: 0, items: 0 };
  const past = new Date(now.getTime() - 1);
  const runs = yield* q.run(
    tx.update(migrationRuns).set({ leaseExpiresAt: past }).where(and(inArray(migrationRuns.leaseOwner, [...owners]), gte(migrationRuns.leaseExpiresAt, now))),
  );
  const items = yield* q.run(
    tx.update(migrationItems).set({ leaseExpiresAt: past }).where(and(gte(migrationItems.leaseExpiresAt, now), inArray(migrationItems.leaseOwner, [...owners]))),
  );
  // Its seats in the rate budgets (ids `<owner>/<uuid>`): stale now, as after the stale limit.
  const seatOf = (owner: string) => sql`substr(${rateBudgetMembers.id}, 1, ${sql.raw(String(owner.length + 1))}) = ${`${owner}/`}`;
  yield* q.run(tx.update(rateBudgetMembers).set({ heartbeatAt: new Date(0) }).where(or(...owners.map(seatOf))));
  return { runs: runs.changes, items: items.changes };
}

/** What one worker knows to tell the dead from the living. */
export type Liveness = {
  readonly owner: string;
  /** Registers this worker (once; later calls wait for the first). */
  register(): Promise<void>;
  /** Finds the workers known dead now and frees their leases; answers their owner ids. */
  reap(now?: Date): Promise<string[]>;
  /** Leaves the register and lets go of the advisory lock. */
  leave(): Promise<void>;
};

/** Whether a registered worker is known dead: its process gone from this host, or its advisory lock free. */
export async function isDead(row: WorkerRow, me: { host: string; pid: number }, locks: AdvisoryLocks | null): Promise<boolean> {
  if (row.host === me.host && row.pid !== me.pid && processGone(row.pid)) return true;
  return row.holdsLock && locks !== null && (await locks.isFree(WORKER_LOCK_NAMESPACE, row.owner));
}

/** A worker's liveness on the database: its own registration and advisory lock, and the reaping of the dead. */
export function createLiveness(params: { database: Database; owner: string; log: (line: string) => void; host?: string; pid?: number }): Liveness {
  const { database, owner, log } = params;
  const me = { host: params.host ?? hostOf(), pid: params.pid ?? process.pid };
  let locks: AdvisoryLocks | null = null;
  let registered: Promise<void> | null = null;
  const register = async () => {
    locks = await openAdvisoryLocks(database, (error) => log(`the advisory lock's connection ended (other workers may take this one's work over): ${error.message}`));
    const holdsLock = locks ? await locks.hold(WORKER_LOCK_NAMESPACE, owner) : false;
    await database.transaction((tx) => registerWorker(tx, { owner, host: me.host, pid: me.pid, holdsLock, startedAt: new Date() }), { isolation: "read committed" });
  };
  return {
    owner,
    register() {
      registered ??= register().catch((error: unknown) => {
        registered = null;
        throw error;
      });
      return registered;
    },
    async reap(now = new Date()) {
      const others = await readSteps(database, (tx) => otherWorkers(tx, owner));
      const dead: string[] = [];
      for (const row of others) if (await isDead(row, me, locks)) dead.push(row.owner);
      if (!dead.length) return [];
      const freed = await database.transaction(
        function* (tx) {
          const counts = yield* expireLeasesOf(tx, dead, now);
          yield* forgetWorkers(tx, dead);
          return counts;
        },
        { isolation: "read committed" },
      );
      log(`worker${dead.length > 1 ? "s" : ""} ${dead.join(", ")} found dead: took over at once ${freed.runs} run lease(s) and ${freed.items} company lease(s)`);
      return dead;
    },
    async leave() {
      await registered?.catch(() => {});
      await database.transaction((tx) => forgetWorkers(tx, [owner]), { isolation: "read committed" }).catch(() => {});
      await (locks as AdvisoryLocks | null)?.close();
    },
  };
}
