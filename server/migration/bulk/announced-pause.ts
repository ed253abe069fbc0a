/**
 * A pause of every run on a target that the service announced by webhook (`client.rateLimit.reached`,
 * stored on the target by the inbox work until the reset): the bulk run looks at it about once a
 * second, holds its pacer until the reset (no request goes, so none is refused), shows it on the run
 * as its hold, and lets the pacer go again when the service announces the reset (or the time passes).
 */
import { readSteps, type Database } from "@/db/database";
import type { Pacer } from "@/server/service-client/pacer";
import { targetPause } from "@/server/targets/events/inbox-repository";
import type { BulkOutcome } from "./bulk-repository";

/** How often the run reads its target's pause (real time). */
const LOOK_EVERY_MS = 1_000;

export type AnnouncedPause = {
  /** Reads the pause when due and holds or lets go the pacer; the run's hold in words while in force. */
  look(now: number): Promise<NonNullable<BulkOutcome["hold"]> | null>;
};

/** The hold's words on the run. */
export function announcedHoldText(until: Date, reason: string): string {
  return `${reason} The service announced it (client.rateLimit.reached): every run on this target waits for the reset at ${until.toISOString().slice(11, 16)} UTC and carries on by itself.`;
}

/** The announced pause of a run's target, as its loop reads it. */
export function announcedPause(params: { database: Database; targetId: string; pacer: Pacer }): AnnouncedPause {
  let lookedAt = 0;
  let current: NonNullable<BulkOutcome["hold"]> | null = null;
  return {
    async look(now) {
      if (now - lookedAt < LOOK_EVERY_MS) return current;
      lookedAt = now;
      const pause = await readSteps(params.database, (tx) => targetPause(tx, { targetId: params.targetId, now: new Date(now) }));
      if (pause) {
        params.pacer.holdUntil(pause.until.getTime());
        current = { kind: "daily_quota", text: announcedHoldText(pause.until, pause.reason), until: pause.until.getTime() };
      } else if (current) {
        // The reset was announced (or its time has come): what the pause held goes now.
        current = null;
        params.pacer.wake();
      }
      return current;
    },
  };
}
