/** Reading the mail outbox (in the embedded default, the only place outgoing mail goes). */
import { desc } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { mailOutbox } from "@/db/schema";
import { MAIL_TRANSPORTS } from "./transports";

export const ZMailMessage = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  transport: z.enum(MAIL_TRANSPORTS),
  sentAt: z.date().nullable(),
  error: z.string().nullable(),
  createdAt: z.date(),
});
export type MailMessageView = z.infer<typeof ZMailMessage>;

/** The newest outgoing mail first. */
export function listOutbox(db: Db, options: { limit: number }): MailMessageView[] {
  return db.select().from(mailOutbox).orderBy(desc(mailOutbox.createdAt)).limit(options.limit).all();
}
