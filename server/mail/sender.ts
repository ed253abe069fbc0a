/**
 * The outbox's sender, run by the worker (server/mail/mail-work.ts): it delivers what the app's
 * changes queued in their own transactions (server/mail/mailer.ts).
 *
 * - A message is claimed with a lease, one at a time, in a read-committed transaction of its own:
 *   a fresh fencing token (`claim_token`) and an expiry, set by one conditional update on a row
 *   that is due (not sent, not given up, its next try reached, no live claim). On PostgreSQL the
 *   row is first picked with FOR UPDATE SKIP LOCKED, so senders claiming at once take different
 *   messages; on SQLite one writer at a time gives the same. A claim counts as an attempt.
 * - It is marked sent once, by an update fenced on the claim: `where id = ? and claim_token = ?
 *   and sent_at is null`. A sender that stalled past its lease, whose message another sender then
 *   claimed, writes nothing.
 * - In the embedded default (no SMTP) the row is the delivery: the fenced update is it, and only
 *   the sender whose update landed prints the log line, so a message is logged once. With SMTP the
 *   message is sent, then marked; a sender that dies between the two leaves the message to be
 *   sent again once its lease runs out, with the same Message-ID (made from the row's id), so the
 *   receiving side can tell the resend is the same message.
 * - A failure is kept (the error, in the row) and tried again after an exponential backoff with
 *   jitter; after `maxAttempts` the sender gives up and the message shows as not delivered.
 * Every clock is the `now` passed in, so tests set it.
 */
import { and, asc, eq, isNull, lte, or, sql } from "drizzle-orm";
import nodemailer from "nodemailer";
import { forUpdate, q, type Database, type Steps, type Tx } from "@/db/database";
import { mailOutbox } from "@/db/schema";
import type { MailTransport } from "@/core/mail/transports";
import { logSafe } from "@/server/security/log-safe";
import { decryptSecret } from "@/server/security/secrets";
import { mailAad, type MailConfig } from "./mailer";

export type SenderOptions = {
  database: Database;
  /** The worker's mail settings: SMTP_URL (none: the outbox is the delivery), the sender address, the log, the key ring that opens sealed messages. */
  mail: MailConfig;
  /** How long a claim holds a message (default 2 minutes): longer than one SMTP send with its timeouts. */
  leaseMs?: number;
  /** Attempts before the sender gives up on a message (default 8). */
  maxAttempts?: number;
  /** The wait after the first failure (default 30 s), doubled after each further one up to `maxBackoffMs` (default 1 hour). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Messages delivered at most per look (default 50), so one look does not run on for ever. */
  batch?: number;
  /** Jitter in [0, 1) (default Math.random): the wait is between half of the backoff and all of it. Tests pass a constant. */
  random?: () => number;
};

/** What one look delivered. */
export type Delivered = { sent: number; retrying: number; failed: number; superseded: number };

type Claimed = typeof mailOutbox.$inferSelect;

const DEFAULTS = { leaseMs: 120_000, maxAttempts: 8, backoffMs: 30_000, maxBackoffMs: 3_600_000, batch: 50 };

/** The SMTP client's own timeouts, all well inside the default lease. */
const SMTP_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 };

/** A message that is due: not sent, not given up, its next try reached, and no live claim on it. */
function due(now: Date) {
  return and(
    isNull(mailOutbox.sentAt),
    isNull(mailOutbox.failedAt),
    or(isNull(mailOutbox.nextAttemptAt), lte(mailOutbox.nextAttemptAt, now)),
    or(isNull(mailOutbox.claimExpiresAt), lte(mailOutbox.claimExpiresAt, now)),
  );
}

/** The claim `token` names, on a message not yet sent. */
const heldBy = (id: string, token: string) => and(eq(mailOutbox.id, id), eq(mailOutbox.claimToken, token), isNull(mailOutbox.sentAt));

/**
 * Claims the oldest due message with a fresh fencing token and a lease of `leaseMs`, counting the
 * attempt; undefined when none is due. A transaction step (read committed).
 */
export function* claimNextMail(tx: Tx, params: { token: string; leaseMs: number; now: Date }): Steps<Claimed | undefined> {
  const { now } = params;
  const oldest = yield* q.get(forUpdate(tx.select({ id: mailOutbox.id }).from(mailOutbox).where(due(now)).orderBy(asc(mailOutbox.createdAt), asc(mailOutbox.id)).limit(1), { skipLocked: true }));
  if (!oldest) return undefined;
  return yield* q.get(
    tx
      .update(mailOutbox)
      .set({ claimToken: params.token, claimExpiresAt: new Date(now.getTime() + params.leaseMs), attempts: sql`${mailOutbox.attempts} + 1` })
      .where(and(eq(mailOutbox.id, oldest.id), due(now)))
      .returning(),
  );
}

/** Marks a claimed message sent, fenced on the claim; false when the claim was lost (another sender took the message over). */
export function* markMailSent(tx: Tx, params: { id: string; token: string; transport: MailTransport; now: Date }): Steps<boolean> {
  const { changes } = yield* q.run(
    tx
      .update(mailOutbox)
      .set({
        sentAt: params.now,
        transport: params.transport,
        error: null,
        claimExpiresAt: null,
        // Sent by email: the link reached its invitee, and only the redacted copy is kept.
        ...(params.transport === "smtp" ? { sealedText: null } : {}),
      })
      .where(heldBy(params.id, params.token)),
  );
  return changes > 0;
}

/**
 * Records a failed attempt on a claimed message, fenced on the claim: it is tried again at
 * `retryAt`, or, when null, given up. False when the claim was lost.
 */
export function* markMailFailed(tx: Tx, params: { id: string; token: string; error: string; retryAt: Date | null; now: Date }): Steps<boolean> {
  const { changes } = yield* q.run(
    tx
      .update(mailOutbox)
      .set({
        error: params.error.slice(0, 500),
        claimExpiresAt: null,
        ...(params.retryAt ? { nextAttemptAt: params.retryAt } : { failedAt: params.now }),
      })
      .where(heldBy(params.id, params.token)),
  );
  return changes > 0;
}

/** The wait before the next try after `attempts` failed ones: exponential, capped, with jitter (half to all of it). */
export function backoffMs(attempts: number, options: Pick<SenderOptions, "backoffMs" | "maxBackoffMs">, random: () => number = Math.random): number {
  const base = options.backoffMs ?? DEFAULTS.backoffMs;
  const cap = options.maxBackoffMs ?? DEFAULTS.maxBackoffMs;
  const full = Math.min(cap, base * 2 ** Math.max(0, attempts - 1));
  return Math.round(full / 2 + (full / 2) * random());
}

/** The Message-ID of an outbox row: the same for every send of it, so a resend after a crash is known as the same message. */
export function messageIdOf(id: string, from: string): string {
  const domain = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1] ?? "ferry.invalid";
  return `<${id}@${domain}>`;
}

/** A sender: `deliverDue` delivers what is due now. */
export function createSender(options: SenderOptions) {
  const { database, mail } = options;
  const leaseMs = options.leaseMs ?? DEFAULTS.leaseMs;
  const maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULTS.maxAttempts);
  const batch = Math.max(1, options.batch ?? DEFAULTS.batch);
  const random = options.random ?? Math.random;
  const log = mail.log ?? ((line: string) => console.info(line));
  const transporter = mail.smtpUrl ? nodemailer.createTransport(mail.smtpUrl, SMTP_TIMEOUTS) : null;

  /** Sends one claimed message by SMTP; resolves once the server accepted it. */
  async function smtpSend(m: Claimed): Promise<void> {
    if (!transporter) throw new Error("No SMTP transport.");
    let text = m.text;
    if (m.sealedText) {
      if (!mail.keyRing) throw new Error("The message carries a one-time link and this worker has no key ring to open it.");
      text = decryptSecret(mail.keyRing, m.sealedText, mailAad(m.id));
    }
    await transporter.sendMail({ from: mail.from, to: m.to, subject: m.subject, text, messageId: messageIdOf(m.id, mail.from) });
  }

  /** Delivers one claimed message and records how it went (at `clock()`); answers which way it went. */
  async function deliver(m: Claimed, token: string, clock: () => Date): Promise<keyof Delivered> {
    const transport: MailTransport = transporter ? "smtp" : "outbox";
    if (m.attempts > maxAttempts) {
      // Earlier claims of it never finished (their senders died mid-send, every time): give up rather than try for ever.
      const now = clock();
      const ended = await database.transaction((tx) => markMailFailed(tx, { id: m.id, token, error: m.error ?? `Gave up after ${maxAttempts} attempts that did not finish.`, retryAt: null, now }), { isolation: "read committed" });
      return ended ? "failed" : "superseded";
    }
    try {
      if (transporter) await smtpSend(m);
    } catch (error) {
      // The SMTP error text never contains the message body; it is kept for the admin to see.
      const message = error instanceof Error ? error.message : String(error);
      const now = clock();
      const retryAt = m.attempts < maxAttempts ? new Date(now.getTime() + backoffMs(m.attempts, options, random)) : null;
      const recorded = await database.transaction((tx) => markMailFailed(tx, { id: m.id, token, error: message, retryAt, now }), { isolation: "read committed" });
      if (!recorded) return "superseded";
      log(`[mail] not delivered to=${logSafe(m.to)} subject="${logSafe(m.subject)}" attempt=${m.attempts}: ${logSafe(message)}${retryAt ? ` (tried again at ${retryAt.toISOString()})` : " (given up)"}`);
      return retryAt ? "retrying" : "failed";
    }
    const now = clock();
    const marked = await database.transaction((tx) => markMailSent(tx, { id: m.id, token, transport, now }), { isolation: "read committed" });
    if (!marked) {
      log(`[mail] message ${m.id} was taken over by another sender before it was marked sent${transporter ? " (it may arrive twice, with the same Message-ID)" : ""}`);
      return "superseded";
    }
    // One line per message: names in the subject and text are the senders' and customers' own
    // words, and a line break in one must not start a log line of its own.
    if (!transporter) log(`[mail] to=${logSafe(m.to)} subject="${logSafe(m.subject)}" text="${logSafe(m.text)}"`);
    return "sent";
  }

  return {
    /**
     * Claims and delivers the messages due (at most `batch`); answers how it went. Each claim is
     * made at the time it is made (a slow SMTP send must not leave the next claim's lease already
     * run out), or at `now` when a test sets the clock.
     */
    async deliverDue(at?: Date): Promise<Delivered> {
      const done: Delivered = { sent: 0, retrying: 0, failed: 0, superseded: 0 };
      for (let i = 0; i < batch; i++) {
        const token = crypto.randomUUID();
        const now = at ?? new Date();
        const claimed = await database.transaction((tx) => claimNextMail(tx, { token, leaseMs, now }), { isolation: "read committed" });
        if (!claimed) break;
        done[await deliver(claimed, token, () => at ?? new Date())] += 1;
      }
      return done;
    },
    close(): void {
      transporter?.close();
    },
  };
}

export type Sender = ReturnType<typeof createSender>;

/** Delivers what is due at `now` with a sender made for the call (tests, the demo seed). */
export async function deliverDueMail(options: SenderOptions, now?: Date): Promise<Delivered> {
  const sender = createSender(options);
  try {
    return await sender.deliverDue(now);
  } finally {
    sender.close();
  }
}
