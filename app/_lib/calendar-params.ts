/**
 * The calendar's view, scope and day live in the URL (`?view=month&scope=everyone&day=2026-12-07`),
 * so a view can be shared and reloaded. One mapping both ways, used by the server page (its
 * prefetch) and the client view (the same query key).
 */
import { CALENDAR_SCOPES, CALENDAR_VIEWS, type CalendarQuery } from "@/core/engagements/calendar-schemas";

type ParamSource = URLSearchParams | Record<string, string | string[] | undefined>;

function read(source: ParamSource, name: string): string | undefined {
  if (source instanceof URLSearchParams) return source.get(name) ?? undefined;
  const value = source[name];
  return Array.isArray(value) ? value[0] : value;
}

const oneOf = <T extends string>(values: readonly T[], value: string | undefined): T | undefined => ((values as readonly string[]).includes(value ?? "") ? (value as T) : undefined);

/** Today, UTC, as YYYY-MM-DD. */
export const todayUtc = (now = new Date()) => now.toISOString().slice(0, 10);

/** Reads the calendar's query from search params; anything malformed falls back to the defaults (this week, mine). */
export function parseCalendarParams(source: ParamSource, now = new Date()): CalendarQuery {
  const day = read(source, "day");
  const valid = day && /^\d{4}-\d{2}-\d{2}$/.test(day) && !Number.isNaN(new Date(`${day}T00:00:00Z`).getTime());
  return { view: oneOf(CALENDAR_VIEWS, read(source, "view")) ?? "week", scope: oneOf(CALENDAR_SCOPES, read(source, "scope")) ?? "mine", day: valid ? day : todayUtc(now) };
}

/** The calendar's URL for a query (defaults left out, except the day once it is not today). */
export function calendarHref(query: CalendarQuery, now = new Date()): string {
  const params = new URLSearchParams();
  if (query.view !== "week") params.set("view", query.view);
  if (query.scope !== "mine") params.set("scope", query.scope);
  if (query.day !== todayUtc(now)) params.set("day", query.day);
  const search = params.toString();
  return `/calendar${search ? `?${search}` : ""}`;
}
