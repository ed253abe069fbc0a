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
import { parseRateLimit, parseServerDate, type RateLimitInfo } from "./rate-limit";

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
  /**
   * Holds every request until `untilWall` (epoch ms on this machine's clock): the service announced
   * its daily quota spent (`client.rateLimit.reached`) before any answer here said so. A later
   * hold of the answers' own still counts; `wake` lets go of it.
   */
  holdUntil(untilWall: number): void;
};

/** The window of the binding limit, as this pacer knows it. */
export type PacerWindow = {
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

/** Bounds on (server clock − local monotonic clock), in ms, from Date and reset headers. */
export type OffsetBounds = { lo: number; hi: number };

/** A token bucket under a per-minute ceiling. */
type Bucket = { tokens: number; at: number; rate: number; size: number };

/** One pacer's state, which the named steps below share. */
type PacerState = {
  now: () => number;
  wallClock: () => number;
  baseFetch: typeof fetch;
  maxConcurrency: number;
  resetMarginMs: number;
  concurrency: number;
  share: PacerShare | null;
  /** Requests sent into the current window, from our side (its allowance under a share). */
  spentInWindow: number;
  window: PacerWindow | null;
  pausedUntil: number;
  pauseReason: "retry_after" | "maintenance" | "quota_spent";
  offset: OffsetBounds;
  /** The send number of the last request sent. */
  seq: number;
  /** The last send number when the concurrency was last halved: answers to requests sent before it cut no more. */
  cutAtSeq: number;
  inFlight: Set<number>;
  waiters: (() => void)[];
  timer: ReturnType<typeof setTimeout> | null;
  timerAt: number;
  /** When the requests of the last RECENT_MS were sent. */
  recent: number[];
  stats: { sent: number; answered: number; rateLimited: number; maintenance: number; failed: number };
  perMinute: number | null;
  bucket: Bucket | null;
};

const RECENT_MS = 10_000;

/** A new pacer's state from its options (defaults filled in). */
function pacerStateOf(options: PacerOptions): PacerState {
  const now = options.now ?? (() => performance.now());
  const maxConcurrency = Math.max(1, options.maxConcurrency ?? 64);
  // Token bucket under a per-minute ceiling: 95 % of it, refilled evenly, at most 10 at once,
  // so no rolling minute can hold more than the ceiling.
  const perMinute = options.maxPerMinute ?? null;
  return {
    now,
    wallClock: options.wallClock ?? (() => performance.timeOrigin + now()),
    baseFetch: options.fetch ?? globalThis.fetch,
    maxConcurrency,
    resetMarginMs: options.resetMarginMs ?? 15,
    concurrency: Math.min(maxConcurrency, Math.max(1, options.initialConcurrency ?? 8)),
    share: options.share ?? null,
    spentInWindow: 0,
    window: null,
    pausedUntil: 0,
    pauseReason: "retry_after",
    offset: { lo: Number.NEGATIVE_INFINITY, hi: Number.POSITIVE_INFINITY },
    seq: 0,
    cutAtSeq: 0,
    inFlight: new Set(),
    waiters: [],
    timer: null,
    timerAt: Number.POSITIVE_INFINITY,
    recent: [],
    stats: { sent: 0, answered: 0, rateLimited: 0, maintenance: 0, failed: 0 },
    perMinute,
    bucket: perMinute ? { tokens: Math.min(10, perMinute), at: now(), rate: (0.95 * perMinute) / 60_000, size: Math.min(10, perMinute) } : null,
  };
}

/** The bucket's refill rate per ms: under a share, the pacer's fraction of the ceiling. */
function bucketRate(state: PacerState): number {
  const { bucket, share } = state;
  return bucket && share ? bucket.rate * share.ceilingFraction() : (bucket?.rate ?? 0);
}

/** The bucket's burst: under a share, the pacer's fraction of the ceiling too (at least one). */
function bucketSize(state: PacerState): number {
  const { bucket, share, perMinute } = state;
  return bucket && share && perMinute ? Math.max(1, Math.min(bucket.size, Math.floor(perMinute * share.ceilingFraction()))) : (bucket?.size ?? 0);
}

/** Whether this pacer has spent its part of a short window (only under a share). */
function allowanceSpent(state: PacerState, w: PacerWindow): boolean {
  return state.share !== null && !w.long && state.spentInWindow >= state.share.windowAllowance(w.limit);
}

/** Whether the window allows no more requests from this pacer (its budget, or its part of it, is spent). */
function windowSpent(state: PacerState, w: PacerWindow): boolean {
  return w.budget <= 0 || allowanceSpent(state, w);
}

/** The window after `w` has ended: assumed to allow as many until an answer says otherwise. */
function assumedNext(w: PacerWindow): PacerWindow {
  return { ...w, budget: w.limit, resetAt: Number.POSITIVE_INFINITY, resetServer: Number.NaN, lowestRemaining: w.limit };
}

/** Pumps again at `at` (monotonic ms), unless a pump is already due by then. */
function wakeAt(state: PacerState, at: number): void {
  if (state.timer && state.timerAt <= at) return;
  if (state.timer) clearTimeout(state.timer);
  state.timerAt = at;
  state.timer = setTimeout(
    () => {
      state.timer = null;
      state.timerAt = Number.POSITIVE_INFINITY;
      pump(state);
    },
    Math.max(0, Math.ceil(at - state.now())),
  );
}

/**
 * Whether the window lets one more request go now: false when it must wait (for an answer, or for
 * the reset, which a timer is then set for).
 */
function windowAllows(state: PacerState, t: number): boolean {
  const { window } = state;
  if (!window || !windowSpent(state, window)) return true;
  if (!Number.isFinite(window.resetAt)) {
    // Spent before any answer told when it resets: wait for one, or, with none to come (each
    // answered from an ended window, or refused), let one request through to learn it.
    return state.inFlight.size === 0;
  }
  if (t < window.resetAt) {
    wakeAt(state, window.resetAt);
    return false;
  }
  // The window has ended: assume the next allows as many until an answer says otherwise.
  state.window = assumedNext(window);
  state.spentInWindow = 0;
  return true;
}

/** Whether the per-minute bucket holds a token now (refilling it first; a timer is set for the next one when not). */
function bucketAllows(state: PacerState, t: number): boolean {
  const { bucket } = state;
  if (!bucket) return true;
  const rate = bucketRate(state);
  if (rate <= 0) return false;
  bucket.tokens = Math.min(bucketSize(state), bucket.tokens + (t - bucket.at) * rate);
  bucket.at = t;
  if (bucket.tokens >= 1) return true;
  wakeAt(state, t + (1 - bucket.tokens) / rate);
  return false;
}

/** Lets waiting requests go while the limits allow. */
function pump(state: PacerState): void {
  const { share, waiters } = state;
  while (waiters.length) {
    const t = state.now();
    if (t < state.pausedUntil) return wakeAt(state, state.pausedUntil);
    // Not counted yet by the machine's other pacers: the share says when (it calls back).
    if (share && !share.ready()) return;
    // Joining others that already send, it knows nothing of the window they are in: one request
    // first, whose answer says what remains of it and when it resets.
    if (share && !state.window && state.stats.answered === 0 && state.inFlight.size > 0 && share.sharedWithOthers()) return;
    if (!windowAllows(state, t)) return;
    if (state.inFlight.size >= Math.floor(state.concurrency)) return;
    if (!bucketAllows(state, t)) return;
    // The daily quota in hand (a block on its way calls back).
    if (share && !share.canSpendQuota()) return;
    if (state.bucket) state.bucket.tokens -= 1;
    if (state.window) state.window.budget -= 1;
    state.spentInWindow += 1;
    share?.spendQuota();
    waiters.shift()?.();
  }
}

/** Forgets the send times older than RECENT_MS. */
function dropOldSends(state: PacerState, t: number): void {
  const { recent } = state;
  while (recent.length && (recent[0] ?? 0) < t - RECENT_MS) recent.shift();
}

/** Waits until the limits let one more request go; answers its send number. */
function acquire(state: PacerState, signal?: AbortSignal | null): Promise<number> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const go = () => {
      signal?.removeEventListener("abort", onAbort);
      state.seq += 1;
      state.inFlight.add(state.seq);
      state.stats.sent += 1;
      const t = state.now();
      state.recent.push(t);
      dropOldSends(state, t);
      resolve(state.seq);
    };
    const onAbort = () => {
      const i = state.waiters.indexOf(go);
      if (i >= 0) state.waiters.splice(i, 1);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    state.waiters.push(go);
    pump(state);
  });
}

/** The clock-offset bounds tightened by one answer's Date (the server stamped it between our send and our receipt). */
export function tightenOffset(bounds: OffsetBounds, params: { sentAt: number; receivedAt: number; date: number | null }): OffsetBounds {
  if (params.date === null) return bounds;
  // The server stamped the answer between our send and our receipt, at a time in [date, date + 1 s).
  const lo = params.date - params.receivedAt;
  const hi = params.date + 1000 - params.sentAt;
  // The server's clock jumped (a sandbox clock moved forward): start again from this answer.
  if (lo > bounds.hi || hi < bounds.lo) return { lo, hi };
  return { lo: Math.max(bounds.lo, lo), hi: Math.min(bounds.hi, hi) };
}

/** What one answer's rate-limit headers say of the window, with the times they were read at. */
export type WindowAnswer = {
  /** The answer's send number. */
  seq: number;
  limit: number;
  remaining: number;
  /** The reset on the server's clock (epoch ms), and the latest local time it could be at. */
  resetServer: number;
  resetAt: number;
  receivedAt: number;
  /** Requests still unanswered, this one included. */
  inFlight: number;
};

/**
 * The window after one answer, or null when the answer changes nothing: one from a window that has
 * ended, one within the window that reports more remaining than was seen, or one older than the
 * answer the window was set from. `moved`: the answer starts a new window.
 */
export function windowAfter(window: PacerWindow | null, answer: WindowAnswer): { window: PacerWindow; moved: boolean } | null {
  const { seq, limit, remaining, resetServer, resetAt, receivedAt } = answer;
  // An answer from a window that has ended says nothing about the one requests now go into.
  if (resetAt <= receivedAt) return null;
  // Requests still unanswered may be counted by the server after this answer was made: all of
  // them are taken off (a few answered out of order are counted twice, which only errs safe).
  const budget = remaining - (answer.inFlight - 1);
  if (window && Math.abs(resetServer - window.resetServer) < 100) {
    // Within a window the lowest remaining is the latest the server has counted.
    if (remaining > window.lowestRemaining) return null;
    return { window: { ...window, limit, lowestRemaining: remaining, budget, seq: Math.max(window.seq, seq) }, moved: false };
  }
  if (window && seq <= window.seq) return null;
  return { window: { limit, budget, resetAt, resetServer, lowestRemaining: remaining, seq, long: isQuotaWindow(resetAt, receivedAt) }, moved: true };
}

/**
 * The concurrency after an answer (additive increase, multiplicative decrease): halved on a 429 or
 * a 503 once per burst, grown by one per window of clean answers below 500, left as it is on
 * other server errors. `lastSeq`: the send number of the last request sent.
 */
export function concurrencyAfter(params: { concurrency: number; max: number; status: number; answerSeq: number; cutAtSeq: number; lastSeq: number }): {
  concurrency: number;
  cutAtSeq: number;
} {
  const { concurrency, status, cutAtSeq } = params;
  if (status === 429 || status === 503) {
    // One cut per burst: the requests in flight when the cut came were sent under the old
    // concurrency, so their 429s or 503s say nothing new (as TCP halves once per window of losses).
    if (params.answerSeq <= cutAtSeq) return { concurrency, cutAtSeq };
    return { concurrency: Math.max(1, concurrency / 2), cutAtSeq: params.lastSeq };
  }
  if (status < 500) return { concurrency: Math.min(params.max, concurrency + 1 / Math.max(1, concurrency)), cutAtSeq };
  return { concurrency, cutAtSeq };
}

/** A local monotonic time as epoch ms (`t`: the monotonic time now). */
function toWallAt(state: PacerState, local: number, t: number): number {
  return state.wallClock() + (local - t);
}

/** Reads an answer's rate-limit headers into the window (and, for a quota period, into the share). */
function observeLimit(state: PacerState, params: { seq: number; info: RateLimitInfo | null; date: number | null; receivedAt: number }): void {
  const { info, date, receivedAt } = params;
  if (!info || info.limit === null || info.remaining === null || !info.reset) return;
  const { limit, remaining } = info;
  const reset = info.reset.getTime();
  // The latest local time the reset could be at, so nothing goes out before it on the server.
  const offset = Number.isFinite(state.offset.lo) ? state.offset.lo : date === null ? state.wallClock() - state.now() : date - receivedAt;
  const resetAt = reset - offset + state.resetMarginMs;
  const next = windowAfter(state.window, { seq: params.seq, limit, remaining, resetServer: reset, resetAt, receivedAt, inFlight: state.inFlight.size });
  // Into a window assumed at the last reset went every request since; else, at least every
  // request from the oldest still unanswered on (the server counted this one in the new window).
  if (next?.moved && !(state.window && Number.isNaN(state.window.resetServer))) state.spentInWindow = state.seq - Math.min(params.seq, ...state.inFlight) + 1;
  if (next) state.window = next.window;
  // A quota period is shared by blocks of the daily quota, across machines.
  if (state.share && isQuotaWindow(resetAt, receivedAt) && resetAt > receivedAt) {
    state.share.observeQuota({ limit, remaining, resetServer: reset, resetLocal: toWallAt(state, resetAt, receivedAt) });
  }
}

/** Reads an answer's status into the concurrency, and a 429's or 503's Retry-After into a pause of every request. */
function observeStatus(state: PacerState, params: { seq: number; status: number; receivedAt: number; retryAfterMs: number | null }): void {
  const { status } = params;
  const next = concurrencyAfter({ concurrency: state.concurrency, max: state.maxConcurrency, status, answerSeq: params.seq, cutAtSeq: state.cutAtSeq, lastSeq: state.seq });
  state.concurrency = next.concurrency;
  state.cutAtSeq = next.cutAtSeq;
  if (status !== 429 && status !== 503) return;
  if (status === 429) state.stats.rateLimited += 1;
  else state.stats.maintenance += 1;
  const until = params.receivedAt + (params.retryAfterMs ?? 1000);
  if (until > state.pausedUntil) {
    state.pausedUntil = until;
    state.pauseReason = status === 503 ? "maintenance" : "retry_after";
  }
  if (state.window && status === 429) state.window.budget = Math.min(state.window.budget, 0);
}

/** Reads an answer's headers into the window, the pause and the concurrency. */
function observe(state: PacerState, params: { seq: number; sentAt: number; response: Response }): void {
  const { response } = params;
  const receivedAt = state.now();
  const date = parseServerDate(response.headers)?.getTime() ?? null;
  state.offset = tightenOffset(state.offset, { sentAt: params.sentAt, receivedAt, date });
  // Retry-After as a date is measured against the answer's Date, or this machine's clock without one.
  const info = parseRateLimit(response.headers, state.wallClock());
  observeLimit(state, { seq: params.seq, info, date, receivedAt });
  observeStatus(state, { seq: params.seq, status: response.status, receivedAt, retryAfterMs: info?.retryAfterMs ?? null });
}

/** Sends one request once the limits allow it, and reads its answer. */
async function pacedFetch(state: PacerState, input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  const id = await acquire(state, init?.signal);
  const sentAt = state.now();
  try {
    const response = await state.baseFetch(input, init);
    state.stats.answered += 1;
    observe(state, { seq: id, sentAt, response });
    return response;
  } catch (error) {
    state.stats.failed += 1;
    throw error;
  } finally {
    state.inFlight.delete(id);
    pump(state);
  }
}

/** Why requests are held back now, if they are (`t`: the monotonic time now). */
function holdOf(state: PacerState, t: number): PacerHold | null {
  const { window, bucket } = state;
  const quotaHold = state.share?.quotaHold() ?? null;
  if (t < state.pausedUntil) return { reason: state.pauseReason, until: toWallAt(state, state.pausedUntil, t), limit: window?.limit ?? null };
  if (quotaHold) return { reason: "quota_spent", until: quotaHold.until, limit: quotaHold.limit };
  if (window && windowSpent(state, window) && Number.isFinite(window.resetAt) && t < window.resetAt) {
    return { reason: "window_spent", until: toWallAt(state, window.resetAt, t), limit: window.limit };
  }
  if (bucket && bucket.tokens < 1 && state.waiters.length) {
    return { reason: "minute_ceiling", until: toWallAt(state, t + (1 - bucket.tokens) / Math.max(bucketRate(state), 1e-9), t), limit: state.perMinute };
  }
  return null;
}

/** What the pacer has done and why it holds back, for progress and logs. */
function statsOf(state: PacerState): PacerStats {
  const { window, share, recent } = state;
  const t = state.now();
  const hold = holdOf(state, t);
  dropOldSends(state, t);
  const span = Math.min(RECENT_MS, Math.max(1000, t - (recent[0] ?? t)));
  return {
    ...state.stats,
    inFlight: state.inFlight.size,
    concurrency: Math.floor(state.concurrency),
    limit: window?.limit ?? null,
    remaining: window ? Math.max(0, share && !window.long ? Math.min(window.budget, share.windowAllowance(window.limit) - state.spentInWindow) : window.budget) : null,
    recentRate: recent.length / (span / 1000),
    hold,
  };
}

/** Forgets a spent window or a Retry-After, and lets waiting requests go. */
function wake(state: PacerState): void {
  state.pausedUntil = 0;
  if (state.window) state.window = assumedNext(state.window);
  state.spentInWindow = 0;
  state.share?.wake();
  pump(state);
}

/** A pacer for one run (one service target and API key). */
export function createPacer(options: PacerOptions = {}): Pacer {
  const state = pacerStateOf(options);
  // A change of share or quota in hand lets waiting requests go.
  state.share?.subscribe(() => pump(state));
  return {
    fetch: (input, init) => pacedFetch(state, input, init),
    stats: () => statsOf(state),
    wake: () => wake(state),
    holdUntil: (untilWall) => {
      const until = state.now() + (untilWall - state.wallClock());
      if (until <= state.pausedUntil) return;
      state.pausedUntil = until;
      state.pauseReason = "quota_spent";
    },
  };
}
