/**
 * The retry policy of service calls, built from cockatiel's policies: retry only what a retry can
 * fix (429, 500, 503, timeout, network), exponential backoff with full jitter, Retry-After wins
 * over the backoff, bounded by a number of attempts and by a total time. A wait (Retry-After or
 * backoff) that would end past the time left ends the call at once with its last error, so the
 * caller (a bulk runner) can pause instead of a request sitting in a sleep.
 */
import {
  DelegateBackoff,
  ExponentialBackoff,
  fullJitterGenerator,
  handleWhen,
  noop,
  retry,
  type IBackoff,
  type IDefaultPolicyContext,
  type IPolicy,
  type IRetryBackoffContext,
} from "cockatiel";
import { ServiceError } from "./service-error";

export type RetryOptions = {
  /** Attempts in all, the first included (default 4). */
  maxAttempts?: number;
  /** First backoff ceiling; each later one doubles, up to maxDelayMs (defaults 500 and 30,000). */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** The call gives up once this much time has passed since it started (default 120,000). */
  maxTotalMs?: number;
};

/**
 * How a call retries: "none" (one attempt: the caller paces, e.g. a bulk runner), options for the
 * built-in policy, or `{ policy }`, any cockatiel policy to run each attempt under instead.
 */
export type RetrySetting = "none" | RetryOptions | { policy: IPolicy<IDefaultPolicyContext, never> };

export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxAttempts: 4,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  maxTotalMs: 120_000,
};

/** A retry about to wait: which attempt failed, why, and how long the wait is. */
export type RetryEvent = { attempt: number; delayMs: number; error: ServiceError };

/** The total-time bound of a call: its deadline (epoch ms), or Infinity. */
export function callDeadline(setting: RetrySetting, startedAt: number): number {
  if (setting === "none" || "policy" in setting) return Number.POSITIVE_INFINITY;
  return startedAt + (setting.maxTotalMs ?? DEFAULT_RETRY.maxTotalMs);
}

function failedServiceError(context: IRetryBackoffContext<unknown>): ServiceError | null {
  return "error" in context.result && context.result.error instanceof ServiceError ? context.result.error : null;
}

/** Less time than this left in a call's budget is not worth another attempt. */
export const MIN_ATTEMPT_MS = 100;

/**
 * The cockatiel policy one call runs its attempts under, and whether its time budget is spent: a
 * backoff that would end too close to the deadline spends it, and the caller then ends the call
 * with the last error instead of making an attempt with no time left.
 */
export function buildRetryPolicy(params: {
  setting: RetrySetting;
  deadline: number;
  onRetry?: (event: RetryEvent) => void;
}): { policy: IPolicy<IDefaultPolicyContext, never>; budgetSpent: () => boolean } {
  const { setting, deadline } = params;
  let spent = false;
  const budgetSpent = () => spent;
  if (setting === "none") return { policy: noop, budgetSpent };
  if ("policy" in setting) return { policy: setting.policy, budgetSpent };
  const options = { ...DEFAULT_RETRY, ...setting };

  const shouldRetry = (error: Error): boolean => {
    if (spent || !(error instanceof ServiceError) || !error.retryable) return false;
    const left = deadline - Date.now() - MIN_ATTEMPT_MS;
    // Waiting out a Retry-After that ends past the deadline cannot help this call.
    return left > 0 && (error.retryAfterMs ?? 0) <= left;
  };

  const backoff = new DelegateBackoff<IRetryBackoffContext<unknown>, IBackoff<unknown> | undefined>((context, previous) => {
    const exponential = previous
      ? previous.next(context)
      : new ExponentialBackoff({
          generator: fullJitterGenerator,
          initialDelay: options.initialDelayMs,
          maxDelay: options.maxDelayMs,
        }).next();
    const retryAfter = failedServiceError(context)?.retryAfterMs ?? null;
    const wanted = retryAfter ?? exponential.duration;
    if (wanted > deadline - Date.now() - MIN_ATTEMPT_MS) {
      spent = true;
      return { delay: 0, state: exponential };
    }
    return { delay: wanted, state: exponential };
  });

  const policy = retry(handleWhen(shouldRetry), { maxAttempts: Math.max(0, options.maxAttempts - 1), backoff });
  if (params.onRetry) {
    const onRetry = params.onRetry;
    policy.onRetry((event) => {
      if (!spent && "error" in event && event.error instanceof ServiceError) {
        onRetry({ attempt: event.attempt, delayMs: event.delay, error: event.error });
      }
    });
  }
  return { policy, budgetSpent };
}
