/**
 * Account limits (seed §8) and the per-client rate limiter.
 */
import type { Plan } from "../store/store";

/** Companies a free-trial client may hold. */
export const FREE_COMPANY_LIMIT = 50;
/** Active API keys per client. */
export const API_KEY_LIMIT = 10;
/** Days a free account lives; after that every endpoint answers 402. */
export const FREE_ACCOUNT_DAYS = 365;

const DAY_MS = 86_400_000;

/** True when a free account is older than 365 days at sandbox time `now`. */
export function isAccountExpired(params: { plan: Plan; createdAt: number; now: number }): boolean {
  return params.plan === "free" && params.now - params.createdAt > FREE_ACCOUNT_DAYS * DAY_MS;
}

export type RateDecision = {
  limit: number;
  remaining: number;
  /** Real time (epoch ms) at which the current window ends. */
  resetAt: number;
  /** The same instant as ISO 8601 text (the X-Rate-Limit-Reset header). */
  resetAtIso: string;
  exceeded: boolean;
  retryAfterSeconds: number;
};

/**
 * Fixed one-second windows per caller, in real time: the sandbox clock jumps, a quota must not.
 * The window resets at each whole second.
 */
export class RateLimiter {
  private windows = new Map<string, { second: number; count: number }>();
  private isoSecond = -1;
  private isoText = "";

  /** Counts one request for `key` and says whether it is over `limit` in this second. */
  hit(params: { key: string; limit: number; realNow: number }): RateDecision {
    const second = Math.floor(params.realNow / 1000);
    let window = this.windows.get(params.key);
    if (!window || window.second !== second) {
      if (this.windows.size > 10_000) this.windows.clear();
      window = { second, count: 0 };
      this.windows.set(params.key, window);
    }
    window.count += 1;
    const resetAt = (second + 1) * 1000;
    if (this.isoSecond !== second) {
      this.isoSecond = second;
      this.isoText = new Date(resetAt).toISOString();
    }
    return {
      limit: params.limit,
      remaining: Math.max(0, params.limit - window.count),
      resetAt,
      resetAtIso: this.isoText,
      exceeded: window.count > params.limit,
      retryAfterSeconds: Math.max(1, Math.ceil((resetAt - params.realNow) / 1000)),
    };
  }

  clear(): void {
    this.windows.clear();
  }
}
