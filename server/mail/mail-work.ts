/**
 * The outbox's sender as the worker runs it (a PeriodicWork of server/migration/engine/work.ts):
 * every so often (2 s by default, with jitter; FERRY_MAIL_EVERY_MS) each worker delivers the mail
 * that is due, each message under a claim of its own (sender.ts), so it is delivered once however
 * many workers look.
 */
import type { PeriodicWork } from "@/server/migration/engine/work";
import { createSender, type SenderOptions } from "./sender";

export const MAIL = "mail";

export type MailWorkOptions = Omit<SenderOptions, "database"> & {
  /** How often the worker looks for mail to deliver (default 2 s). */
  everyMs?: number;
};

/** The sender, looking for due mail every `everyMs`. */
export function mailWork(options: MailWorkOptions): PeriodicWork {
  const { everyMs, ...sender } = options;
  return {
    name: MAIL,
    everyMs: everyMs ?? 2_000,
    start: (ctx) => {
      const instance = createSender({ ...sender, mail: { ...sender.mail, log: sender.mail.log ?? ctx.log }, database: ctx.database });
      return {
        async tick() {
          const done = await instance.deliverDue();
          return done.sent + done.retrying + done.failed;
        },
        close: async () => instance.close(),
      };
    },
  };
}
