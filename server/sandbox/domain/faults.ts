/**
 * Injected faults (PUT /_sandbox/faults): maintenance, random 500s, latency, the request-rate
 * limits (per second, per minute, daily quota), and webhook delivery faults. Kept in memory for the hot path and in the store
 * so they survive a restart.
 */
import type { Store } from "../store/store";

export type Faults = {
  maintenance: boolean;
  /** Probability (0–1) that an authenticated API request answers 500. */
  errorRate: number;
  /** Delay added before every API response, in milliseconds. */
  latencyMs: number;
  /** Requests per second allowed per client before 429. */
  rateLimitPerSecond: number;
  /**
   * Quota mode: each client may make 1,000 × (1 + connected companies) requests per UTC day of the
   * sandbox clock (reference §9); off by default.
   */
  quotaPerDay: boolean;
  /** Requests per minute allowed per client address (the service's 1,000); null: no such limit. */
  requestsPerMinute: number | null;
  /** Webhooks: every delivery that succeeds is sent a second time (same webhook-id). */
  webhookDuplicates: boolean;
  /** Webhooks: the deliveries due to an endpoint together are sent newest first. */
  webhookOutOfOrder: boolean;
  /** Webhooks: seconds (sandbox clock) before a new message's first attempt. */
  webhookDelaySeconds: number;
  /** Webhooks: deliveries are signed with a key that is not the consumer's secret. */
  webhookWrongSignature: boolean;
};

/** Generous enough that tests and Ferry's own benchmarks never meet it unless they set it. */
export const DEFAULT_RATE_LIMIT_PER_SECOND = 10_000;

export const DEFAULT_FAULTS: Faults = {
  maintenance: false,
  errorRate: 0,
  latencyMs: 0,
  rateLimitPerSecond: DEFAULT_RATE_LIMIT_PER_SECOND,
  quotaPerDay: false,
  requestsPerMinute: null,
  webhookDuplicates: false,
  webhookOutOfOrder: false,
  webhookDelaySeconds: 0,
  webhookWrongSignature: false,
};

const FAULTS_KEY = "faults";

export type FaultState = {
  get(): Faults;
  update(patch: Partial<Faults>): Faults;
  reset(): void;
};

/** Fault settings of one sandbox, loaded from the store. */
export function createFaultState(store: Store): FaultState {
  const stored = store.meta.get(FAULTS_KEY);
  let current: Faults = stored ? { ...DEFAULT_FAULTS, ...(JSON.parse(stored) as Partial<Faults>) } : DEFAULT_FAULTS;
  return {
    get: () => current,
    update: (patch) => {
      current = { ...current, ...patch };
      store.meta.set(FAULTS_KEY, JSON.stringify(current));
      return current;
    },
    reset: () => {
      current = DEFAULT_FAULTS;
      store.meta.delete(FAULTS_KEY);
    },
  };
}
