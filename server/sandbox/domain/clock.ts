/**
 * The sandbox clock: real time plus a stored offset. The offset survives restarts and only moves
 * forward (POST /_sandbox/clock), so everything derived from it — account age, sync and push
 * progress, token expiry — jumps with it.
 */
import type { Store } from "../store/store";

const OFFSET_KEY = "clock_offset_ms";

export type SandboxClock = {
  /** Sandbox time in epoch milliseconds. */
  now(): number;
  offsetMs(): number;
  /** Moves the clock forward by `ms` (never back) and returns the new sandbox time. */
  advance(ms: number): number;
  /** Back to real time (the reset control). */
  reset(): void;
};

/** The clock of one sandbox, with its offset read from (and written to) the store. */
export function createClock(store: Store): SandboxClock {
  const stored = Number(store.meta.get(OFFSET_KEY) ?? "0");
  let offset = Number.isFinite(stored) ? stored : 0;
  return {
    now: () => Date.now() + offset,
    offsetMs: () => offset,
    advance: (ms) => {
      offset += Math.max(0, Math.round(ms));
      store.meta.set(OFFSET_KEY, String(offset));
      return Date.now() + offset;
    },
    reset: () => {
      offset = 0;
      store.meta.delete(OFFSET_KEY);
    },
  };
}

/** ISO 8601 UTC text of a sandbox time. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
