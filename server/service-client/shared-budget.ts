/**
 * A pacer's seat in its target's shared rate budget (budget-rules.ts: what is shared and how;
 * budget-store.ts: where). The pacer asks it, synchronously and without touching the database,
 * how much of a window it may spend and whether it holds daily quota to send one more request;
 * the seat keeps those answers true in the background:
 *
 * - it joins the target's members in the database and heartbeats every HEARTBEAT_MS, reading its
 *   machine's live members each time, so its window share follows workers starting and dying;
 * - when the target has a daily quota (set on the target, or announced by the headers once it
 *   binds) it takes blocks of it from the shared counter before sending, a new one when the one
 *   in hand runs low, and reports what it sent at each heartbeat; it never sends more than `ahead`
 *   past its last report, so a dead member's unsent blocks can be handed back safely;
 * - it sends nothing while its heartbeat is too old to be counted (the database was unreachable,
 *   or the process stalled), since the others may then have taken its share;
 * - `leave()` hands back the blocks it did not use.
 */
import crypto from "node:crypto";
import {
  aheadOf,
  announcedPeriod,
  blockWanted,
  HEARTBEAT_MS,
  STALE_MS,
  utcDayPeriod,
  windowAllowance,
  windowShare,
  type BudgetMember,
  type WindowShare,
} from "./budget-rules";
import type { BudgetStore, QuotaCounter } from "./budget-store";
import type { PacerShare } from "./pacer";

export type SharedBudgetOptions = {
  store: BudgetStore;
  targetId: string;
  /** The machine whose address the service counts (FERRY_MACHINE_ID, else the host name). */
  machineId: string;
  /** A daily quota known in advance (the target's), or null: the one the headers announce once it binds, if any. */
  knownDailyQuota: number | null;
  /** Whether this seat takes a share of the machine's per-address window (default true; the watch's trickle does not). */
  sharesWindow?: boolean;
  heartbeatMs?: number;
  staleMs?: number;
  /** Epoch milliseconds (Date.now by default; tests may pass their own). */
  now?: () => number;
  log?: (line: string) => void;
};

export type SharedBudgetState = {
  id: string;
  share: WindowShare;
  members: number;
  quota: { period: string; quota: number; taken: number; used: number; bound: number } | null;
};

export type SharedBudget = PacerShare & {
  readonly id: string;
  state(): SharedBudgetState;
  /** Leaves the budget: stops heartbeating and hands back the unused part of its blocks. */
  leave(): Promise<void>;
  /** Resolves after the next heartbeat (tests). */
  beat(): Promise<void>;
};

const RECENT_MS = 10_000;
/** After the quota was found spent, ask again this often (others may hand blocks back). */
const SPENT_RETRY_MS = 30_000;

/** Joins the target's shared budget (see the module comment). */
export function joinSharedBudget(options: SharedBudgetOptions): SharedBudget {
  const { store, targetId, machineId } = options;
  const now = options.now ?? (() => Date.now());
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const staleMs = options.staleMs ?? STALE_MS;
  const sharesWindow = options.sharesWindow ?? true;
  const log = options.log ?? (() => {});
  const id = crypto.randomUUID();

  let joined = false;
  let closed = false;
  let share: WindowShare = { ready: false, why: "not_a_member" };
  let members: BudgetMember[] = [];
  /** When the last heartbeat that was stored was stamped (epoch ms). */
  let lastBeatOk = Number.NEGATIVE_INFINITY;
  let beating: Promise<void> | null = null;

  // --- The daily quota: blocks taken from the counter, counted as the member's row counts them ---
  let counter: QuotaCounter | null = options.knownDailyQuota === null ? null : { ...utcDayPeriodCounter(now(), options.knownDailyQuota) };
  let taken = 0;
  let used = 0;
  /** Requests it may send in all before its next report (its last report's used + ahead). */
  let bound = 0;
  /** The bound a report on its way will set, kept meanwhile too. */
  let pendingBound: number | null = null;
  let fetching: Promise<void> | null = null;
  let spentUntil = 0;
  let serviceUsed: (QuotaCounter & { used: number }) | null = null;
  const recent: number[] = [];
  const listeners = new Set<() => void>();

  function utcDayPeriodCounter(at: number, quota: number): QuotaCounter {
    const p = utcDayPeriod(at);
    return { period: p.period, quota, resetsAt: new Date(p.resetsAt) };
  }

  const notify = () => {
    for (const listener of listeners) listener();
  };

  function ratePerSecond(): number {
    const t = now();
    while (recent.length && (recent[0] ?? 0) < t - RECENT_MS) recent.shift();
    if (!recent.length) return 0;
    return recent.length / (Math.max(1_000, t - (recent[0] ?? t)) / 1000);
  }

  /** Starts the counts afresh: a new period, or blocks that were handed back when this seat was found dead. */
  function voidBlocks(next: QuotaCounter | null): void {
    counter = next;
    taken = 0;
    used = 0;
    bound = 0;
    pendingBound = null;
    spentUntil = 0;
  }

  /** The current period's counter, moving on to the next period once this one has ended. */
  function currentCounter(): QuotaCounter | null {
    if (counter && counter.resetsAt.getTime() <= now()) {
      voidBlocks(options.knownDailyQuota === null ? null : utcDayPeriodCounter(now(), options.knownDailyQuota));
    }
    return counter;
  }

  // Stops sending well before the others could find it dead (a heartbeat late or more).
  const fresh = () => now() - lastBeatOk < staleMs - Math.min(heartbeatMs, staleMs / 3);

  async function heartbeat(): Promise<void> {
    if (closed) return;
    if (!joined) {
      await store.join({ id, targetId, machineId, sharesWindow, now: new Date(now()) });
      joined = true;
    }
    const t = now();
    const c = currentCounter();
    const ahead = c ? aheadOf({ inHand: taken - used, ratePerSecond: ratePerSecond(), heartbeatMs }) : 0;
    const report = c ? { period: c.period, used, ahead } : null;
    const reportedService = serviceUsed;
    if (report) pendingBound = report.used + ahead;
    try {
      const result = await store.heartbeat({ id, targetId, now: new Date(t), quota: report, serviceUsed: reportedService });
      if (serviceUsed === reportedService) serviceUsed = null;
      if (!result.alive) {
        // Found dead (a stall longer than the stale limit): its blocks were handed back and its share given away.
        log(`rate budget: this worker's seat on target ${targetId} lapsed; joining again`);
        joined = false;
        share = { ready: false, why: "not_a_member" };
        voidBlocks(counter);
        return;
      }
      lastBeatOk = t;
      if (report) bound = report.used + ahead;
      members = result.members;
      share = windowShare({ members, meId: id, machineId, now: t, staleMs });
    } finally {
      pendingBound = null;
    }
  }

  function beat(): Promise<void> {
    beating ??= heartbeat()
      .catch((error: unknown) => log(`rate budget heartbeat failed: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        beating = null;
        notify();
      });
    return beating;
  }

  function requestBlock(): void {
    const c = currentCounter();
    if (!c || fetching || closed || !joined || spentUntil > now()) return;
    const usedAtAsk = used;
    fetching = store
      .takeBlock({ id, targetId, counter: c, wanted: blockWanted(ratePerSecond()), used: usedAtAsk, ratePerSecond: ratePerSecond(), now: new Date(now()) })
      .then((r) => {
        if (counter?.period !== c.period) return; // the period moved on meanwhile
        if (r.taken === 0 && r.granted === 0 && taken > 0) {
          // Its row was gone: found dead meanwhile. The next heartbeat joins again.
          joined = false;
          voidBlocks(counter);
          return;
        }
        taken = r.taken;
        bound = usedAtAsk + r.ahead;
        if (r.granted === 0) spentUntil = Math.min(c.resetsAt.getTime(), now() + SPENT_RETRY_MS);
      })
      .catch((error: unknown) => {
        log(`rate budget: taking a block of the daily quota failed: ${error instanceof Error ? error.message : String(error)}`);
        spentUntil = now() + 1_000;
      })
      .finally(() => {
        fetching = null;
        notify();
      });
  }

  // Joins at once; then a heartbeat every heartbeatMs, faster while it waits to be counted.
  void beat();
  let lastRegular = now();
  const loop = setInterval(() => {
    const due = now() - lastRegular >= heartbeatMs || (!share.ready && joined) || !fresh();
    if (!due) return;
    lastRegular = now();
    void beat();
  }, heartbeatMs / 4);
  loop.unref?.();

  return {
    id,
    ready: () => !closed && fresh() && (sharesWindow ? share.ready : joined),
    // A seat outside the split (the watch's few requests) keeps to the headers' remaining alone.
    windowAllowance: (limit) => (!sharesWindow ? limit : share.ready ? windowAllowance(limit, share) : 0),
    ceilingFraction: () => (!sharesWindow ? 1 : share.ready ? 1 / share.count : 0),
    sharedWithOthers: () => sharesWindow && share.ready && share.count > 1,
    canSpendQuota: () => {
      const c = currentCounter();
      if (!c) return true;
      if (used >= Math.min(bound, pendingBound ?? Number.POSITIVE_INFINITY)) {
        // Past what its last report allows: report now (an early heartbeat), then carry on.
        if (taken - used > 0) void beat();
        else requestBlock();
        return false;
      }
      if (taken - used <= 0) {
        requestBlock();
        return false;
      }
      return true;
    },
    spendQuota: () => {
      recent.push(now());
      if (!counter) return;
      used += 1;
      // The next block is asked for while a quarter of this one is left, so sending never waits on it.
      if (taken - used < blockWanted(ratePerSecond()) / 4) requestBlock();
    },
    quotaHold: () => {
      const c = currentCounter();
      if (!c || taken - used > 0 || spentUntil <= now()) return null;
      return { until: c.resetsAt.getTime(), limit: c.quota };
    },
    observeQuota: ({ limit, remaining, resetServer, resetLocal }) => {
      if (options.knownDailyQuota !== null) return; // the target's known quota is the one shared
      const p = announcedPeriod(resetServer, resetLocal);
      if (counter?.period !== p.period) voidBlocks({ period: p.period, quota: limit, resetsAt: new Date(p.resetsAt) });
      else counter = { ...counter, quota: limit };
      const usedAtService = limit - remaining;
      if (!serviceUsed || serviceUsed.period !== p.period || serviceUsed.used < usedAtService) serviceUsed = { ...counter!, used: usedAtService };
    },
    wake: () => {
      spentUntil = 0;
      notify();
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    state: () => ({
      id,
      share,
      members: members.length,
      quota: counter ? { period: counter.period, quota: counter.quota, taken, used, bound } : null,
    }),
    beat,
    async leave() {
      if (closed) return;
      closed = true;
      clearInterval(loop);
      // What is on its way decides what it holds, and so what it hands back.
      await beating;
      await fetching;
      if (!joined) return;
      const c = counter;
      await store.leave({ id, targetId, quota: c ? { period: c.period, taken, used } : null });
    },
  };
}
