/**
 * The hypercare watch as the worker looks at it (a PeriodicWork of engine/work.ts): every so often
 * (2 s by default, with jitter) each worker checks the watches that are due, each taken under a
 * lease of its own (watcher.ts), so one worker checks a watch however many look.
 */
import type { PeriodicWork } from "../engine/work";
import { createWatcher } from "./watcher";

export const WATCH = "watch";

/** The watch, looked at every `everyMs`. */
export function watchWork(options: { everyMs?: number } = {}): PeriodicWork {
  return {
    name: WATCH,
    everyMs: options.everyMs ?? 2_000,
    start: (ctx) =>
      createWatcher({
        database: ctx.database,
        ring: ctx.ring,
        owner: ctx.owner,
        sandbox: ctx.sandbox,
        notify: ctx.notify,
        log: ctx.log,
        budget: ctx.budget,
        client: ctx.client,
      }),
  };
}
