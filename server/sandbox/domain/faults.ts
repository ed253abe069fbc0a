/**
 * Injected faults (PUT /_sandbox/faults): maintenance, random 500s, latency, and the per-client
 * rate limit. Kept in memory for the hot path and in the store so they survive a restart.
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
};

/** Generous enough that tests and Ferry's own benchmarks never meet it unless they set it. */
export const DEFAULT_RATE_LIMIT_PER_SECOND = 10_000;

export const DEFAULT_FAULTS: Faults = {
  maintenance: false,
  errorRate: 0,
  latencyMs: 0,
  rateLimitPerSecond: DEFAULT_RATE_LIMIT_PER_SECOND,
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
