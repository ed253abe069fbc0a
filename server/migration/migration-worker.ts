/**
 * Ferry's migration worker: the engine's loop (engine/worker.ts) with the kinds of work registered
 * that it carries out — the single-company test and its rehearsal (test-run/), the bulk run
 * (bulk/), and beside them the hypercare watch (watch/), the webhook inbox (events/) and the outbox's sender (server/mail/). The one place that knows them all; the
 * worker process (worker-main.ts), the demo seed, benches and tests make their workers here.
 */
import { mailWork, type MailWorkOptions } from "@/server/mail/mail-work";
import { reminderWork, type ReminderWorkOptions } from "@/server/engagements/reminders/reminder-work";
import { bulkWork, type BulkWorkOptions } from "./bulk/bulk-work";
import { createWorker, type Worker, type WorkerOptions } from "./engine/worker";
import { testRunWork } from "./test-run/test-run-work";
import { watchWork } from "./watch/watch-work";
import { inboxWork } from "./events/inbox-work";

export { WATCH } from "./watch/watch-work";
export { machineIdOf, type Worker } from "./engine/worker";

export type MigrationWorkerOptions = Omit<WorkerOptions, "work" | "periodic"> & {
  /** The bulk run's own intervals and size (tests set them short). */
  bulk?: BulkWorkOptions;
  /** Whether this worker also checks the watches after bulk runs (default true), and how often it looks for a due one (default 2 s). */
  watch?: boolean;
  watchEveryMs?: number;
  /** The outbox's sender with its settings (how often it looks, its lease, retries); none when not given. */
  mail?: MailWorkOptions | null;
  /** Reminders and digests (server/engagements/reminders) with their settings; none when not given. */
  reminders?: ReminderWorkOptions | null;
  /** Whether this worker processes the webhook inbox (default true), and how often it looks (default 1 s). */
  inbox?: boolean;
  inboxEveryMs?: number;
};

/** A worker carrying out every kind of migration work. */
export function createMigrationWorker(options: MigrationWorkerOptions): Worker {
  const { bulk, watch, watchEveryMs, mail, reminders, inbox, inboxEveryMs, ...rest } = options;
  return createWorker({
    ...rest,
    work: [testRunWork, bulkWork(bulk)],
    periodic: [...(watch === false ? [] : [watchWork(watchEveryMs === undefined ? {} : { everyMs: watchEveryMs })]), ...(mail ? [mailWork(mail)] : []), ...(reminders ? [reminderWork(reminders)] : []), ...(inbox === false ? [] : [inboxWork(inboxEveryMs === undefined ? {} : { everyMs: inboxEveryMs })])],
  });
}
