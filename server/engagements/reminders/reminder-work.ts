/**
 * The reminder-and-digest tick as the worker runs it (a PeriodicWork of
 * server/migration/engine/work.ts): every few minutes (FERRY_REMINDERS_EVERY_MS, 5 by default)
 * the worker holding its lease (one at a time across every worker and machine; another takes over
 * when it lapses) sends what is due (send-reminders.ts); the keys written with each mail make it
 * once whoever ticks, and after downtime the next tick catches up.
 */
import type { PeriodicWork } from "@/server/migration/engine/work";
import type { NotifyConfig } from "../waiting/notify";
import { sendRemindersAndDigests } from "./send-reminders";

export const REMINDERS = "reminders";

export type ReminderWorkOptions = { notify: NotifyConfig; everyMs?: number; now?: () => Date };

export function reminderWork(options: ReminderWorkOptions): PeriodicWork {
  return {
    name: REMINDERS,
    everyMs: options.everyMs ?? 5 * 60_000,
    // One worker at a time does the reading and writing; the keys make each mail once regardless.
    exclusive: true,
    start: (ctx) => ({
      async tick() {
        const done = await sendRemindersAndDigests(ctx.database, options.notify, options.now?.() ?? new Date());
        return done.reminders + done.digests + done.weeklyDigests;
      },
      close: async () => {},
    }),
  };
}
