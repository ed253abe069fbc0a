/** Times in reminder and digest mail: in UTC, as every screen shows them (see app/_lib/labels.ts). */
const utc = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });

/** "Mon 30 Nov 2026, 09:00 UTC". */
export const formatUtc = (d: Date) => `${utc.format(d)} UTC`;
