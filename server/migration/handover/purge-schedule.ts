/** When the automatic purge comes for a handed-over engagement's credentials (pure). */

export const DAY_MS = 24 * 60 * 60 * 1000;

/** The moment a report produced at `confirmedAt` is past the wait and its credentials are purged. */
export function automaticPurgeAt(confirmedAt: Date, afterDays: number): Date {
  return new Date(confirmedAt.getTime() + afterDays * DAY_MS);
}

/** The latest report (or cancellation) time whose credentials are due at `now`. */
export function purgeCutoff(now: Date, afterDays: number): Date {
  return new Date(now.getTime() - afterDays * DAY_MS);
}
