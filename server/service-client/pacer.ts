/**
 * Request pacing for bulk runs: a `fetch` the service client sends every HTTP attempt through, so
 * that a run uses the service's rate limit fully and never storms it.
 *
 * - **Budget from the headers.** Every answer's X-Rate-Limit-Limit/Remaining/Reset describe the
 *   limit that binds now. The pacer spends what remains of that window — less every request still
 *   unanswered, which the server may count after the answer was made (requests overtake each other
 *   on the way, so send order says nothing about count order) — and then waits for the window's
 *   reset before sending more. Within a window only the lowest Remaining seen counts; an answer
 *   from a window that has ended is ignored.
 * - **The server's clock.** X-Rate-Limit-Reset is a date on the server's clock (ISO 8601, an HTTP
 *   date or epoch seconds: rate-limit.ts reads the headers), which may be another machine's or a
 *   sandbox clock moved forward. The offset is bounded from every answer's `Date` header (whole
 *   seconds) and reset date, tightening as answers arrive; a reset is waited for until the latest
 *   local time it could be, so nothing is sent into a window that has not begun on the server.
 * - **Back off, grow again.** The requests in flight are capped by a window that grows by one per
 *   window of clean answers and halves on a 429 or a 503 (additive increase, multiplicative
 *   decrease) — once per burst: answers to requests sent before the last cut cut no more. A 429's
 *   or 503's Retry-After stops every request until it has passed.
 * - **Limits the service does not announce.** The real service blocks an address beyond 1,000
 *   requests a minute without a header saying so; `maxPerMinute` keeps a token bucket under it.
 * - **Shared with other workers** (optional `share`, shared-budget.ts). Every pacer on one machine
 *   sending to one target spends only its part of each short window (and of the per-minute
 *   ceiling), so together they keep to what the address is allowed; requests wait while the share
 *   is not yet known; each request spends a unit of the daily quota held in blocks from the shared
 *   counter, and requests wait while none is in hand. Without a share a pacer has the whole limit,
 *   as a lone worker does. The share is asked synchronously: no database round trip per request.
 *
 * Hand-written rather than p-queue/bottleneck: those pace to fixed rates set in advance, and this
 * paces to what the server reports on each answer.
 */
import { isQuotaWindow } from "./budget-rules";
import { parseRateLimit, parseServerDate } from "./rate-limit";

/** A pacer's part of a budget shared with other pacers on the same target (shared-budget.ts implements it). */
export type PacerShare = {
  /** Whether this pacer may send at all now (its share is known to the others and its own heartbeat fresh). */
  ready(): boolean;
  /** Its part of a short (per-address) window of `limit` requests. */
  windowAllowance(limit: number): number;
  /** Its fraction of the per-minute ceiling. */
  ceilingFraction(): number;
  /** Whether it shares the window with other pacers of its machine now (alone, it behaves as a lone pacer does). */
  sharedWithOthers(): boolean;
  /** Whether it holds daily quota for one more request (false: a block is on its way, or the quota is spent). */
  canSpendQuota(): boolean;
  /** Counts one request sent. */
  spendQuota(): void;
  /** The daily quota is spent (every member's blocks used up) until `until` (epoch ms). */
  quotaHold(): { until: number; limit: number } | null;
  /** An answer described a quota period (a window resetting far ahead): its limit, what remains, its reset on the server's clock and on this machine's. */
  observeQuota(params: { limit: number; remaining: number; resetServer: number; resetLocal: number }): void;
  /** Support resumed a held run: ask for quota again now. */
  wake(): void;
  /** Called when the share or the quota in hand changes, so that waiting requests go. */
  subscribe(listener: () => void): () => void;
};

export type PacerOptions = {
  /** In-flight requests at the start (default 8). */
  initialConcurrency?: number;
  /** In-flight requests at most (default 64). */
  maxConcurrency?: number;
  /** A ceiling of our own: requests per rolling minute (null: none). */
  maxPerMinute?: number | null;
  /** Extra wait after a window's reset before sending into the next (default 15 ms). */
  resetMarginMs?: number;
  /** The fetch requests go out through (the global one by default). */
  fetch?: typeof fetch;
  /** Milliseconds on a monotonic clock (performance.now by default; tests may pass their own). */
  now?: () => number;
  /** Epoch milliseconds for a monotonic `now` value (to compare with server dates). */
  wallClock?: () => number;
  /** This pacer's part of the target's budget shared with other workers (none: it has the whole limit). */
  share?: PacerShare | null;
};

/** Why requests are held back, and until when (epoch ms). */
export type PacerHold = {
  reason: "window_spent" | "retry_after" | "maintenance" | "minute_ceiling" | "quota_spent";
  /** When sending resumes (epoch ms, on this machine's clock). */
  until: number;
  /** The limit whose window is spent, when the headers named one. */
  limit: number | null;
};

export type PacerStats = {
  /** Requests sent, answers by class. */
  sent: number;
  answered: number;
  rateLimited: number;
  maintenance: number;
  /** Requests the server could not answer (timeouts, network errors). */
  failed: number;
  inFlight: number;
  concurrency: number;
  /** The binding limit as last reported: requests per window and what remains. */
  limit: number | null;
  remaining: number | null;
  /** Requests sent per second over the last 10 seconds. */
  recentRate: number;
  hold: PacerHold | null;
};

export type Pacer = {
  /** Sends a request once the limit allows it; reads the rate-limit headers of the answer. */
  fetch: typeof fetch;
  stats(): PacerStats;
  /** Forgets a spent window or a Retry-After (support resumed a run; the clock moved). */
  wake(): void;
};

type Window = {
  limit: number;
  /** Requests this window still allows, from our side (decremented at each send). */
  budget: number;
  /** Local (monotonic) time from which the next window may be used. */
  resetAt: number;
  /** The reset as the server stated it (epoch ms on its clock): the window's identity. */
  resetServer: number;
  /** The lowest X-Rate-Limit-Remaining seen in this window. */
  lowestRemaining: number;
  /** The send number of the answer this window was last set from. */
  seq: number;
  /** A quota period (resets far ahead), which the shared budget splits in blocks rather than by machine share. */
  long: boolean;
};

const RECENT_MS = 10_000;

/** A pacer for one run (one service target and API key). */
export function createPacer(options: PacerOptions = {}): Pacer {
  const now = options.now ?? (() => performance.now());
  const wallClock = options.wallClock ?? (() => performance.timeOrigin + now());
  const baseFetch = options.fetch ?? globalThis.fetch;
  const maxConcurrency = Math.max(1, options.maxConcurrency ?? 64);
  const resetMarginMs = options.resetMarginMs ?? 15;
  let concurrency = Math.min(maxConcurrency, Math.max(1, options.initialConcurrency ?? 8));
  const share = options.share ?? null;
  /** Requests sent into the current window, from our side (its allowance under a share). */
  let spentInWindow = 0;

  let window: Window | null = null;
  let pausedUntil = 0;
  let pauseReason: "retry_after" | "maintenance" = "retry_after";
  /** Bounds on (server clock − local monotonic clock), in ms, from Date and reset headers. */
  let offsetLo = Number.NEGATIVE_INFINITY;
  let offsetHi = Number.POSITIVE_INFINITY;

  let seq = 0;
  /** The last send number when the concurrency was last halved: answers to requests sent before it cut no more. */
  let cutAtSeq = 0;
  const inFlight = new Set<number>();
  const waiters: (() => void)[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let timerAt = Number.POSITIVE_INFINITY;
  const recent: number[] = [];
  const stats = { sent: 0, answered: 0, rateLimited: 0, maintenance: 0, failed: 0 };

  // Token bucket under a per-minute ceiling: 95 % of it, refilled evenly, at most 10 at once,
  // so no rolling minute can hold more than the ceiling.
  // Under a share the pacer has its fraction of the ceiling (rate and burst alike).
  const perMinute = options.maxPerMinute ?? null;
  const bucket = perMinute ? { tokens: Math.min(10, perMinute), at: now(), rate: (0.95 * perMinute) / 60_000, size: Math.min(10, perMinute) } : null;
  const bucketRate = () => (bucket && share ? bucket.rate * share.ceilingFraction() : (bucket?.rate ?? 0));
  const bucketSize = () => (bucket && share && perMinute ? Math.max(1, Math.min(bucket.size, Math.floor(perMinute * share.ceilingFraction()))) : (bucket?.size ?? 0));

  /** Whether this pacer has spent its part of a short window (only under a share). */
  const allowanceSpent = (w: Window) => share !== null && !w.long && spentInWindow >= share.windowAllowance(w.limit);
  const windowSpent = (w: Window) => w.budget <= 0 || allowanceSpent(w);

  const wakeAt = (at: number) => {
    if (timer && timerAt <= at) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timer = null;
        timerAt = Number.POSITIVE_INFINITY;
        pump();
      },
      Math.max(0, Math.ceil(at - now())),
    );
  };

  /** Lets waiting requests go while the limits allow. */
  function pump(): void {
    while (waiters.length) {
      const t = now();
      if (t < pausedUntil) return wakeAt(pausedUntil);
      // Not counted yet by the machine's other pacers: the share says when (it calls back).
      if (share && !share.ready()) return;
      // Joining others that already send, it knows nothing of the window they are in: one request
      // first, whose answer says what remains of it and when it resets.
      if (share && !window && stats.answered === 0 && inFlight.size > 0 && share.sharedWithOthers()) return;
      if (window && windowSpent(window)) {
        if (!Number.isFinite(window.resetAt)) {
          // Spent before any answer told when it resets: wait for one, or, with none to come (each
          // answered from an ended window, or refused), let one request through to learn it.
          if (inFlight.size > 0) return;
        } else {
          if (t < window.resetAt) return wakeAt(window.resetAt);
          // The window has ended: assume the next allows as many until an answer says otherwise.
          window = { ...window, budget: window.limit, resetAt: Number.POSITIVE_INFINITY, resetServer: Number.NaN, lowestRemaining: window.limit };
          spentInWindow = 0;
        }
      }
      if (inFlight.size >= Math.floor(concurrency)) return;
      if (bucket) {
        const rate = bucketRate();
        if (rate <= 0) return;
        bucket.tokens = Math.min(bucketSize(), bucket.tokens + (t - bucket.at) * rate);
        bucket.at = t;
        if (bucket.tokens < 1) return wakeAt(t + (1 - bucket.tokens) / rate);
      }
      // The daily quota in hand (a block on its way calls back).
      if (share && !share.canSpendQuota()) return;
      if (bucket) bucket.tokens -= 1;
      if (window) window.budget -= 1;
      spentInWindow += 1;
      share?.spendQuota();
      waiters.shift()?.();
    }
  }

  const acquire = (signal?: AbortSignal | null): Promise<number> =>
    new Promise((resolve, reject) => {
      signal?.throwIfAborted();
      const go = () => {
        signal?.removeEventListener("abort", onAbort);
        seq += 1;
        inFlight.add(seq);
        stats.sent += 1;
        const t = now();
        recent.push(t);
        while (recent.length && (recent[0] ?? 0) < t - RECENT_MS) recent.shift();
        resolve(seq);
      };
      const onAbort = () => {
        const i = waiters.indexOf(go);
        if (i >= 0) waiters.splice(i, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      waiters.push(go);
      pump();
    });

  /** Tightens the clock-offset bounds with one answer (its Date and, for short windows, its reset). */
  function learnOffset(params: { sentAt: number; receivedAt: number; date: number | null }): void {
    if (params.date === null) return;
    // The server stamped the answer between our send and our receipt, at a time in [date, date + 1 s).
    const lo = params.date - params.receivedAt;
    const hi = params.date + 1000 - params.sentAt;
    if (lo > offsetHi || hi < offsetLo) {
      // The server's clock jumped (a sandbox clock moved forward): start again from this answer.
      offsetLo = lo;
      offsetHi = hi;
      return;
    }
    offsetLo = Math.max(offsetLo, lo);
    offsetHi = Math.min(offsetHi, hi);
  }

  /** Reads an answer's headers into the window, the pause and the concurrency. */
  function observe(params: { seq: number; sentAt: number; response: Response }): void {
    const { response } = params;
    const receivedAt = now();
    const date = parseServerDate(response.headers)?.getTime() ?? null;
    learnOffset({ sentAt: params.sentAt, receivedAt, date });

    // Retry-After as a date is measured against the answer's Date, or this machine's clock without one.
    const info = parseRateLimit(response.headers, wallClock());
    if (info && info.limit !== null && info.remaining !== null && info.reset) {
      const { limit, remaining } = info;
      const reset = info.reset.getTime();
      // The latest local time the reset could be at, so nothing goes out before it on the server.
      const offset = Number.isFinite(offsetLo) ? offsetLo : date === null ? wallClock() - now() : date - receivedAt;
      const resetAt = reset - offset + resetMarginMs;
      const sameWindow = window !== null && Math.abs(reset - window.resetServer) < 100;
      // Requests still unanswered may be counted by the server after this answer was made: all of
      // them are taken off (a few answered out of order are counted twice, which only errs safe).
      const budget = remaining - (inFlight.size - 1);
      const long = isQuotaWindow(resetAt, receivedAt);
      if (resetAt <= receivedAt) {
        // An answer from a window that has ended says nothing about the one requests now go into.
      } else if (sameWindow && window) {
        // Within a window the lowest remaining is the latest the server has counted.
        if (remaining <= window.lowestRemaining) window = { ...window, limit, lowestRemaining: remaining, budget, seq: Math.max(window.seq, params.seq) };
      } else if (!window || params.seq > window.seq) {
        // Into a window assumed at the last reset went every request since; else, at least every
        // request from the oldest still unanswered on (the server counted this one in the new window).
        if (!(window && Number.isNaN(window.resetServer))) spentInWindow = seq - Math.min(params.seq, ...inFlight) + 1;
        window = { limit, budget, resetAt, resetServer: reset, lowestRemaining: remaining, seq: params.seq, long };
      }
      // A quota period is shared by blocks of the daily quota, across machines.
      if (share && long && resetAt > receivedAt) share.observeQuota({ limit, remaining, resetServer: reset, resetLocal: toWallAt(resetAt, receivedAt) });
    }
    const retryAfterMs = info?.retryAfterMs ?? null;

    if (response.status === 429 || response.status === 503) {
      if (response.status === 429) stats.rateLimited += 1;
      else stats.maintenance += 1;
      // One cut per burst: the requests in flight when the cut came were sent under the old
      // concurrency, so their 429s or 503s say nothing new (as TCP halves once per window of losses).
      if (params.seq > cutAtSeq) {
        concurrency = Math.max(1, concurrency / 2);
        cutAtSeq = seq;
      }
      const until = receivedAt + (retryAfterMs ?? 1000);
      if (until > pausedUntil) {
        pausedUntil = until;
        pauseReason = response.status === 503 ? "maintenance" : "retry_after";
      }
      if (window && response.status === 429) window.budget = Math.min(window.budget, 0);
    } else if (response.status < 500) {
      concurrency = Math.min(maxConcurrency, concurrency + 1 / Math.max(1, concurrency));
    }
  }

  /** A local monotonic time as epoch ms. */
  const toWallAt = (local: number, t: number) => wallClock() + (local - t);

  // A change of share or quota in hand lets waiting requests go.
  share?.subscribe(() => pump());

  const pacedFetch: typeof fetch = async (input, init) => {
    const id = await acquire(init?.signal);
    const sentAt = now();
    try {
      const response = await baseFetch(input, init);
      stats.answered += 1;
      observe({ seq: id, sentAt, response });
      return response;
    } catch (error) {
      stats.failed += 1;
      throw error;
    } finally {
      inFlight.delete(id);
      pump();
    }
  };

  return {
    fetch: pacedFetch,
    stats: () => {
      const t = now();
      const toWall = (local: number) => wallClock() + (local - t);
      let hold: PacerHold | null = null;
      const quotaHold = share?.quotaHold() ?? null;
      if (t < pausedUntil) hold = { reason: pauseReason, until: toWall(pausedUntil), limit: window?.limit ?? null };
      else if (quotaHold) hold = { reason: "quota_spent", until: quotaHold.until, limit: quotaHold.limit };
      else if (window && windowSpent(window) && Number.isFinite(window.resetAt) && t < window.resetAt) hold = { reason: "window_spent", until: toWall(window.resetAt), limit: window.limit };
      else if (bucket && bucket.tokens < 1 && waiters.length) hold = { reason: "minute_ceiling", until: toWall(t + (1 - bucket.tokens) / Math.max(bucketRate(), 1e-9)), limit: perMinute };
      while (recent.length && (recent[0] ?? 0) < t - RECENT_MS) recent.shift();
      const span = Math.min(RECENT_MS, Math.max(1000, t - (recent[0] ?? t)));
      return {
        ...stats,
        inFlight: inFlight.size,
        concurrency: Math.floor(concurrency),
        limit: window?.limit ?? null,
        remaining: window ? Math.max(0, share && !window.long ? Math.min(window.budget, share.windowAllowance(window.limit) - spentInWindow) : window.budget) : null,
        recentRate: recent.length / (span / 1000),
        hold,
      };
    },
    wake: () => {
      pausedUntil = 0;
      if (window) window = { ...window, budget: window.limit, resetAt: Number.POSITIVE_INFINITY, resetServer: Number.NaN, lowestRemaining: window.limit };
      spentInWindow = 0;
      share?.wake();
      pump();
    },
  };
}
