/**
 * Outgoing mail, as a transactional outbox. A message is written to the outbox table in the
 * transaction of the change that causes it (`queueMail`, a transaction step), so it commits, or
 * rolls back, with that change: a crash after the commit loses no mail, and a change that failed
 * sends none. The worker's sender (server/mail/sender.ts) then claims each message under a lease,
 * delivers it and marks it sent once. Without SMTP_URL the row is the delivery (admins read it in
 * the app) and the sender prints it to the worker's log; with SMTP_URL the sender really sends it
 * with nodemailer. The web app sees its mail queued at once, without a worker.
 *
 * One-time links (invitation tokens) never reach a row or a log line in plain text: the stored and
 * logged text has them replaced by a note, and the whole message is kept encrypted with the secrets
 * key ring. Without SMTP the outbox is the only way the link can reach its invitee: an admin may
 * reveal it while the invitation is pending (server/mail/outbox.ts). With SMTP the sender needs
 * the whole message to send it; once sent, only the redacted copy is kept.
 */
import type { Database, Steps, Tx } from "@/db/database";
import { q } from "@/db/database";
import { mailOutbox } from "@/db/schema";
import { insertMany } from "@/db/insert-many";
import type { MailTransport } from "@/core/mail/transports";
import { encryptSecret, type KeyRing } from "@/server/security/secrets";

export type MailMessage = {
  to: string;
  subject: string;
  text: string;
  /** Values in `text` (one-time links) that must never be stored or logged in plain text. */
  secrets?: readonly string[];
  /** The invitation the message carries, if any. */
  invitationId?: string;
};

export type MailConfig = {
  smtpUrl?: string;
  from: string;
  log?: (line: string) => void;
  /** Seals messages that carry secrets (and opens them again for SMTP): required for those. */
  keyRing?: KeyRing;
};

/** What stands in a stored or logged message where a one-time link was. */
export const HIDDEN_LINK = "[one-time link hidden]";

/** The associated data binding a sealed message to its outbox row. */
export const mailAad = (id: string) => `mail_outbox:${id}`;

/** The message text with every secret replaced by HIDDEN_LINK. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  return secrets.filter(Boolean).reduce((out, secret) => out.replaceAll(secret, HIDDEN_LINK), text);
}

/** A message made ready for the outbox row: its id, its redacted text and, when it carries a one-time link, its sealed copy. */
export type OutgoingMail = {
  readonly id: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly sealedText: string | null;
  readonly invitationId: string | null;
  readonly transport: MailTransport;
};

/**
 * Makes a message ready for `queueMail`. A message with secrets is sealed here (encryption with a
 * random nonce, bound to the row's id), so it is made *before* the transaction that queues it,
 * which may run more than once on PostgreSQL. One without secrets is only given an id, and may be
 * made inside a body (a retried body makes a new row and id; nothing outside saw the old one).
 */
export function prepareMail(config: Pick<MailConfig, "smtpUrl" | "keyRing">, message: MailMessage): OutgoingMail {
  const id = crypto.randomUUID();
  const text = redactSecrets(message.text, message.secrets);
  let sealedText: string | null = null;
  if (text !== message.text) {
    if (!config.keyRing) throw new Error("A message carrying a one-time link needs the secrets key ring to be queued.");
    sealedText = encryptSecret(config.keyRing, message.text, mailAad(id));
  }
  return { id, to: message.to, subject: message.subject, text, sealedText, invitationId: message.invitationId ?? null, transport: config.smtpUrl ? "smtp" : "outbox" };
}

/** A message's outbox row. */
const outboxRow = (mail: OutgoingMail, now: Date) => ({
  id: mail.id,
  to: mail.to,
  subject: mail.subject,
  text: mail.text,
  sealedText: mail.sealedText,
  invitationId: mail.invitationId,
  transport: mail.transport,
  createdAt: now,
});

/** Writes a message to the outbox, for the worker's sender to deliver once this transaction commits; a transaction step. */
export function* queueMail(tx: Tx, mail: OutgoingMail, now = new Date()): Steps<string> {
  yield* q.run(tx.insert(mailOutbox).values(outboxRow(mail, now)));
  return mail.id;
}

/** Writes many messages to the outbox in as few statements as the database allows (a tick's reminders and digests); a transaction step. */
export function* queueMails(tx: Tx, mails: readonly OutgoingMail[], now = new Date()): Steps<number> {
  return yield* insertMany(tx, mailOutbox, mails.map((mail) => outboxRow(mail, now)));
}

/** Queues one message in a transaction of its own (mail that no other change causes; tests). */
export async function enqueueMail(database: Database, config: Pick<MailConfig, "smtpUrl" | "keyRing">, message: MailMessage): Promise<{ id: string }> {
  const mail = prepareMail(config, message);
  await database.transaction((tx) => queueMail(tx, mail), { isolation: "read committed" });
  return { id: mail.id };
}
