/**
 * Request-rate limits (reference §9), all in fixed windows on the sandbox clock:
 *
 * - per second, per client (unauthenticated requests per address): `rateLimitPerSecond`, always on;
 * - per minute, per client address: `requestsPerMinute` (off when null), the service's DoS limit;
 * - per UTC day, per client: `quotaPerDay` — 1,000 × (1 + connected companies), where a company is
 *   connected while it has a Linked connection; the day ends at 00:00 UTC on the sandbox clock.
 *
 * Every API request counts in every limit that is on, refused ones included. The X-Rate-Limit-*
 * headers describe the limit that binds: one that is exceeded (the one whose window ends last), else
 * the one with the fewest requests left (on a tie, the longer window). Windows are fixed, not
 * rolling, so a burst may straddle a boundary; advancing the sandbox clock ends them early, which
 * lets tests skip a wait.
 */
import type { Faults } from "./faults";

/** The daily quota's formula: a base plus this much per connected company. */
export const DAILY_QUOTA_BASE = 1_000;
export const DAILY_QUOTA_PER_CONNECTED_COMPANY = 1_000;

const SECOND_MS = 1_000;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export type LimitName = "perSecond" | "perMinute" | "perDay";

/** One limit as it stands after counting a request. */
export type LimitState = {
  name: LimitName;
  limit: number;
  remaining: number;
  /** Sandbox time (epoch ms) at which the window ends. */
  resetAt: number;
  exceeded: boolean;
};

export type RateDecision = {
  /** The limit the headers describe. */
  binding: LimitState;
  exceeded: boolean;
  /** Whole seconds (≥ 1) until every exceeded limit has reset; 0 when none is exceeded. */
  retryAfterSeconds: number;
  /** `binding.resetAt` as ISO 8601 UTC (the X-Rate-Limit-Reset header). */
  resetAtIso: string;
  /** The daily quota as it stands, when quota mode counted this request. */
  daily: LimitState | null;
};

const WINDOW_MS: Record<LimitName, number> = { perSecond: SECOND_MS, perMinute: MINUTE_MS, perDay: DAY_MS };

/** The limit that binds among those that are on (at least one), and how long a refused caller waits. */
export function bindingLimit(states: readonly LimitState[], now: number): Omit<RateDecision, "resetAtIso" | "daily"> {
  const exceeded = states.filter((s) => s.exceeded);
  const pool = exceeded.length ? exceeded : states;
  let binding = pool[0];
  if (!binding) throw new Error("bindingLimit needs at least one limit");
  for (const state of pool) {
    if (exceeded.length) {
      if (state.resetAt > binding.resetAt) binding = state;
    } else if (state.remaining < binding.remaining || (state.remaining === binding.remaining && WINDOW_MS[state.name] > WINDOW_MS[binding.name])) {
      binding = state;
    }
  }
  return {
    binding,
    exceeded: exceeded.length > 0,
    retryAfterSeconds: exceeded.length ? Math.max(1, Math.ceil((binding.resetAt - now) / 1000)) : 0,
  };
}

/** The daily quota for a client with `connected` connected companies. */
export function dailyQuota(connected: number): number {
  return DAILY_QUOTA_BASE + DAILY_QUOTA_PER_CONNECTED_COMPANY * connected;
}

/** Counts requests per key in fixed windows held in memory. */
class WindowCounter {
  private windows = new Map<string, { window: number; count: number }>();

  /** Counts one request for `key` in window number `window`; returns the count so far. */
  hit(key: string, window: number): number {
    let entry = this.windows.get(key);
    if (!entry || entry.window !== window) {
      // Old windows are dead weight: drop them all now and then rather than track each.
      if (this.windows.size > 10_000) this.windows.clear();
      entry = { window, count: 0 };
      this.windows.set(key, entry);
    }
    entry.count += 1;
    return entry.count;
  }

  clear(): void {
    this.windows.clear();
  }
}

/** Where the daily quota's counts and connected companies come from (the store). */
export type QuotaSource = {
  /** Counts one request of the client on `day` and returns the day's count. */
  countRequest(params: { clientId: string; day: number }): number;
  /** Forgets days before `day`. */
  forgetBefore(day: number): void;
  connectedCompanies(clientId: string): number;
  /** Changes whenever connected companies may have changed. */
  connectionChangeCount(): number;
};

/** The sandbox's request-rate limits. */
export class RateLimits {
  private perSecond = new WindowCounter();
  private perMinute = new WindowCounter();
  private connected = new Map<string, { changeCount: number; count: number }>();
  private lastDay = -1;
  private isoAt = -1;
  private isoText = "";

  constructor(private readonly quota: QuotaSource) {}

  /**
   * Counts one API request in every limit that is on and decides whether it may proceed.
   * `clientKey` is the per-second key (the client, or the address when unauthenticated);
   * `clientId` is null for unauthenticated requests, which have no daily quota.
   */
  check(params: { now: number; faults: Faults; clientKey: string; address: string; clientId: string | null }): RateDecision {
    const { now, faults } = params;
    const states: LimitState[] = [];

    const second = Math.floor(now / SECOND_MS);
    states.push(this.state("perSecond", faults.rateLimitPerSecond, this.perSecond.hit(params.clientKey, second), (second + 1) * SECOND_MS));

    if (faults.requestsPerMinute !== null) {
      const minute = Math.floor(now / MINUTE_MS);
      const count = this.perMinute.hit(params.address, minute);
      states.push(this.state("perMinute", faults.requestsPerMinute, count, (minute + 1) * MINUTE_MS));
    }

    if (faults.quotaPerDay && params.clientId !== null) {
      const day = Math.floor(now / DAY_MS);
      if (day !== this.lastDay) {
        this.quota.forgetBefore(day);
        this.lastDay = day;
      }
      const used = this.quota.countRequest({ clientId: params.clientId, day });
      states.push(this.state("perDay", dailyQuota(this.connectedCompanies(params.clientId)), used, (day + 1) * DAY_MS));
    }

    const decision = bindingLimit(states, now);
    if (decision.binding.resetAt !== this.isoAt) {
      this.isoAt = decision.binding.resetAt;
      this.isoText = new Date(this.isoAt).toISOString();
    }
    return { ...decision, resetAtIso: this.isoText, daily: states.find((s) => s.name === "perDay") ?? null };
  }

  /** Starts every in-memory window afresh (faults changed, or a reset); daily counts are stored. */
  clear(): void {
    this.perSecond.clear();
    this.perMinute.clear();
    this.connected.clear();
  }

  private state(name: LimitName, limit: number, count: number, resetAt: number): LimitState {
    return { name, limit, remaining: Math.max(0, limit - count), resetAt, exceeded: count > limit };
  }

  private connectedCompanies(clientId: string): number {
    const changeCount = this.quota.connectionChangeCount();
    const cached = this.connected.get(clientId);
    if (cached && cached.changeCount === changeCount) return cached.count;
    const count = this.quota.connectedCompanies(clientId);
    if (this.connected.size > 10_000) this.connected.clear();
    this.connected.set(clientId, { changeCount, count });
    return count;
  }
}
