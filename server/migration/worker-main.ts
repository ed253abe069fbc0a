/**
 * `npm run worker` (through scripts/worker.mjs) and `npm start`: the migration worker as a process
 * of its own, beside the web app, on the same database: PostgreSQL when DATABASE_URL names one
 * (workers on any number of machines), else SQLite in WAL mode at DATABASE_FILE (workers on this
 * machine), migrated first (on PostgreSQL once across processes starting together). Any number
 * may run at once: each claims its work with a lease (see engine/worker.ts). Stops cleanly on
 * SIGINT/SIGTERM, releasing its leases so another worker carries on at once, then closes the
 * database.
 *
 * Env: DATABASE_URL or DATABASE_FILE, FERRY_ENCRYPTION_KEY (+ FERRY_ENCRYPTION_OLD_KEYS), SANDBOX_URL and
 * SANDBOX_ADMIN_TOKEN (rehearsals), FERRY_PURGE_AFTER_DAYS (the automatic purge, run here every ten
 * minutes), FERRY_WORKER_LEASE_MS and FERRY_WORKER_IDLE_MS (its lease and idle look; tests set them
 * short), SMTP_URL and MAIL_FROM (the outbox's sender: without SMTP_URL the outbox is the delivery),
 * FERRY_MAIL_EVERY_MS (how often the sender looks for mail), FERRY_REMINDERS_EVERY_MS (how often
 * reminders and digests are looked for), and the rest of server/env.ts.
 */
import { readyDatabase } from "@/db/ready";
import { appConfig } from "@/server/config";
import { env } from "@/server/env";
import { appKeyRing } from "@/server/security/keyring";
import { logSafe } from "@/server/security/log-safe";
import { purgeDueCredentials } from "./handover/purge-credentials";
import { storeMissingDeadlines } from "@/server/engagements/engagement-repository";
import { createMigrationWorker, machineIdOf } from "./migration-worker";
import { companiesText, countOf, daysText } from "@/core/words";

/** How often the worker looks for credentials due for the automatic purge. */
const PURGE_EVERY_MS = 10 * 60_000;

async function main(): Promise<void> {
  const e = env();
  const config = appConfig();
  const database = await readyDatabase();
  const worker = createMigrationWorker({
    database,
    ring: appKeyRing(),
    sandbox: e.SANDBOX_ADMIN_TOKEN ? { url: e.SANDBOX_URL, adminToken: e.SANDBOX_ADMIN_TOKEN } : null,
    log: (line) => console.log(line),
    // Mail for what the worker changes (companies handed to their end customers, drops, the watch's end).
    notify: { appUrl: config.appUrl, mail: config.mail },
    // The outbox's sender: delivers the mail every change queued, the web app's and the worker's.
    mail: { mail: { ...config.mail, log: (line) => console.log(line) }, ...(e.FERRY_MAIL_EVERY_MS ? { everyMs: e.FERRY_MAIL_EVERY_MS } : {}) },
    // Reminders of moves due and late, each staff member's daily digest and each customer's weekly one (queued in the outbox).
    reminders: { notify: { appUrl: config.appUrl, mail: config.mail }, ...(e.FERRY_REMINDERS_EVERY_MS ? { everyMs: e.FERRY_REMINDERS_EVERY_MS } : {}) },
    // The service's webhooks reach Ferry here (none: the watch polls); a target may name its own.
    // The built-in sandbox, beside Ferry, posts to the web app's own address when there is none.
    bulk: { publicUrl: e.FERRY_PUBLIC_URL ?? null, sandboxPublicUrl: config.appUrl },
    machineId: machineIdOf(e),
    ...(e.FERRY_WORKER_LEASE_MS ? { leaseMs: e.FERRY_WORKER_LEASE_MS } : {}),
    ...(e.FERRY_WORKER_IDLE_MS ? { idleMs: e.FERRY_WORKER_IDLE_MS } : {}),
  });
  const where = database.dialect === "postgresql" ? "PostgreSQL" : e.DATABASE_FILE;
  console.log(`Migration worker ${worker.owner} started on ${where}${e.SANDBOX_ADMIN_TOKEN ? "" : " (no SANDBOX_ADMIN_TOKEN: rehearsals will fail)"}`);
  worker.start();
  // Engagements opened before their moves' deadlines were stored get them now (the portfolio's clocks).
  const stored = await database.transaction((tx) => storeMissingDeadlines(tx), { isolation: "read committed" });
  if (stored) console.log(`Stored the move deadlines of ${countOf(stored, "engagement", "engagements")}`);

  // The automatic purge (FERRY_PURGE_AFTER_DAYS after a handover report or a cancellation): at
  // start and then periodically. Idempotent and checked again inside each engagement's
  // transaction, so two workers doing it at once purge each engagement once.
  const purge = async () => {
    try {
      const done = await purgeDueCredentials(database, { now: new Date(), afterDays: e.FERRY_PURGE_AFTER_DAYS });
      if (done.engagements) {
        console.log(`Purged the credentials of ${countOf(done.engagements, "engagement", "engagements")} ${daysText(e.FERRY_PURGE_AFTER_DAYS)} after their handover or cancellation (${companiesText(done.items)})`);
      }
    } catch (error) {
      console.error(`Automatic purge failed (tried again in ${PURGE_EVERY_MS / 60_000} minutes): ${logSafe(error)}`);
    }
  };
  void purge();
  const purgeTimer = setInterval(() => void purge(), PURGE_EVERY_MS);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`Migration worker stopping (${signal})`);
    clearInterval(purgeTimer);
    void worker
      .stop()
      .then(() => database.close())
      .catch((error: unknown) => console.error(`Migration worker stopped with an error: ${logSafe(error)}`))
      .finally(() => process.exit(0));
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

main().catch((error: unknown) => {
  console.error(`The migration worker cannot start: ${logSafe(error)}`);
  process.exit(1);
});
