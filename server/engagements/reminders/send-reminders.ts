/**
 * The reminder-and-digest tick (issue 30, item 5), run by the worker every few minutes under no
 * lease of its own: each reminder and each digest is written with a key (reminders_sent,
 * digests_sent) in the transaction that queues its mail in the outbox, so however many workers
 * tick at once, and after any downtime, each is sent once.
 * - Reminders (core/engagements/reminders.ts) go to whoever's move it is — the owner for support,
 *   the organisation's customer users for the customer — if they chose every mail.
 * - The daily digest goes to each staff member who did not switch mail off, from DIGEST_HOUR UTC:
 *   their engagements that are late or due within a day, and their windows today and tomorrow.
 */
import { and, asc, eq, gt, inArray, isNotNull, lt, lte, ne } from "drizzle-orm";
import { q, readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { digestsSent, engagements, organizations, remindersSent, users } from "@/db/schema";
import { digestsWith, reminderDue, remindsWith, type MailPreference, type Reminder } from "@/core/engagements/reminders";
import { prepareMail, queueMail } from "@/server/mail/mailer";
import { engagementSubject } from "@/server/mail/subjects";
import { getManagedPlatform } from "@/server/platforms";
import type { NotifyConfig } from "../waiting/notify";
import { formatUtc } from "./words";

const DAY = 86_400_000;
/** The hour (UTC) from which each day's digest goes out. */
export const DIGEST_HOUR = 7;

const base = (appUrl: string) => appUrl.replace(/\/$/, "");

/** Active engagements whose move is due within a day or late, with what a reminder says. */
function* movesNearDue(tx: Tx, now: Date): Steps<Move[]> {
  return yield* q.all(
    tx
      .select({
        id: engagements.id,
        reference: engagements.reference,
        platformKey: engagements.platformKey,
        organizationId: engagements.organizationId,
        organizationName: organizations.name,
        ownerId: engagements.ownerId,
        waitingOn: engagements.waitingOn,
        waitingSince: engagements.waitingSince,
        dueAt: engagements.dueAt,
      })
      .from(engagements)
      .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
      .where(and(eq(engagements.status, "active"), isNotNull(engagements.waitingSince), lte(engagements.dueAt, new Date(now.getTime() + DAY))))
      .orderBy(asc(engagements.dueAt)),
  );
}

type Move = {
  id: string;
  reference: string;
  platformKey: string;
  organizationId: string;
  organizationName: string;
  ownerId: string;
  waitingOn: "customer" | "support" | null;
  waitingSince: Date | null;
  dueAt: Date | null;
};

/** The people a reminder of this move goes to: those whose move it is and who chose every mail. */
function* remindees(tx: Tx, move: Move): Steps<{ name: string; email: string }[]> {
  const people = yield* q.all(
    tx
      .select({ name: users.name, email: users.email, preference: users.mailPreference })
      .from(users)
      .where(
        and(
          eq(users.active, true),
          move.waitingOn === "support" ? eq(users.id, move.ownerId) : and(eq(users.organizationId, move.organizationId), eq(users.role, "customer")),
        ),
      ),
  );
  return people.filter((p) => remindsWith(p.preference as MailPreference));
}

function reminderText(config: NotifyConfig, move: Move, reminder: Reminder, now: Date): { subject: string; text: string } {
  const platform = getManagedPlatform(move.platformKey)?.name ?? move.platformKey;
  const link = move.waitingOn === "customer" ? `${base(config.appUrl)}/portal/engagements/${move.id}` : `${base(config.appUrl)}/engagements/${move.id}`;
  const due = move.dueAt!;
  const when =
    reminder.kind === "due_soon"
      ? `Your next move is due on ${formatUtc(due)}.`
      : `Your next move was due on ${formatUtc(due)}: ${Math.max(1, Math.round((now.getTime() - due.getTime()) / DAY))} day(s) ago.`;
  return {
    subject: engagementSubject(move.reference, reminder.kind === "due_soon" ? "Due tomorrow: your move" : "Late: your move"),
    text: `${move.reference} · ${move.organizationName} · ${platform}\n\n${when} The engagement waits on you until then.\n\nOpen it in Ferry: ${link}\n`,
  };
}

/** Reminders are queued this many to a transaction (a catch-up after downtime may owe thousands). */
const BATCH = 200;

/**
 * One move's reminder, once: its key and its mail in the caller's transaction, checked against the
 * move as it is now (it may have changed hands since it was read: then it is not owed).
 */
function* remind(tx: Tx, config: NotifyConfig, move: Move, reminder: Reminder, now: Date): Steps<boolean> {
  const still = yield* q.get(
    tx.select({ id: engagements.id }).from(engagements).where(and(eq(engagements.id, move.id), eq(engagements.status, "active"), eq(engagements.waitingSince, move.waitingSince!))),
  );
  if (!still) return false;
  const claimed = yield* q.get(
    tx
      .insert(remindersSent)
      .values({ engagementId: move.id, moveSince: move.waitingSince!, kind: reminder.kind, seq: reminder.seq, sentAt: now })
      .onConflictDoNothing()
      .returning({ engagementId: remindersSent.engagementId }),
  );
  if (!claimed) return false;
  const { subject, text } = reminderText(config, move, reminder, now);
  for (const person of yield* remindees(tx, move)) yield* queueMail(tx, prepareMail(config.mail, { to: person.email, subject, text: `Hello ${person.name},\n\n${text}` }), now);
  return true;
}

/** Every reminder due now, each once. */
export async function sendDueReminders(database: Database, config: NotifyConfig, now: Date): Promise<number> {
  const { moves, sent } = await readSteps(database, function* (tx) {
    const near = yield* movesNearDue(tx, now);
    const ids = near.map((m) => m.id);
    const rows = ids.length ? yield* q.all(tx.select().from(remindersSent).where(inArray(remindersSent.engagementId, ids))) : [];
    return { moves: near, sent: rows };
  });
  const owed: { move: Move; reminder: Reminder }[] = [];
  for (const move of moves) {
    if (!move.dueAt || !move.waitingSince) continue;
    const mine = sent.filter((s) => s.engagementId === move.id && s.moveSince.getTime() === move.waitingSince!.getTime());
    const reminder = reminderDue({ since: move.waitingSince, dueAt: move.dueAt }, mine, now);
    if (reminder) owed.push({ move, reminder });
  }
  let count = 0;
  for (let i = 0; i < owed.length; i += BATCH) {
    const batch = owed.slice(i, i + BATCH);
    count += await database.transaction(
      function* (tx) {
        let n = 0;
        for (const { move, reminder } of batch) if (yield* remind(tx, config, move, reminder, now)) n++;
        return n;
      },
      { isolation: "read committed" },
    );
  }
  return count;
}

/** A staff member's digest for the day, or null when nothing is in it. */
function* digestFor(tx: Tx, config: NotifyConfig, person: { id: string; name: string }, now: Date): Steps<{ subject: string; text: string } | null> {
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const mine = and(eq(engagements.ownerId, person.id), eq(engagements.status, "active"));
  const pick = { id: engagements.id, reference: engagements.reference, organizationName: organizations.name, dueAt: engagements.dueAt, windowStartsAt: engagements.windowStartsAt, waitingOn: engagements.waitingOn };
  const from = () => tx.select(pick).from(engagements).innerJoin(organizations, eq(organizations.id, engagements.organizationId));
  const late = yield* q.all(from().where(and(mine, lt(engagements.dueAt, now))).orderBy(asc(engagements.dueAt)));
  const dueSoon = yield* q.all(from().where(and(mine, gt(engagements.dueAt, now), lte(engagements.dueAt, new Date(now.getTime() + DAY)))).orderBy(asc(engagements.dueAt)));
  const windows = yield* q.all(
    from()
      .where(and(eq(engagements.ownerId, person.id), ne(engagements.status, "cancelled"), gt(engagements.windowStartsAt, dayStart), lt(engagements.windowStartsAt, new Date(dayStart.getTime() + 2 * DAY))))
      .orderBy(asc(engagements.windowStartsAt)),
  );
  if (!late.length && !dueSoon.length && !windows.length) return null;
  const line = (r: (typeof late)[number], what: string) => `- ${r.reference} · ${r.organizationName}: ${what} — ${base(config.appUrl)}/engagements/${r.id}`;
  const whose = (r: (typeof late)[number]) => (r.waitingOn === "support" ? "your move" : "the customer's move");
  const sections = [
    late.length ? [`Late (${late.length}):`, ...late.map((r) => line(r, `${whose(r)}, due ${formatUtc(r.dueAt!)}`))].join("\n") : null,
    dueSoon.length ? [`Due within a day (${dueSoon.length}):`, ...dueSoon.map((r) => line(r, `${whose(r)}, due ${formatUtc(r.dueAt!)}`))].join("\n") : null,
    windows.length ? [`Windows today and tomorrow (${windows.length}):`, ...windows.map((r) => line(r, `starts ${formatUtc(r.windowStartsAt!)}`))].join("\n") : null,
  ].filter(Boolean);
  return {
    subject: `Your day in Ferry: ${[late.length ? `${late.length} late` : null, dueSoon.length ? `${dueSoon.length} due` : null, windows.length ? `${windows.length} window(s)` : null].filter(Boolean).join(", ")}`,
    text: `Hello ${person.name},\n\n${sections.join("\n\n")}\n\nYour portfolio: ${base(config.appUrl)}/portfolio\n`,
  };
}

/** Each staff member's digest for today, once, from DIGEST_HOUR UTC (none before, none empty). */
export async function sendDueDigests(database: Database, config: NotifyConfig, now: Date): Promise<number> {
  if (now.getUTCHours() < DIGEST_HOUR) return 0;
  const day = now.toISOString().slice(0, 10);
  const staff = await readSteps(database, function* (tx) {
    const people = yield* q.all(
      tx.select({ id: users.id, name: users.name, email: users.email, preference: users.mailPreference }).from(users).where(and(eq(users.active, true), inArray(users.role, ["support", "admin"]))),
    );
    const done = new Set((yield* q.all(tx.select({ userId: digestsSent.userId }).from(digestsSent).where(eq(digestsSent.day, day)))).map((d) => d.userId));
    return people.filter((p) => digestsWith(p.preference as MailPreference) && !done.has(p.id));
  });
  let count = 0;
  for (const person of staff) {
    const sent = await database.transaction(
      function* (tx) {
        const claimed = yield* q.get(tx.insert(digestsSent).values({ userId: person.id, day, sentAt: now }).onConflictDoNothing().returning({ userId: digestsSent.userId }));
        if (!claimed) return false;
        const digest = yield* digestFor(tx, config, person, now);
        if (!digest) return false;
        yield* queueMail(tx, prepareMail(config.mail, { to: person.email, ...digest }), now);
        return true;
      },
      { isolation: "read committed" },
    );
    if (sent) count++;
  }
  return count;
}

/** One tick: the reminders due, then the digests due. */
export async function sendRemindersAndDigests(database: Database, config: NotifyConfig, now = new Date()): Promise<{ reminders: number; digests: number }> {
  return { reminders: await sendDueReminders(database, config, now), digests: await sendDueDigests(database, config, now) };
}
