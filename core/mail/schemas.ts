/** The outbox as screens show it (pure: client forms import the router schemas that use it). */
import { z } from "zod";
import { MAIL_TRANSPORTS } from "./transports";

export const ZOutboxMessage = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  /** The message with one-time links hidden. */
  text: z.string(),
  transport: z.enum(MAIL_TRANSPORTS),
  sentAt: z.date().nullable(),
  error: z.string().nullable(),
  createdAt: z.date(),
  /** True when an admin may reveal the hidden link (a pending invitation's, kept sealed). */
  canRevealLink: z.boolean(),
});
export type OutboxMessage = z.infer<typeof ZOutboxMessage>;
