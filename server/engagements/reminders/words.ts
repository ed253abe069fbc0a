/** Times in reminder and digest mail: in UTC, as every screen shows them (see app/_lib/labels.ts). */
const utc = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });

/** "Mon 30 Nov 2026, 09:00 UTC". */
export const formatUtc = (d: Date) => `${utc.format(d)} UTC`;

const dayOnly = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short", day: "numeric", month: "short" });

/** "Mon 30 Nov": the day of an event in a digest that covers a week. */
export const formatDay = (d: Date) => dayOnly.format(d);
