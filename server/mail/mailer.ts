/**
 * Outgoing mail. Every message is written to the outbox table first (admins read it in the app).
 * Without SMTP_URL that is the delivery, and the message is also printed to the server log; with
 * SMTP_URL it is then really sent with nodemailer and the row records the result.
 *
 * One-time links (invitation tokens) never reach a row or a log line in plain text: the stored and
 * logged text has them replaced by a note. Without SMTP the outbox is the only way the link can
 * reach its invitee, so the whole message is also kept encrypted with the secrets key ring, for an
 * admin to reveal while the invitation is pending (server/mail/outbox.ts). With SMTP the message
 * went out by email, and only the redacted copy is kept.
 */
import { eq } from "drizzle-orm";
import nodemailer from "nodemailer";
import type { Database } from "@/db/database";
import { mailOutbox } from "@/db/schema";
import { logSafe } from "@/server/security/log-safe";
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
  /** Seals messages that carry secrets, so the embedded outbox can show them to admins later. */
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

/**
 * Queues a message in the outbox and delivers it; resolves once delivery was attempted. Its writes
 * are awaited, outside any transaction, so it works on either database.
 */
export async function sendMail(database: Database, config: MailConfig, message: MailMessage): Promise<{ id: string; delivered: boolean }> {
  const { db } = database;
  const transport = config.smtpUrl ? "smtp" : "outbox";
  const id = crypto.randomUUID();
  const text = redactSecrets(message.text, message.secrets);
  const sealWith = !config.smtpUrl && text !== message.text ? config.keyRing : undefined;
  await db.insert(mailOutbox).values({
    id,
    to: message.to,
    subject: message.subject,
    text,
    sealedText: sealWith ? encryptSecret(sealWith, message.text, mailAad(id)) : null,
    invitationId: message.invitationId ?? null,
    transport,
  });
  if (!config.smtpUrl) {
    const log = config.log ?? ((line: string) => console.info(line));
    // One line per message: names in the subject and text are the senders' and customers' own
    // words, and a line break in one must not start a log line of its own.
    log(`[mail] to=${logSafe(message.to)} subject="${logSafe(message.subject)}" text="${logSafe(text)}"`);
    await db.update(mailOutbox).set({ sentAt: new Date() }).where(eq(mailOutbox.id, id));
    return { id, delivered: true };
  }
  try {
    const transporter = nodemailer.createTransport(config.smtpUrl);
    await transporter.sendMail({ from: config.from, to: message.to, subject: message.subject, text: message.text });
    await db.update(mailOutbox).set({ sentAt: new Date() }).where(eq(mailOutbox.id, id));
    return { id, delivered: true };
  } catch (error) {
    // The SMTP error text never contains the message body; keep it for the admin to see.
    const errorText = error instanceof Error ? error.message : String(error);
    await db.update(mailOutbox).set({ error: redactSecrets(errorText, message.secrets).slice(0, 500) }).where(eq(mailOutbox.id, id));
    return { id, delivered: false };
  }
}
