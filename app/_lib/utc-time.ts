/**
 * Dates and times people type for migration windows, in UTC and in Ferry's one way of writing them
 * ("28 Nov 2026, 22:00", as every screen shows "28 Nov 2026, 22:00 UTC"), instead of a browser
 * picker that writes "11/28/2026, 10:00 PM" in the machine's own order and clock. Typing is
 * forgiving: the usual ways of writing a day and a 24-hour time are read, always as UTC.
 */
import { utc } from "@date-fns/utc";
import { format, isValid, parse } from "date-fns";
import { z } from "zod";
import { MAX_SUGGESTED_WINDOWS, MAX_WINDOWS_PER_PROPOSAL } from "@/core/engagements/window-schemas";

/** The way the field writes a time (and the first way it reads one). */
export const UTC_FIELD_FORMAT = "d MMM yyyy, HH:mm";

/** What the field shows as an example of what to type. */
export const UTC_FIELD_EXAMPLE = "28 Nov 2026, 22:00";

/** The ways a day and time are read, tried in turn; all of them day-first or ISO, 24-hour. */
const READS = [
  UTC_FIELD_FORMAT,
  "d MMM yyyy HH:mm",
  "d MMMM yyyy, HH:mm",
  "d MMMM yyyy HH:mm",
  "d MMM yyyy, H:mm",
  "d MMM yyyy H:mm",
  "d MMMM yyyy H:mm",
  "EEE d MMM yyyy, HH:mm",
  "EEEE d MMMM yyyy, HH:mm",
  "yyyy-MM-dd HH:mm",
  "yyyy-MM-dd'T'HH:mm",
  "yyyy-MM-dd H:mm",
  "d/M/yyyy HH:mm",
  "d/M/yyyy, HH:mm",
  "d.M.yyyy HH:mm",
] as const;

/** The ways a day alone is read (a request's preferred dates), day-first or ISO. */
const DAY_READS = ["d MMM yyyy", "d MMMM yyyy", "EEE d MMM yyyy", "EEEE d MMMM yyyy", "yyyy-MM-dd", "d/M/yyyy", "d.M.yyyy"] as const;

/** What a day field shows as an example. */
export const UTC_DAY_EXAMPLE = "1 Dec 2026";

/** A day as Ferry writes it: "1 Dec 2026". */
export function formatUtcDay(date: Date): string {
  return format(date, "d MMM yyyy", { in: utc });
}

/** Reads a typed day as midnight UTC, or null when it is not a day. */
export function parseUtcDay(text: string): Date | null {
  const cleaned = text.trim().replace(/\s+/g, " ");
  if (!cleaned) return null;
  for (const pattern of DAY_READS) {
    const parsed = parse(cleaned, pattern, new Date(0), { in: utc });
    if (isValid(parsed)) return new Date(parsed.getTime());
  }
  return null;
}

/** A time as the field writes it: "28 Nov 2026, 22:00" (UTC). */
export function formatUtcField(date: Date): string {
  return format(date, UTC_FIELD_FORMAT, { in: utc });
}

/** What the field understood, in full: "Saturday 28 Nov 2026, 22:00 UTC". */
export function describeUtc(date: Date): string {
  return `${format(date, "EEEE d MMM yyyy, HH:mm", { in: utc })} UTC`;
}

/**
 * Reads what someone typed as a UTC time, or null when it is not one (an empty field, "abc",
 * 31 Feb, 25:00). A trailing "UTC" or "Z" is allowed, since that is how Ferry writes times.
 */
export function parseUtcField(text: string): Date | null {
  const cleaned = text
    .trim()
    .replace(/\s+/g, " ")
    .replace(/\s*(UTC|GMT|Z)$/i, "");
  if (!cleaned) return null;
  const reference = new Date(0);
  for (const pattern of READS) {
    const parsed = parse(cleaned, pattern, reference, { in: utc });
    // date-fns refuses impossible days and times (31 Feb, 25:00) as invalid dates.
    if (isValid(parsed)) return new Date(parsed.getTime());
  }
  return null;
}

/**
 * A form field holding a UTC time as typed: required, and readable by `parseUtcField`, with a
 * sentence that says what to type (`what`: "the window's start").
 */
export function zUtcField(what: string) {
  return z
    .string()
    .trim()
    .min(1, `Give ${what} as a day and a 24-hour time in UTC, such as ${UTC_FIELD_EXAMPLE}.`)
    .refine((v) => parseUtcField(v) !== null, `Write ${what} as a day and a 24-hour time in UTC, such as ${UTC_FIELD_EXAMPLE}.`);
}

/** Support's proposal form: each window's times as typed. */
export const ZProposeWindowsForm = z.object({
  windows: z
    .array(z.object({ startsAt: zUtcField("the window's start"), endsAt: zUtcField("the window's end") }))
    .min(1, "Propose at least one window.")
    .max(MAX_WINDOWS_PER_PROPOSAL, `Propose at most ${MAX_WINDOWS_PER_PROPOSAL} windows at a time.`),
  note: z.string().trim().max(2000, "Keep the note under 2,000 characters."),
});

/** The customer's decline form: why, and the times that would suit, as typed. */
export const ZDeclineWindowsForm = z.object({
  reason: z.string().trim().min(1, "Say why these windows do not suit you; Ferry support reads it before proposing others.").max(2000, "Keep the reason under 2,000 characters."),
  suggested: z
    .array(z.object({ startsAt: zUtcField("when it could start"), endsAt: zUtcField("when it could end") }))
    .max(MAX_SUGGESTED_WINDOWS, `Suggest at most ${MAX_SUGGESTED_WINDOWS} times.`),
});

/** A typed window's times as Dates (fields a schema above has checked). */
export function windowFromFields(w: { startsAt: string; endsAt: string }): { startsAt: Date; endsAt: Date } {
  return { startsAt: parseUtcField(w.startsAt) ?? new Date(Number.NaN), endsAt: parseUtcField(w.endsAt) ?? new Date(Number.NaN) };
}
