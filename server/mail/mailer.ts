/**
 * Outgoing mail. Every message is written to the outbox table first (admins read it in the app).
 * Without SMTP_URL that is the delivery, and the message is also printed to the server log; with
 * SMTP_URL it is then really sent with nodemailer and the row records the result.
 */
import { eq } from "drizzle-orm";
import nodemailer from "nodemailer";
import type { Db } from "@/db/client";
import { mailOutbox } from "@/db/schema";

export type MailMessage = { to: string; subject: string; text: string };

export type MailConfig = { smtpUrl?: string; from: string; log?: (line: string) => void };

/** Queues a message in the outbox and delivers it; resolves once delivery was attempted. */
export async function sendMail(db: Db, config: MailConfig, message: MailMessage): Promise<{ id: string; delivered: boolean }> {
  const transport = config.smtpUrl ? "smtp" : "outbox";
  const row = db.insert(mailOutbox).values({ ...message, transport }).returning({ id: mailOutbox.id }).get();
  if (!config.smtpUrl) {
    const log = config.log ?? ((line: string) => console.info(line));
    log(`[mail] to=${message.to} subject="${message.subject}"\n${message.text}\n[/mail]`);
    db.update(mailOutbox).set({ sentAt: new Date() }).where(eq(mailOutbox.id, row.id)).run();
    return { id: row.id, delivered: true };
  }
  try {
    const transporter = nodemailer.createTransport(config.smtpUrl);
    await transporter.sendMail({ from: config.from, to: message.to, subject: message.subject, text: message.text });
    db.update(mailOutbox).set({ sentAt: new Date() }).where(eq(mailOutbox.id, row.id)).run();
    return { id: row.id, delivered: true };
  } catch (error) {
    // The SMTP error text never contains the message body; keep it for the admin to see.
    const text = error instanceof Error ? error.message : String(error);
    db.update(mailOutbox).set({ error: text.slice(0, 500) }).where(eq(mailOutbox.id, row.id)).run();
    return { id: row.id, delivered: false };
  }
}
