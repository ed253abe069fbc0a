/**
 * The rules of one rate budget per service target shared by every pacer that sends to it, on any
 * number of worker processes and machines (shared-budget.ts carries them out through the database,
 * budget-store.ts). Pure functions of what the members' rows say, so each rule is tested alone.
 *
 * - **Per address, per machine.** The service counts a window's requests per address, so the
 *   pacers of one machine split each short window (a second, a minute) among themselves: a live
 *   member's share is the window's limit divided by the machine's live members, the remainder going
 *   one each to the oldest. Other machines have their own addresses and their own windows.
 * - **Counted before spending.** A member that joins a machine where others already send spends
 *   nothing until each of them has heartbeaten since it joined (so each has seen it and cut its own
 *   share); alone, it spends at once.
 * - **Dead members.** A member whose heartbeat is older than the stale limit is dead: its share goes
 *   to the others at their next heartbeat, and its daily-quota blocks are handed back but for what it
 *   may have sent since its last report (it never sends more than that `ahead` unreported).
 * - **The daily quota, per account.** A target's quota for a period is one counter: members take it
 *   in blocks of about 20 s of their own sending (so each asks a few times a minute at most), never
 *   more than a fair part of what is left, and the counter never passes the quota.
 */

/** How often a member heartbeats, and after how long without one it is dead. */
export const HEARTBEAT_MS = 2_000;
export const STALE_MS = 6_000;
/** A heartbeat this much after a member joined was made after its row was written (a lock wait shorter than this aside). */
export const SEEN_AFTER_MS = 250;
/** A window that resets further ahead than this is a quota period (a day), not a per-address window. */
export const LONG_WINDOW_MS = 10 * 60_000;
/** A block of the quota lasts about this long at the member's own pace. */
export const BLOCK_SECONDS = 20;
/** The pace a member is assumed to send at before it has sent anything (requests per second). */
export const MIN_RATE_PER_SECOND = 10;

/** A member's row as the rules read it (times in epoch ms). */
export type BudgetMember = {
  id: string;
  machineId: string;
  sharesWindow: boolean;
  joinedAt: number;
  heartbeatAt: number;
  quotaPeriod: string | null;
  quotaTaken: number;
  quotaUsed: number;
  quotaAhead: number;
};

/** This member's place among its machine's live members that share the window. */
export type WindowShare =
  /** It may send: its part is the window divided by `count`, plus one when `index` < the remainder. */
  | { ready: true; count: number; index: number }
  /** It may not send yet: its row is gone or stale, or the others have not all seen it yet. */
  | { ready: false; why: "not_a_member" | "not_seen_yet" };

/** Whether a member's heartbeat is recent enough for it to count (and its blocks to be its own). */
export function isLive(member: Pick<BudgetMember, "heartbeatAt">, now: number, staleMs: number = STALE_MS): boolean {
  return now - member.heartbeatAt <= staleMs;
}

/** This member's share of its machine's per-address window (see the module comment). */
export function windowShare(params: { members: readonly BudgetMember[]; meId: string; machineId: string; now: number; staleMs?: number }): WindowShare {
  const staleMs = params.staleMs ?? STALE_MS;
  const peers = params.members
    .filter((m) => m.machineId === params.machineId && m.sharesWindow && isLive(m, params.now, staleMs))
    .sort((a, b) => a.joinedAt - b.joinedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const me = peers.find((m) => m.id === params.meId);
  if (!me) return { ready: false, why: "not_a_member" };
  // Each other member must have heartbeaten (and so read the members) after this one joined.
  const seen = peers.every((m) => m.id === me.id || m.heartbeatAt >= me.joinedAt + SEEN_AFTER_MS);
  if (!seen) return { ready: false, why: "not_seen_yet" };
  return { ready: true, count: peers.length, index: peers.indexOf(me) };
}

/** A member's part of a window of `limit` requests: the parts of all the machine's members add up to `limit`. */
export function windowAllowance(limit: number, share: { count: number; index: number }): number {
  const count = Math.max(1, share.count);
  const base = Math.floor(limit / count);
  return base + (share.index < limit % count ? 1 : 0);
}

/** What a dead member's blocks hand back: what it was granted, less what it reported sent and what it may have sent since. */
export function reclaimable(member: Pick<BudgetMember, "quotaTaken" | "quotaUsed" | "quotaAhead">): number {
  return Math.max(0, member.quotaTaken - member.quotaUsed - member.quotaAhead);
}

/** What a member that leaves hands back: what it was granted and did not send. */
export function unused(params: { taken: number; used: number }): number {
  return Math.max(0, params.taken - params.used);
}

/** The block a member asks for at its pace (requests per second): about BLOCK_SECONDS of sending. */
export function blockWanted(ratePerSecond: number): number {
  return Math.ceil(Math.max(MIN_RATE_PER_SECOND, ratePerSecond) * BLOCK_SECONDS);
}

/**
 * What the counter grants a member that wants `wanted`, with `left` of the quota unclaimed and
 * `members` members on the target: never more than is left, nor more than half of a fair part of
 * it (so the last of a day's quota is spread over everyone still sending), but at least one while
 * any is left.
 */
export function blockGranted(params: { wanted: number; left: number; members: number }): number {
  if (params.left <= 0 || params.wanted <= 0) return 0;
  const fair = Math.ceil(params.left / (2 * Math.max(1, params.members)));
  return Math.max(1, Math.min(params.wanted, params.left, fair));
}

/** How many more requests a member may send before its next report: two heartbeats at its pace, never more than it holds. */
export function aheadOf(params: { inHand: number; ratePerSecond: number; heartbeatMs?: number }): number {
  const heartbeatMs = params.heartbeatMs ?? HEARTBEAT_MS;
  const twoBeats = Math.ceil((Math.max(MIN_RATE_PER_SECOND, params.ratePerSecond) * 2 * heartbeatMs) / 1000);
  return Math.max(0, Math.min(params.inHand, twoBeats));
}

/** A daily quota's period: its name in the counter and when it ends. */
export type QuotaPeriod = { period: string; resetsAt: number };

/** A known daily quota's period: the UTC day of `now` (the service's day ends at 00:00 UTC). */
export function utcDayPeriod(now: number): QuotaPeriod {
  const day = new Date(now).toISOString().slice(0, 10);
  return { period: `day:${day}`, resetsAt: Date.parse(`${day}T00:00:00.000Z`) + 86_400_000 };
}

/** A quota the headers announced: its period is named by its reset as the server stated it (whole seconds). */
export function announcedPeriod(resetServerMs: number, resetLocalMs: number): QuotaPeriod {
  return { period: `until:${new Date(Math.round(resetServerMs / 1000) * 1000).toISOString()}`, resetsAt: resetLocalMs };
}

/** Whether a window that resets at `resetAt` (seen at `now`) is a quota period rather than a per-address window. */
export function isQuotaWindow(resetAt: number, now: number): boolean {
  return resetAt - now > LONG_WINDOW_MS;
}
