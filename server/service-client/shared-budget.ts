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
  /**
   * The worker process whose seat this is (its lease owner id): the seat's id is `<holder>/<uuid>`,
   * so that a worker found dead has its seats made stale at once (server/migration/engine/liveness.ts)
   * instead of after the stale limit, and a new worker's seat is counted without waiting for it.
   */
  holder?: string;
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

/** One seat's state, which the named steps below share. */
type SeatState = {
  options: SharedBudgetOptions;
  store: BudgetStore;
  targetId: string;
  machineId: string;
  now: () => number;
  heartbeatMs: number;
  staleMs: number;
  sharesWindow: boolean;
  log: (line: string) => void;
  id: string;
  joined: boolean;
  closed: boolean;
  share: WindowShare;
  members: BudgetMember[];
  /** When the last heartbeat that was stored was stamped (epoch ms). */
  lastBeatOk: number;
  beating: Promise<void> | null;
  /** When the last regular heartbeat was started (epoch ms). */
  lastRegular: number;
  loop: ReturnType<typeof setInterval> | null;
  // --- The daily quota: blocks taken from the counter, counted as the member's row counts them ---
  counter: QuotaCounter | null;
  taken: number;
  used: number;
  /** Requests it may send in all before its next report (its last report's used + ahead). */
  bound: number;
  /** The bound a report on its way will set, kept meanwhile too. */
  pendingBound: number | null;
  fetching: Promise<void> | null;
  spentUntil: number;
  /** What the service's headers said was used of the quota, for the next heartbeat to store. */
  serviceUsed: (QuotaCounter & { used: number }) | null;
  /** When the requests of the last RECENT_MS were sent. */
  recent: number[];
  listeners: Set<() => void>;
};

/** A known daily quota's counter for the UTC day of `at`. */
function utcDayPeriodCounter(at: number, quota: number): QuotaCounter {
  const p = utcDayPeriod(at);
  return { period: p.period, quota, resetsAt: new Date(p.resetsAt) };
}

/** The counter of the target's known daily quota for today, or null: none is known in advance. */
function knownCounter(seat: SeatState): QuotaCounter | null {
  const quota = seat.options.knownDailyQuota;
  return quota === null ? null : utcDayPeriodCounter(seat.now(), quota);
}

/** A new seat's state from its options (defaults filled in); it has not joined yet. */
function seatStateOf(options: SharedBudgetOptions): SeatState {
  const now = options.now ?? (() => Date.now());
  return {
    options,
    store: options.store,
    targetId: options.targetId,
    machineId: options.machineId,
    now,
    heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
    staleMs: options.staleMs ?? STALE_MS,
    sharesWindow: options.sharesWindow ?? true,
    log: options.log ?? (() => {}),
    id: options.holder ? `${options.holder}/${crypto.randomUUID()}` : crypto.randomUUID(),
    joined: false,
    closed: false,
    share: { ready: false, why: "not_a_member" },
    members: [],
    lastBeatOk: Number.NEGATIVE_INFINITY,
    beating: null,
    lastRegular: 0,
    loop: null,
    counter: options.knownDailyQuota === null ? null : { ...utcDayPeriodCounter(now(), options.knownDailyQuota) },
    taken: 0,
    used: 0,
    bound: 0,
    pendingBound: null,
    fetching: null,
    spentUntil: 0,
    serviceUsed: null,
    recent: [],
    listeners: new Set(),
  };
}

/** Tells the pacer the share or the quota in hand changed, so that waiting requests go. */
function notify(seat: SeatState): void {
  for (const listener of seat.listeners) listener();
}

/** Requests sent per second over the last RECENT_MS (the size of the blocks it asks for follows it). */
function ratePerSecond(seat: SeatState): number {
  const { recent } = seat;
  const t = seat.now();
  while (recent.length && (recent[0] ?? 0) < t - RECENT_MS) recent.shift();
  if (!recent.length) return 0;
  return recent.length / (Math.max(1_000, t - (recent[0] ?? t)) / 1000);
}

/** Starts the counts afresh: a new period, or blocks that were handed back when this seat was found dead. */
function voidBlocks(seat: SeatState, next: QuotaCounter | null): void {
  seat.counter = next;
  seat.taken = 0;
  seat.used = 0;
  seat.bound = 0;
  seat.pendingBound = null;
  seat.spentUntil = 0;
}

/** The current period's counter, moving on to the next period once this one has ended. */
function currentCounter(seat: SeatState): QuotaCounter | null {
  if (seat.counter && seat.counter.resetsAt.getTime() <= seat.now()) voidBlocks(seat, knownCounter(seat));
  return seat.counter;
}

/** Whether its last stored heartbeat is recent: it stops sending well before the others could find it dead (a heartbeat late or more). */
function fresh(seat: SeatState): boolean {
  return seat.now() - seat.lastBeatOk < seat.staleMs - Math.min(seat.heartbeatMs, seat.staleMs / 3);
}

/** Joins if it has not, then renews its heartbeat with its quota report and reads its machine's live members into its share. */
async function heartbeat(seat: SeatState): Promise<void> {
  const { store, id, targetId } = seat;
  if (seat.closed) return;
  if (!seat.joined) {
    await store.join({ id, targetId, machineId: seat.machineId, sharesWindow: seat.sharesWindow, now: new Date(seat.now()) });
    seat.joined = true;
  }
  const t = seat.now();
  const c = currentCounter(seat);
  const ahead = c ? aheadOf({ inHand: seat.taken - seat.used, ratePerSecond: ratePerSecond(seat), heartbeatMs: seat.heartbeatMs }) : 0;
  const report = c ? { period: c.period, used: seat.used, ahead } : null;
  const reportedService = seat.serviceUsed;
  if (report) seat.pendingBound = report.used + ahead;
  try {
    const result = await store.heartbeat({ id, targetId, now: new Date(t), quota: report, serviceUsed: reportedService });
    if (seat.serviceUsed === reportedService) seat.serviceUsed = null;
    if (!result.alive) {
      // Found dead (a stall longer than the stale limit): its blocks were handed back and its share given away.
      seat.log(`rate budget: this worker's seat on target ${targetId} lapsed; joining again`);
      seat.joined = false;
      seat.share = { ready: false, why: "not_a_member" };
      voidBlocks(seat, seat.counter);
      return;
    }
    seat.lastBeatOk = t;
    if (report) seat.bound = report.used + ahead;
    seat.members = result.members;
    seat.share = windowShare({ members: seat.members, meId: id, machineId: seat.machineId, now: t, staleMs: seat.staleMs });
  } finally {
    seat.pendingBound = null;
  }
}

/** A heartbeat now, or the one already under way; a failure is logged (the next one tries again). */
function beat(seat: SeatState): Promise<void> {
  seat.beating ??= heartbeat(seat)
    .catch((error: unknown) => seat.log(`rate budget heartbeat failed: ${error instanceof Error ? error.message : String(error)}`))
    .finally(() => {
      seat.beating = null;
      notify(seat);
    });
  return seat.beating;
}

/** Takes a block of the daily quota from the shared counter, unless one is on its way or the quota was found spent a moment ago. */
function requestBlock(seat: SeatState): void {
  const c = currentCounter(seat);
  if (!c || seat.fetching || seat.closed || !seat.joined || seat.spentUntil > seat.now()) return;
  const usedAtAsk = seat.used;
  seat.fetching = seat.store
    .takeBlock({ id: seat.id, targetId: seat.targetId, counter: c, wanted: blockWanted(ratePerSecond(seat)), used: usedAtAsk, ratePerSecond: ratePerSecond(seat), now: new Date(seat.now()) })
    .then((r) => {
      if (seat.counter?.period !== c.period) return; // the period moved on meanwhile
      if (r.taken === 0 && r.granted === 0 && seat.taken > 0) {
        // Its row was gone: found dead meanwhile. The next heartbeat joins again.
        seat.joined = false;
        voidBlocks(seat, seat.counter);
        return;
      }
      seat.taken = r.taken;
      seat.bound = usedAtAsk + r.ahead;
      if (r.granted === 0) seat.spentUntil = Math.min(c.resetsAt.getTime(), seat.now() + SPENT_RETRY_MS);
    })
    .catch((error: unknown) => {
      seat.log(`rate budget: taking a block of the daily quota failed: ${error instanceof Error ? error.message : String(error)}`);
      seat.spentUntil = seat.now() + 1_000;
    })
    .finally(() => {
      seat.fetching = null;
      notify(seat);
    });
}

/** Joins at once; then a heartbeat every heartbeatMs, faster while it waits to be counted or its last one is old. */
function startHeartbeats(seat: SeatState): void {
  void beat(seat);
  seat.lastRegular = seat.now();
  seat.loop = setInterval(() => {
    const due = seat.now() - seat.lastRegular >= seat.heartbeatMs || (!seat.share.ready && seat.joined) || !fresh(seat);
    if (!due) return;
    seat.lastRegular = seat.now();
    void beat(seat);
  }, seat.heartbeatMs / 4);
  seat.loop.unref?.();
}

/**
 * What a seat does before one more request, from its quota counts: `send` (it holds quota within
 * what its last report allows); `report` (past that bound, with quota still in hand: a heartbeat
 * first); `take_block` (none in hand: a block first).
 */
export function quotaStep(counts: { taken: number; used: number; bound: number; pendingBound: number | null }): "send" | "report" | "take_block" {
  const { taken, used } = counts;
  if (used >= Math.min(counts.bound, counts.pendingBound ?? Number.POSITIVE_INFINITY)) return taken - used > 0 ? "report" : "take_block";
  return taken - used <= 0 ? "take_block" : "send";
}

/** Whether it holds daily quota for one more request; when not, it reports or asks for a block (and the pacer is called back). */
function canSpendQuota(seat: SeatState): boolean {
  if (!currentCounter(seat)) return true;
  const step = quotaStep(seat);
  // Past what its last report allows: report now (an early heartbeat), then carry on.
  if (step === "report") void beat(seat);
  else if (step === "take_block") requestBlock(seat);
  return step === "send";
}

/** Counts one request sent. */
function spendQuota(seat: SeatState): void {
  seat.recent.push(seat.now());
  if (!seat.counter) return;
  seat.used += 1;
  // The next block is asked for while a quarter of this one is left, so sending never waits on it.
  if (seat.taken - seat.used < blockWanted(ratePerSecond(seat)) / 4) requestBlock(seat);
}

/** The quota period an answer described: the one shared from now on, unless the target's quota is known in advance. */
function observeQuota(seat: SeatState, params: { limit: number; remaining: number; resetServer: number; resetLocal: number }): void {
  const { limit, remaining } = params;
  if (seat.options.knownDailyQuota !== null) return; // the target's known quota is the one shared
  const p = announcedPeriod(params.resetServer, params.resetLocal);
  const samePeriod = seat.counter?.period === p.period;
  const counter = seat.counter && samePeriod ? { ...seat.counter, quota: limit } : { period: p.period, quota: limit, resetsAt: new Date(p.resetsAt) };
  if (samePeriod) seat.counter = counter;
  else voidBlocks(seat, counter);
  const usedAtService = limit - remaining;
  const { serviceUsed } = seat;
  if (!serviceUsed || serviceUsed.period !== p.period || serviceUsed.used < usedAtService) seat.serviceUsed = { ...counter, used: usedAtService };
}

/** Leaves: stops heartbeating and, once what is on its way has settled, hands back the unused part of its blocks. */
async function leave(seat: SeatState): Promise<void> {
  if (seat.closed) return;
  seat.closed = true;
  if (seat.loop) clearInterval(seat.loop);
  // What is on its way decides what it holds, and so what it hands back.
  await seat.beating;
  await seat.fetching;
  if (!seat.joined) return;
  const c = seat.counter;
  await seat.store.leave({ id: seat.id, targetId: seat.targetId, quota: c ? { period: c.period, taken: seat.taken, used: seat.used } : null });
}

/** Joins the target's shared budget (see the module comment). */
export function joinSharedBudget(options: SharedBudgetOptions): SharedBudget {
  const seat = seatStateOf(options);
  startHeartbeats(seat);
  const { id } = seat;
  return {
    id,
    ready: () => !seat.closed && fresh(seat) && (seat.sharesWindow ? seat.share.ready : seat.joined),
    // A seat outside the split (the watch's few requests) keeps to the headers' remaining alone.
    windowAllowance: (limit) => (!seat.sharesWindow ? limit : seat.share.ready ? windowAllowance(limit, seat.share) : 0),
    ceilingFraction: () => (!seat.sharesWindow ? 1 : seat.share.ready ? 1 / seat.share.count : 0),
    sharedWithOthers: () => seat.sharesWindow && seat.share.ready && seat.share.count > 1,
    canSpendQuota: () => canSpendQuota(seat),
    spendQuota: () => spendQuota(seat),
    quotaHold: () => {
      const c = currentCounter(seat);
      if (!c || seat.taken - seat.used > 0 || seat.spentUntil <= seat.now()) return null;
      return { until: c.resetsAt.getTime(), limit: c.quota };
    },
    observeQuota: (params) => observeQuota(seat, params),
    wake: () => {
      seat.spentUntil = 0;
      notify(seat);
    },
    subscribe: (listener) => {
      seat.listeners.add(listener);
      return () => seat.listeners.delete(listener);
    },
    state: () => ({
      id,
      share: seat.share,
      members: seat.members.length,
      quota: seat.counter ? { period: seat.counter.period, quota: seat.counter.quota, taken: seat.taken, used: seat.used, bound: seat.bound } : null,
    }),
    beat: () => beat(seat),
    leave: () => leave(seat),
  };
}
