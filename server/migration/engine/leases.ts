/**
 * The leases a worker holds while it works (worker.ts explains the scheme): its items' leases and,
 * for a run it claimed, the run's own. They are renewed every quarter of their length, so a worker
 * that is killed has its work taken over within one lease, and released when the work ends, so
 * another worker carries on at once. A worker helping with another's bulk run holds only the
 * leases of the companies it drives.
 */
import { runSync } from "@/db/database";
import type { Db } from "@/db/client";
import { claimItem, releaseItemLeases, renewItemLeases } from "./item-repository";
import { releaseRun, renewRunLease } from "./run-repository";
import { sleep } from "./runner";

export type HeldLeases = {
  /** Stops renewing and lets go of every lease held for the run. */
  release(): void;
};

/** Renews this worker's leases for `runId` until released (see the module comment). */
export function holdLeases(params: {
  db: Db;
  owner: string;
  leaseMs: number;
  runId: string;
  /** Set when this worker claimed the run: its lease is renewed too, and `onLost` is called when another worker holds it (cancelled, or taken over). */
  runLease?: { onLost: () => void };
  log: (line: string) => void;
}): HeldLeases {
  const { db, owner, leaseMs, runId, runLease, log } = params;
  const renew = setInterval(() => {
    try {
      const now = new Date();
      runSync(renewItemLeases(db, { owner, leaseMs, now }));
      if (runLease && !runSync(renewRunLease(db, { runId, owner, leaseMs, now }))) runLease.onLost();
    } catch (error) {
      // A busy database: the next renewal tries again well before the lease runs out.
      log(`lease renewal failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }, leaseMs / 4);
  return {
    release() {
      clearInterval(renew);
      runSync(releaseItemLeases(db, { owner, runId }));
      if (runLease) runSync(releaseRun(db, { runId, owner }));
    },
  };
}

/** Waits until this worker holds the item's lease (a dead worker's lease on it may still run out). */
export async function takeItemLease(db: Db, params: { itemId: string; runId: string; owner: string; leaseMs: number; signal: AbortSignal }): Promise<void> {
  const { itemId, runId, owner, leaseMs, signal } = params;
  for (;;) {
    if (runSync(claimItem(db, { itemId, runId, owner, leaseMs, now: new Date() }))) return;
    await sleep(Math.min(1_000, leaseMs / 4), signal);
  }
}
