/**
 * The leases a worker holds while it works (worker.ts explains the scheme): its items' leases and,
 * for a run it claimed, the run's own. They are renewed every quarter of their length, so a worker
 * that is killed has its work taken over within one lease, and released when the work ends, so
 * another worker carries on at once. A worker helping with another's bulk run holds only the
 * leases of the companies it drives.
 *
 * Every lease is held by one claim: the fencing token the claim (or takeover) set on the row. A
 * renewal names the tokens of the claims this worker holds now, so it never extends a lease from
 * a claim it lost, even when it has claimed the same run or item again since.
 *
 * A renewal is one short read-committed transaction (each of its updates touches only rows whose
 * lease owner is this worker, so it never waits on another worker's rows), and renewals never
 * overlap: when one is still running as the next is due (a slow database), the next starts as soon
 * as it ends instead of beside it, so renewals of one worker never queue on each other's row locks.
 */
import type { Database } from "@/db/database";
import { claimItem, releaseItemLeases, renewItemLeases } from "./item-repository";
import { releaseRun, renewRunLease } from "./run-repository";
import { sleep } from "./runner";

export type HeldLeases = {
  /** Renews the run's own lease from now on too, from the takeover `token` names (a helper that took the run over); `onLost` as for `runLease`. */
  holdRun(token: string, onLost: () => void): void;
  /** Renews an item's lease from the claim `token` names, until `dropItem` (or the release). */
  holdItem(itemId: string, token: string): void;
  dropItem(itemId: string): void;
  /** Stops renewing and lets go of every lease held for the run (once a renewal under way has ended). */
  release(): Promise<void>;
};

/**
 * Calls `task` every `periodMs` (from the start of one call to the start of the next) until
 * stopped; a call still running when the next is due delays it, never runs beside it.
 */
export function everyWithoutOverlap(task: () => Promise<void>, periodMs: number): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const schedule = (delay: number) => {
    timer = setTimeout(() => {
      timer = null;
      const startedAt = Date.now();
      running = task().finally(() => {
        running = null;
        if (!stopped) schedule(Math.max(0, periodMs - (Date.now() - startedAt)));
      });
    }, delay);
  };
  schedule(periodMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

/** Renews this worker's leases for `runId` until released (see the module comment). */
export function holdLeases(params: {
  database: Database;
  owner: string;
  leaseMs: number;
  runId: string;
  /** Set when this worker claimed the run (`token`: its claim's): its lease is renewed too, and `onLost` is called when another worker holds it (cancelled, or taken over). */
  runLease?: { token: string; onLost: () => void };
  log: (line: string) => void;
}): HeldLeases {
  const { database, owner, leaseMs, runId, log } = params;
  let runLease = params.runLease;
  /** The items held now, each by the token of the claim that took it. */
  const items = new Map<string, string>();
  const renewal = everyWithoutOverlap(async () => {
    try {
      const now = new Date();
      // Read committed: two fenced updates of this worker's own rows; nothing read is relied on.
      const run = runLease;
      const tokens = [...items.values()];
      const held = await database.transaction(
        function* (tx) {
          yield* renewItemLeases(tx, { owner, tokens, runId, leaseMs, now });
          return run ? yield* renewRunLease(tx, { runId, owner, token: run.token, leaseMs, now }) : true;
        },
        { isolation: "read committed" },
      );
      if (!held) run?.onLost();
    } catch (error) {
      // A busy database: the next renewal tries again well before the lease runs out.
      log(`lease renewal failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }, leaseMs / 4);
  return {
    holdRun(token, onLost) {
      runLease = { token, onLost };
    },
    holdItem(itemId, token) {
      items.set(itemId, token);
    },
    dropItem(itemId) {
      items.delete(itemId);
    },
    async release() {
      await renewal.stop();
      const run = runLease;
      await database.transaction(
        function* (tx) {
          yield* releaseItemLeases(tx, { owner, runId });
          if (run) yield* releaseRun(tx, { runId, owner, token: run.token });
        },
        { isolation: "read committed" },
      );
    },
  };
}

/** Waits until this worker holds the item's lease (a dead worker's lease on it may still run out); answers the claim's fencing token. */
export async function takeItemLease(database: Database, params: { itemId: string; runId: string; owner: string; leaseMs: number; signal: AbortSignal }): Promise<string> {
  const { itemId, runId, owner, leaseMs, signal } = params;
  for (;;) {
    // One conditional update: read committed (it is checked again on the row it locks).
    const claimed = await database.transaction((tx) => claimItem(tx, { itemId, runId, owner, leaseMs, now: new Date() }), { isolation: "read committed" });
    if (claimed?.leaseToken) return claimed.leaseToken;
    await sleep(Math.min(1_000, leaseMs / 4), signal);
  }
}
