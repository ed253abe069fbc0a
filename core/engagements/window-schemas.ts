/**
 * Step 2's shapes, defined once as zod: the estimate with its formula and inputs, the windows
 * support proposes, and the form that proposes them (times in UTC, as windows are agreed).
 */
import { z } from "zod";
import { WINDOW_STATUSES } from "./flow-states";
import { ZAllowed, ZPersonRef } from "./intake-schemas";

/** Windows in one proposal. */
export const MAX_WINDOWS_PER_PROPOSAL = 5;
/** A window's shortest and longest length. */
export const MIN_WINDOW_MINUTES = 15;
export const MAX_WINDOW_DAYS = 14;

const ZWindowTimes = z.object({ startsAt: z.date(), endsAt: z.date() });

/** Why a window's times are unusable, or null (checked on the form and again on the server). */
export function windowTimesProblem(w: { startsAt: Date; endsAt: Date }, now: Date): { field: "startsAt" | "endsAt"; message: string } | null {
  if (Number.isNaN(w.startsAt.getTime())) return { field: "startsAt", message: "Give the window's start (UTC)." };
  if (Number.isNaN(w.endsAt.getTime())) return { field: "endsAt", message: "Give the window's end (UTC)." };
  if (w.startsAt.getTime() <= now.getTime()) return { field: "startsAt", message: "The window must start in the future." };
  const minutes = (w.endsAt.getTime() - w.startsAt.getTime()) / 60_000;
  if (minutes < MIN_WINDOW_MINUTES) return { field: "endsAt", message: `The window must end at least ${MIN_WINDOW_MINUTES} minutes after it starts.` };
  if (minutes > MAX_WINDOW_DAYS * 24 * 60) return { field: "endsAt", message: `A window is at most ${MAX_WINDOW_DAYS} days long.` };
  return null;
}

/** Support proposes one or more windows (the server checks each: future, ordered, sensible length). */
export const ZProposeWindows = z.object({
  windows: z.array(ZWindowTimes).min(1, "Propose at least one window.").max(MAX_WINDOWS_PER_PROPOSAL, `Propose at most ${MAX_WINDOWS_PER_PROPOSAL} windows at a time.`),
  note: z.string().trim().max(2000).optional(),
});

/** Times a customer may suggest when declining the proposed windows. */
export const MAX_SUGGESTED_WINDOWS = 3;

/**
 * The customer declines every proposed window: why, and (optionally) times that would suit, which
 * support sees beside the decline and may propose back. Each suggested time is checked as a
 * proposal is (future, sensible length).
 */
export const ZDeclineWindows = z.object({
  reason: z.string().trim().min(1, "Say why these windows do not suit you; Ferry support reads it before proposing others.").max(2000, "Keep the reason under 2,000 characters."),
  suggested: z.array(ZWindowTimes).max(MAX_SUGGESTED_WINDOWS, `Suggest at most ${MAX_SUGGESTED_WINDOWS} times.`).default([]),
});

/** A customer's decline as both sides read it. */
export const ZWindowDeclineView = z.object({
  id: z.string(),
  reason: z.string(),
  suggested: z.array(z.object({ startsAt: z.date(), endsAt: z.date() })),
  /** How many proposed windows it declined. */
  windows: z.number().int(),
  declinedBy: z.object({ id: z.string(), name: z.string() }),
  declinedAt: z.date(),
  /** Support has proposed windows since. */
  answered: z.boolean(),
});
export type WindowDeclineView = z.infer<typeof ZWindowDeclineView>;

export const ZEstimateView = z.object({
  totalSeconds: z.number(),
  /** The total in words ("3 h 20 min"). */
  total: z.string(),
  bottleneck: z.enum(["rate_limit", "daily_quota", "sync_time"]),
  companies: z.number().int(),
  inputs: z.array(z.object({ label: z.string(), value: z.string() })),
  formula: z.string(),
  worked: z.string(),
  /** Where the rate limit came from (the sandbox's configured limit, the real service's published one…). */
  limitsSource: z.string(),
});
export type EstimateView = z.infer<typeof ZEstimateView>;

export const ZWindowView = z.object({
  id: z.string(),
  status: z.enum(WINDOW_STATUSES),
  startsAt: z.date(),
  endsAt: z.date(),
  durationSeconds: z.number().int(),
  /** The estimate when it was proposed. */
  estimateSeconds: z.number().int(),
  estimate: z.string(),
  /** The window is shorter than the estimate: the migration may not fit. */
  shorterThanEstimate: z.boolean(),
  note: z.string().nullable(),
  proposedBy: ZPersonRef,
  proposedAt: z.date(),
  decidedBy: ZPersonRef,
  decidedAt: z.date().nullable(),
});
export type WindowView = z.infer<typeof ZWindowView>;

/** Step 2 as the viewer sees it. */
export const ZWindowPlan = z.object({
  /** The estimate from the current companies (null before any file is submitted). */
  estimate: ZEstimateView.nullable(),
  /** Every window, newest proposal last. */
  windows: z.array(ZWindowView),
  /** The accepted window, if any. */
  agreed: ZWindowView.nullable(),
  /** Who to contact about the window (the engagement's owner). */
  contact: z.object({ name: z.string(), email: z.string() }),
  propose: ZAllowed,
  accept: ZAllowed,
  /** Whether the viewer may withdraw a window that is still proposed. */
  withdraw: ZAllowed,
  reschedule: ZAllowed,
  /** Whether the viewer may decline the proposed windows (the customer, while some await them). */
  decline: ZAllowed,
  /** The customer's declines, oldest first. */
  declines: z.array(ZWindowDeclineView),
});
export type WindowPlan = z.infer<typeof ZWindowPlan>;
