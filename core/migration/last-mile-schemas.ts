/**
 * What the screens get of the last mile: the companies waiting for their end customers (each with
 * its reconnect link) and the watch that looks for them to come back and, after the handover,
 * checks the migrated connections daily. Zod schemas, browser-safe; nothing secret in them.
 */
import { z } from "zod";
import { WATCH_STATUSES } from "./states";

/** Days the hypercare watch may be set to. */
export const HYPERCARE_DAYS = { min: 1, max: 90, default: 7 } as const;

export const ZHypercareDays = z.object({
  days: z.coerce
    .number({ error: `Enter the number of days as a whole number from ${HYPERCARE_DAYS.min} to ${HYPERCARE_DAYS.max}, such as ${HYPERCARE_DAYS.default}.` })
    .int(`Enter whole days, such as ${HYPERCARE_DAYS.default}.`)
    .min(HYPERCARE_DAYS.min, `The watch lasts at least ${HYPERCARE_DAYS.min} day.`)
    .max(HYPERCARE_DAYS.max, `The watch lasts at most ${HYPERCARE_DAYS.max} days.`),
});

/** A company waiting for its end customer to reconnect it. */
export const ZReconnectRow = z.object({
  itemId: z.string(),
  name: z.string(),
  externalRef: z.string().nullable(),
  companyId: z.string().nullable(),
  /**
   * Its reconnect link: Ferry's own stable URL, which gets a fresh Link URL from the service each time
   * it is opened (server/migration/watch/reconnect-link.ts); null while the company has no id on the service.
   */
  linkUrl: z.string().nullable(),
  /** How often the end customer (or anyone with the link) opened it, and when last. */
  linkOpens: z.number().int(),
  linkLastOpenedAt: z.date().nullable(),
  since: z.date().nullable(),
  /** Why it waits, in the platform's or Ferry's words. */
  reason: z.string().nullable(),
  /** It had been migrated and verified; its connection dropped later (found by the watch). */
  dropped: z.boolean(),
});
export type ReconnectRowView = z.infer<typeof ZReconnectRow>;

const ZAllowed = z.object({ allowed: z.boolean(), reason: z.string().nullable() });

export const ZWatchView = z.object({
  status: z.enum(WATCH_STATUSES),
  startedAt: z.date(),
  lastCheckAt: z.date().nullable(),
  /** When the next check is due, on the target's clock (the built-in sandbox's may run ahead). */
  nextCheckAt: z.date().nullable(),
  /** When the hypercare days end (null before the handover's first check). */
  hypercareEndsAt: z.date().nullable(),
  checks: z.number().int(),
  requests: z.number().int(),
  requestsToday: z.number().int(),
  /** What the watch may spend a day: 1 % of the daily quota (null: the target has none). */
  dailyBudget: z.number().int().nullable(),
  drops: z.number().int(),
  reconnections: z.number().int(),
  /** The last check that could not be made: the service's status, text and correlationId. */
  lastFailure: z.object({ status: z.number().nullable(), error: z.string(), correlationId: z.string().nullable() }).nullable(),
  endedAt: z.date().nullable(),
});
export type WatchView = z.infer<typeof ZWatchView>;

export const ZLastMileView = z.object({
  hypercareDays: z.number().int(),
  watch: ZWatchView.nullable(),
  /** Companies waiting for their end customers: the first page, and how many there are. */
  pending: z.array(ZReconnectRow),
  pendingTotal: z.number().int(),
  /** Companies verified again after the bulk run (reconnected, or fixed by fresh tokens). */
  reconnected: z.number().int(),
  /** Migrated connections the watch found dropped since support last marked the drops seen. */
  unseenDrops: z.number().int(),
  controls: z.object({ checkNow: ZAllowed, setHypercareDays: ZAllowed, markDropsSeen: ZAllowed }),
});
export type LastMileView = z.infer<typeof ZLastMileView>;
