/**
 * A customer's request for an engagement, as zod: what they send (the platform, roughly how many
 * companies, when it would suit, a note), what both sides read of it, and support's answer —
 * accepted into a real engagement, or declined with a reason.
 */
import { z } from "zod";
import { ENGAGEMENT_REQUEST_STATUSES } from "./flow-states";

/** The largest rough company count a request may name (a token file holds at most 100,000). */
export const MAX_REQUESTED_COMPANIES = 100_000;

/** How far ahead the preferred dates may reach, in days. */
export const MAX_REQUEST_DAYS_AHEAD = 2 * 366;

export const ZCreateEngagementRequestInput = z.object({
  platformKey: z.string().trim().min(1, "Choose the platform your companies are on.").max(64),
  companies: z
    .number({ error: "Say roughly how many companies, as a whole number such as 25." })
    .int("Say roughly how many companies, as a whole number such as 25.")
    .min(1, "At least one company.")
    .max(MAX_REQUESTED_COMPANIES, `At most ${MAX_REQUESTED_COMPANIES.toLocaleString("en-GB")} companies: a token file holds that many.`),
  /** The first day that would suit (midnight UTC), and the last when there is one. */
  preferredFrom: z.date({ error: "Give the first day that would suit, such as 1 Dec 2026." }),
  preferredTo: z.date().nullable().default(null),
  note: z.string().trim().max(2000, "Keep the note under 2,000 characters.").optional(),
});

export const ZEngagementRequestView = z.object({
  id: z.string(),
  organization: z.object({ id: z.string(), name: z.string() }),
  platform: z.object({ key: z.string(), name: z.string() }),
  companies: z.number().int(),
  preferredFrom: z.date(),
  preferredTo: z.date().nullable(),
  note: z.string().nullable(),
  status: z.enum(ENGAGEMENT_REQUEST_STATUSES),
  requestedBy: z.object({ name: z.string(), email: z.string() }),
  requestedAt: z.date(),
  decidedBy: z.object({ name: z.string() }).nullable(),
  decidedAt: z.date().nullable(),
  declineReason: z.string().nullable(),
  /** The engagement it became, once accepted. */
  engagement: z.object({ id: z.string(), reference: z.string() }).nullable(),
  /** What the viewer may do with it now (support: accept or decline an open request). */
  accept: z.object({ allowed: z.boolean(), reason: z.string().nullable() }),
  decline: z.object({ allowed: z.boolean(), reason: z.string().nullable() }),
});
export type EngagementRequestView = z.infer<typeof ZEngagementRequestView>;

export const ZEngagementRequestList = z.object({
  /** Open requests first (oldest first: the longest waiting on top), then the latest answered ones. */
  requests: z.array(ZEngagementRequestView),
  open: z.number().int(),
  /** Whether the viewer may ask for an engagement (customers), and if not why. */
  create: z.object({ allowed: z.boolean(), reason: z.string().nullable() }),
});
export type EngagementRequestListView = z.infer<typeof ZEngagementRequestList>;

export const ZAcceptEngagementRequest = z.object({
  requestId: z.string().min(1).max(64),
  /** Who carries the engagement; the one accepting unless named. */
  ownerId: z.string().min(1, "Choose the owner.").max(64).nullish(),
});

export const ZDeclineEngagementRequest = z.object({
  requestId: z.string().min(1).max(64),
  reason: z.string().trim().min(1, "Say why, so the customer knows what to do next.").max(2000, "Keep the reason under 2,000 characters."),
});
