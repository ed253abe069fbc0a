/**
 * The reminder-and-digest tick (issue 30, item 5), run by the worker every few minutes under no
 * lease of its own: each reminder and each digest is written with a key (reminders_sent,
 * digests_sent, weekly_digests_sent) in the transaction that queues its mail in the outbox, so
 * however many workers tick at once, and after any downtime, each is sent once.
 * - Reminders (core/engagements/reminders.ts) go to whoever's move it is — the owner for support,
 *   the organisation's customer users for the customer — if they chose every mail. They are
 *   written in batches: per batch, their keys checked against the moves as they are now and
 *   claimed in a statement per kind and day, their people read in one query and their mail queued
 *   in a few statements, whatever the batch's size.
 * - The daily digest goes to each staff member who did not switch mail off (daily-digest.ts).
 * - The weekly digest goes to each customer who did not switch mail off (weekly-digest.ts).
 */
import { and, asc, eq, inArray, isNotNull, lte, or, sql } from "drizzle-orm";
import { q, readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { engagements, organizations, remindersSent, users } from "@/db/schema";
import { reminderDue, remindsWith, type MailPreference, type Reminder } from "@/core/engagements/reminders";
import { prepareMail, queueMails, type OutgoingMail } from "@/server/mail/mailer";
import { engagementSubject } from "@/server/mail/subjects";
import { getManagedPlatform } from "@/server/platforms";
import type { NotifyConfig } from "../waiting/notify";
import { sendDueDigests } from "./daily-digest";
import { sendDueWeeklyDigests } from "./weekly-digest";
import { formatUtc } from "./words";
import { formatDistanceStrict } from "date-fns";

export { DIGEST_HOUR } from "@/core/engagements/reminders";
export { sendDueDigests } from "./daily-digest";
export { sendDueWeeklyDigests } from "./weekly-digest";

const DAY = 86_400_000;

const base = (appUrl: string) => appUrl.replace(/\/$/, "");

/** Active engagements whose move is due within a day or late. */
const nearDue = (now: Date) => and(eq(engagements.status, "active"), isNotNull(engagements.waitingSince), lte(engagements.dueAt, new Date(now.getTime() + DAY)));

/** Those engagements, with what a reminder says. */
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
      .where(nearDue(now))
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

function reminderText(config: NotifyConfig, move: Move, reminder: Reminder, now: Date): { subject: string; text: string } {
  const platform = getManagedPlatform(move.platformKey)?.name ?? move.platformKey;
  const link = move.waitingOn === "customer" ? `${base(config.appUrl)}/portal/engagements/${move.id}` : `${base(config.appUrl)}/engagements/${move.id}`;
  const due = move.dueAt!;
  const when =
    reminder.kind === "due_soon"
      ? `Your next move is due on ${formatUtc(due)}.`
      : `Your next move was due on ${formatUtc(due)}, ${formatDistanceStrict(due, now)} ago.`;
  return {
    subject: engagementSubject(move.reference, reminder.kind === "due_soon" ? "Due tomorrow: your move" : "Late: your move"),
    text: `${move.reference} · ${move.organizationName} · ${platform}\n\n${when} The engagement waits on you until you make it.\n\nOpen it in Ferry: ${link}\n`,
  };
}

/** Reminders are queued this many to a transaction (a catch-up after downtime may owe thousands). */
const BATCH = 500;

type Person = { id: string; organizationId: string | null; role: string; name: string; email: string };

/**
 * The people reminders of these moves go to, in one query: each support move's owner and each
 * customer move's organisation's customer users, active, of those who chose every mail.
 */
function* remindeesOf(tx: Tx, moves: readonly Move[]): Steps<{ owners: Map<string, Person>; customers: Map<string, Person[]> }> {
  const ownerIds = [...new Set(moves.filter((m) => m.waitingOn === "support").map((m) => m.ownerId))];
  const orgIds = [...new Set(moves.filter((m) => m.waitingOn === "customer").map((m) => m.organizationId))];
  const whose = [
    ...(ownerIds.length ? [inArray(users.id, ownerIds)] : []),
    ...(orgIds.length ? [and(inArray(users.organizationId, orgIds), eq(users.role, "customer"))] : []),
  ];
  const owners = new Map<string, Person>();
  const customers = new Map<string, Person[]>();
  if (!whose.length) return { owners, customers };
  const people = yield* q.all(
    tx
      .select({ id: users.id, organizationId: users.organizationId, role: users.role, name: users.name, email: users.email, preference: users.mailPreference })
      .from(users)
      .where(and(eq(users.active, true), or(...whose))),
  );
  for (const p of people) {
    if (!remindsWith(p.preference as MailPreference)) continue;
    owners.set(p.id, p);
    if (p.role === "customer" && p.organizationId) customers.set(p.organizationId, [...(customers.get(p.organizationId) ?? []), p]);
  }
  return { owners, customers };
}

/** A value as the column stores it, cast to the column's type (PostgreSQL types the VALUES list by it). */
const asColumn = (column: typeof engagements.id | typeof engagements.waitingSince, value: unknown) =>
  sql`cast(${column.mapToDriverValue(value as never)} as ${sql.raw(column.getSQLType())})`;

/**
 * Checks and claims the keys of reminders of one kind and day, in one statement: a key is written
 * only for a move still the engagement's (active, the same waiting_since as when it was read: one
 * that changed hands since is not owed), and not when another worker holds it. Answers the
 * engagements whose reminder is this transaction's to send.
 */
export function* claimReminders(tx: Tx, moves: readonly Move[], reminder: Reminder, now: Date): Steps<Set<string>> {
  const read = sql.join(
    moves.map((m) => sql`(${asColumn(engagements.id, m.id)}, ${asColumn(engagements.waitingSince, m.waitingSince)})`),
    sql`, `,
  );
  const claimed = yield* q.all(
    tx
      .insert(remindersSent)
      .select(
        // The read moves first (CROSS JOIN keeps that order on SQLite), each engagement found by its key.
        sql`select ${engagements.id}, ${engagements.waitingSince}, ${reminder.kind}, ${reminder.seq}, ${remindersSent.sentAt.mapToDriverValue(now as never)}
          from (values ${read}) as read_moves cross join ${engagements}
          where ${engagements.id} = read_moves.column1 and ${engagements.waitingSince} = read_moves.column2 and ${engagements.status} = 'active'`,
      )
      .onConflictDoNothing()
      .returning({ engagementId: remindersSent.engagementId }),
  );
  return new Set(claimed.map((c) => c.engagementId));
}

/**
 * A batch of reminders, each once, in the caller's transaction: their keys checked and claimed in a
 * statement per kind and day (claimReminders), their people read in one query and their mail
 * queued in as few statements as the database allows.
 */
function* remindBatch(tx: Tx, config: NotifyConfig, owed: readonly { move: Move; reminder: Reminder }[], now: Date): Steps<number> {
  const groups = new Map<string, { reminder: Reminder; moves: Move[] }>();
  for (const { move, reminder } of owed) {
    const key = `${reminder.kind}:${reminder.seq}`;
    const group = groups.get(key) ?? { reminder, moves: [] };
    group.moves.push(move);
    groups.set(key, group);
  }
  const mine = new Set<string>();
  for (const { reminder, moves } of groups.values()) for (const id of yield* claimReminders(tx, moves, reminder, now)) mine.add(id);
  // One reminder per move in a batch: the engagement names the key claimed.
  const sending = owed.filter((o) => mine.has(o.move.id));
  if (!sending.length) return 0;
  const { owners, customers } = yield* remindeesOf(tx, sending.map((o) => o.move));
  const mails: OutgoingMail[] = [];
  for (const { move, reminder } of sending) {
    const people = move.waitingOn === "support" ? [owners.get(move.ownerId)].filter((p) => p !== undefined) : (customers.get(move.organizationId) ?? []);
    if (!people.length) continue;
    const { subject, text } = reminderText(config, move, reminder, now);
    for (const person of people) mails.push(prepareMail(config.mail, { to: person.email, subject, text: `Hello ${person.name},\n\n${text}` }));
  }
  yield* queueMails(tx, mails, now);
  return sending.length;
}

/** Every reminder due now, each once. */
export async function sendDueReminders(database: Database, config: NotifyConfig, now: Date): Promise<number> {
  const { moves, sent } = await readSteps(database, function* (tx) {
    const near = yield* movesNearDue(tx, now);
    // The reminders already sent of these moves (of the move as it is: an earlier move's are not its).
    const rows = yield* q.all(
      tx
        .select({ engagementId: remindersSent.engagementId, kind: remindersSent.kind, seq: remindersSent.seq })
        .from(remindersSent)
        .innerJoin(engagements, and(eq(engagements.id, remindersSent.engagementId), eq(engagements.waitingSince, remindersSent.moveSince)))
        .where(nearDue(now)),
    );
    return { moves: near, sent: rows };
  });
  const sentOf = new Map<string, Reminder[]>();
  for (const s of sent) sentOf.set(s.engagementId, [...(sentOf.get(s.engagementId) ?? []), s]);
  const owed: { move: Move; reminder: Reminder }[] = [];
  for (const move of moves) {
    if (!move.dueAt || !move.waitingSince) continue;
    const reminder = reminderDue({ since: move.waitingSince, dueAt: move.dueAt }, sentOf.get(move.id) ?? [], now);
    if (reminder) owed.push({ move, reminder });
  }
  let count = 0;
  for (let i = 0; i < owed.length; i += BATCH) {
    const batch = owed.slice(i, i + BATCH);
    count += await database.transaction((tx) => remindBatch(tx, config, batch, now), { isolation: "read committed" });
  }
  return count;
}

/** One tick: the reminders due, then the staff's daily digests and the customers' weekly ones due. */
export async function sendRemindersAndDigests(database: Database, config: NotifyConfig, now = new Date()): Promise<{ reminders: number; digests: number; weeklyDigests: number }> {
  const reminders = await sendDueReminders(database, config, now);
  const digests = await sendDueDigests(database, config, now);
  return { reminders, digests, weeklyDigests: await sendDueWeeklyDigests(database, config, now) };
}
