/** The outbox as screens show it (pure: client forms import the router schemas that use it). */
import { z } from "zod";
import { MAIL_TRANSPORTS } from "./transports";

/** Where an outgoing message stands: delivered (to the outbox, or by SMTP), failed (the sender gave up), still sending (queued or retried). */
export const OUTBOX_STATUSES = ["delivered", "failed", "sending"] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

export const ZOutboxMessage = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  /** The message with one-time links hidden. */
  text: z.string(),
  transport: z.enum(MAIL_TRANSPORTS),
  /** Where it stands (see OUTBOX_STATUSES). */
  status: z.enum(OUTBOX_STATUSES),
  sentAt: z.date().nullable(),
  /** The last delivery attempt's error: kept while it is retried, and once the sender gave up. */
  error: z.string().nullable(),
  /** Delivery attempts so far, and when the next one is due (null: as soon as the worker looks; or none, once delivered or given up). */
  attempts: z.number().int(),
  nextAttemptAt: z.date().nullable(),
  createdAt: z.date(),
  /** True when an admin may reveal the hidden link (a pending invitation's, kept sealed). */
  canRevealLink: z.boolean(),
});
export type OutboxMessage = z.infer<typeof ZOutboxMessage>;

export const ZOutboxSearch = z.object({
  search: z.string().trim().max(200, "Keep the search under 200 characters.").optional(),
  status: z.enum(OUTBOX_STATUSES).optional(),
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(100).default(25),
});

export const ZOutboxPage = z.object({
  messages: z.array(ZOutboxMessage),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type OutboxPage = z.infer<typeof ZOutboxPage>;
