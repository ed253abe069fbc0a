/**
 * When the party whose move it is gets reminded (pure; the worker's reminder tick applies it):
 * - when the move becomes theirs: the change's own mail says so (server/engagements/waiting/notify.ts);
 * - one day before it is due, when the move had more than a day to run;
 * - once a day while it is late, at most LATE_REMINDER_CAP times.
 * Each reminder belongs to one move (the engagement and when the move began), so a move that
 * changes hands stops them, and a worker that was down sends only the latest one that fell due,
 * never the ones it missed.
 */

export const REMINDER_KINDS = ["due_soon", "late"] as const;
export type ReminderKind = (typeof REMINDER_KINDS)[number];

/** Daily reminders of a late move stop after this many. */
export const LATE_REMINDER_CAP = 5;

const DAY = 86_400_000;

/** One reminder of one move: its kind, and for a late one which day of lateness (0 the first). */
export type Reminder = { kind: ReminderKind; seq: number };

/** The reminder of this move to send at `now`, if any, given those already sent for it. */
export function reminderDue(move: { since: Date; dueAt: Date }, sent: readonly Reminder[], now: Date): Reminder | null {
  const t = now.getTime();
  const due = move.dueAt.getTime();
  if (t > due) {
    const seq = Math.floor((t - due) / DAY);
    if (seq >= LATE_REMINDER_CAP) return null;
    const latest = Math.max(-1, ...sent.filter((r) => r.kind === "late").map((r) => r.seq));
    return seq > latest ? { kind: "late", seq } : null;
  }
  const longMove = due - move.since.getTime() > DAY;
  if (longMove && t >= due - DAY && !sent.some((r) => r.kind === "due_soon")) return { kind: "due_soon", seq: 0 };
  return null;
}

/** Who chooses what mail: every mail, a daily digest only, or none (mail that carries a required action always goes). */
export const MAIL_PREFERENCES = ["every", "digest", "off"] as const;
export type MailPreference = (typeof MAIL_PREFERENCES)[number];

/** The choices in words for the person choosing: support's digest is daily, a customer's weekly. */
export function mailPreferenceLabels(digest: "daily" | "weekly"): Record<MailPreference, string> {
  return {
    every: `Every mail: notices, reminders and the ${digest} digest`,
    digest: `The ${digest} digest only (and mail that needs me to act)`,
    off: "Only mail that needs me to act",
  };
}

/** Whether a reminder goes to someone with this preference. */
export const remindsWith = (p: MailPreference) => p === "every";
/** Whether a digest goes to someone with this preference: support's daily one, a customer's weekly one. */
export const digestsWith = (p: MailPreference) => p !== "off";

/** The hour (UTC) from which each day's digest goes out, and each week's on its Monday. */
export const DIGEST_HOUR = 7;

/**
 * The week whose customers' digest is due at `now`, named by its UTC Monday ("YYYY-MM-DD"): a week
 * runs from Monday DIGEST_HOUR UTC to the next, and its digest may go at any time in it, so a worker
 * that was down sends it later in the week; the weeks it missed altogether are not owed.
 */
export function digestWeek(now: Date): string {
  const t = new Date(now.getTime() - DIGEST_HOUR * 3_600_000);
  const sinceMonday = (t.getUTCDay() + 6) % 7;
  return new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate() - sinceMonday)).toISOString().slice(0, 10);
}
