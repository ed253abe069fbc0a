/**
 * The service's rate-limit headers (reference §9), read from every response: X-Rate-Limit-Limit,
 * -Remaining, -Reset ("the date when the quota will be reset": ISO 8601 or an HTTP date; epoch
 * seconds are accepted too) and Retry-After (seconds or an HTTP date). The one reader of them: the
 * client's call metadata and the bulk run's pacer both use it.
 */

export type RateLimitInfo = {
  /** Requests allowed in the current window or quota period. */
  limit: number | null;
  remaining: number | null;
  /** When the binding limit resets, as the server stated it. */
  reset: Date | null;
  /**
   * Milliseconds until the reset, measured against the response's Date header when there is one,
   * so a difference between the two clocks does not skew it.
   */
  resetInMs: number | null;
  /** Retry-After in milliseconds (on 429 and 503). */
  retryAfterMs: number | null;
};

function readInt(value: string | null): number | null {
  if (value === null || !/^\s*\d+\s*$/.test(value)) return null;
  return Number(value);
}

/** A date header: ISO 8601 / HTTP date text, or epoch seconds. */
function readDate(value: string | null): Date | null {
  if (value === null || value.trim() === "") return null;
  const trimmed = value.trim();
  if (/^\d{9,11}$/.test(trimmed)) return new Date(Number(trimmed) * 1000);
  const ms = Date.parse(trimmed);
  return Number.isNaN(ms) ? null : new Date(ms);
}

/** The answer's Date header: when the server made it, on the server's clock (null without one). */
export function parseServerDate(headers: Headers): Date | null {
  return readDate(headers.get("date"));
}

/** Retry-After in milliseconds: whole seconds, or an HTTP date measured against `now`. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  const seconds = readInt(value);
  if (seconds !== null) return seconds * 1000;
  const date = readDate(value);
  return date ? Math.max(0, date.getTime() - now) : null;
}

/** The rate-limit headers of a response; null when it has none of them. */
export function parseRateLimit(headers: Headers, receivedAt: number = Date.now()): RateLimitInfo | null {
  const limit = readInt(headers.get("x-rate-limit-limit"));
  const remaining = readInt(headers.get("x-rate-limit-remaining"));
  const reset = readDate(headers.get("x-rate-limit-reset"));
  const serverNow = parseServerDate(headers)?.getTime() ?? receivedAt;
  const retryAfterMs = parseRetryAfter(headers.get("retry-after"), serverNow);
  if (limit === null && remaining === null && reset === null && retryAfterMs === null) return null;
  return {
    limit,
    remaining,
    reset,
    resetInMs: reset ? Math.max(0, reset.getTime() - serverNow) : null,
    retryAfterMs,
  };
}
