/**
 * The window calendar across engagements (issue 30, item 3): a week or a month of migration
 * windows, the viewer's own or everyone's, each with its engagement, target and estimated
 * requests, and flagged when windows on the same target need more than its limits allow in
 * their time. Days are UTC days, as windows are agreed in UTC.
 */
import { z } from "zod";

export const CALENDAR_VIEWS = ["week", "month"] as const;
export type CalendarView = (typeof CALENDAR_VIEWS)[number];
export const CALENDAR_SCOPES = ["mine", "everyone"] as const;
export type CalendarScope = (typeof CALENDAR_SCOPES)[number];

const ZDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "A day is written YYYY-MM-DD.");

export const ZCalendarQuery = z.object({
  view: z.enum(CALENDAR_VIEWS).default("week"),
  scope: z.enum(CALENDAR_SCOPES).default("mine"),
  /** A day in the week or month shown (UTC). */
  day: ZDay,
});
export type CalendarQuery = z.infer<typeof ZCalendarQuery>;

const DAY = 86_400_000;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/** Midnight UTC of a YYYY-MM-DD day (an invalid day falls back to `fallback`). */
export function parseDay(day: string | undefined, fallback: Date): Date {
  const parsed = day && /^\d{4}-\d{2}-\d{2}$/.test(day) ? new Date(`${day}T00:00:00Z`) : null;
  const base = parsed && !Number.isNaN(parsed.getTime()) ? parsed : fallback;
  return new Date(Date.UTC(base.getUTCFullYear(), base.getUTCMonth(), base.getUTCDate()));
}

/**
 * The days a view shows, [from, to): a week runs Monday to Sunday; a month is shown as the whole
 * weeks (Monday first) that hold its days.
 */
export function calendarRange(view: CalendarView, day: string, now = new Date()): { from: Date; to: Date; anchor: string } {
  const d = parseDay(day, now);
  const monday = (x: Date) => new Date(x.getTime() - ((x.getUTCDay() + 6) % 7) * DAY);
  if (view === "week") {
    const from = monday(d);
    return { from, to: new Date(from.getTime() + 7 * DAY), anchor: dayOf(d) };
  }
  const first = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  const next = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
  const from = monday(first);
  const lastMonday = monday(new Date(next.getTime() - DAY));
  return { from, to: new Date(lastMonday.getTime() + 7 * DAY), anchor: dayOf(d) };
}

/** The day a step back or forward lands on. */
export function stepDay(view: CalendarView, day: string, direction: -1 | 1, now = new Date()): string {
  const d = parseDay(day, now);
  if (view === "week") return dayOf(new Date(d.getTime() + direction * 7 * DAY));
  return dayOf(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + direction, 1)));
}

export const ZOverlap = z.object({
  limit: z.enum(["rate", "quota"]),
  from: z.date(),
  to: z.date(),
  needed: z.number(),
  allowed: z.number(),
  quotaDaysNeeded: z.number().nullable(),
  daysSpanned: z.number().nullable(),
  /** The other engagements' windows it shares the span with. */
  with: z.array(z.object({ windowId: z.string(), engagementId: z.string(), reference: z.string() })),
  /** The flag in words, with the numbers. */
  text: z.string(),
});
export type Overlap = z.infer<typeof ZOverlap>;

export const ZCalendarWindow = z.object({
  id: z.string(),
  engagementId: z.string(),
  reference: z.string(),
  organizationName: z.string(),
  platformName: z.string(),
  ownerId: z.string(),
  ownerName: z.string(),
  status: z.enum(["proposed", "accepted"]),
  startsAt: z.date(),
  endsAt: z.date(),
  target: z.object({ key: z.string(), name: z.string(), limits: z.string() }),
  /** The estimate when proposed: requests and companies (null on windows proposed before these were kept). */
  estimateRequests: z.number().int().nullable(),
  estimateCompanies: z.number().int().nullable(),
  estimate: z.string(),
  overlap: ZOverlap.nullable(),
});
export type CalendarWindow = z.infer<typeof ZCalendarWindow>;

export const ZCalendar = z.object({
  view: z.enum(CALENDAR_VIEWS),
  scope: z.enum(CALENDAR_SCOPES),
  day: z.string(),
  from: z.date(),
  to: z.date(),
  windows: z.array(ZCalendarWindow),
  /** How many of the windows shown are flagged. */
  flagged: z.number().int(),
});
export type Calendar = z.infer<typeof ZCalendar>;

/** The viewer's calendar feed: the secret URL, or null before they make one. */
export const ZCalendarFeed = z.object({ url: z.string().nullable() });
export type CalendarFeed = z.infer<typeof ZCalendarFeed>;

/** A proposal's warning: per window proposed, in order, the overlap it would make (null: none). */
export const ZProposalOverlaps = z.object({ windows: z.array(ZOverlap.nullable()) });
export type ProposalOverlaps = z.infer<typeof ZProposalOverlaps>;
