/**
 * Each staff member's daily digest, once a day from DIGEST_HOUR UTC, to those who did not switch
 * mail off: their engagements that are late or due within a day, their windows today and tomorrow,
 * their runs that finished and the connections the hypercare watch found dropped since their
 * previous digest (the last 24 hours when there was none lately). None when nothing is in it.
 * Written for a batch of people per transaction: their keys (digests_sent) claimed in one statement,
 * what goes in their digests read in a few queries over all their engagements, and their mail
 * queued in the same transaction, so each digest goes once however many workers tick.
 */
import { and, asc, eq, gt, inArray, lt, lte, max, ne, type SQL } from "drizzle-orm";
import { q, readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { digestsSent, engagements, organizations, users } from "@/db/schema";
import { DIGEST_HOUR, digestsWith, type MailPreference } from "@/core/engagements/reminders";
import { countOf } from "@/core/words";
import { prepareMail, queueMails, type OutgoingMail } from "@/server/mail/mailer";
import type { NotifyConfig } from "../waiting/notify";
import { droppedConnections, finishedRuns } from "./digest-reads";
import { formatUtc } from "./words";

const DAY = 86_400_000;
/** Digests written to a transaction. */
const BATCH = 100;
/** How far back "since the previous digest" reaches at most. */
const LOOK_BACK_DAYS = 7;

const base = (appUrl: string) => appUrl.replace(/\/$/, "");

type StaffMember = { id: string; name: string; email: string; since: Date };

/** What the digests of a batch of people say, read for all their engagements at once. */
function* readDigests(tx: Tx, people: readonly StaffMember[], now: Date) {
  const ids = people.map((p) => p.id);
  const theirs = inArray(engagements.ownerId, ids);
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const pick = {
    id: engagements.id,
    ownerId: engagements.ownerId,
    reference: engagements.reference,
    organizationName: organizations.name,
    dueAt: engagements.dueAt,
    windowStartsAt: engagements.windowStartsAt,
    waitingOn: engagements.waitingOn,
  };
  const from = (where: SQL | undefined) => tx.select(pick).from(engagements).innerJoin(organizations, eq(organizations.id, engagements.organizationId)).where(where);
  const near = yield* q.all(from(and(theirs, eq(engagements.status, "active"), lte(engagements.dueAt, new Date(now.getTime() + DAY)))).orderBy(asc(engagements.dueAt)));
  const windows = yield* q.all(
    from(and(theirs, ne(engagements.status, "cancelled"), gt(engagements.windowStartsAt, dayStart), lt(engagements.windowStartsAt, new Date(dayStart.getTime() + 2 * DAY)))).orderBy(
      asc(engagements.windowStartsAt),
    ),
  );
  const earliest = new Date(Math.min(...people.map((p) => p.since.getTime())));
  const runs = yield* finishedRuns(tx, theirs, earliest, now);
  const drops = yield* droppedConnections(tx, theirs, earliest);
  // The engagements the runs and drops name, for their lines.
  const named = new Set([...runs.map((r) => r.engagementId), ...drops.map((d) => d.engagementId)]);
  const about = named.size ? yield* q.all(from(inArray(engagements.id, [...named]))) : [];
  return { near, windows, runs, drops, about: new Map(about.map((e) => [e.id, e])) };
}

type Read = ReturnType<typeof readDigests> extends Generator<unknown, infer R, unknown> ? R : never;

/** One person's digest from what was read, or null when nothing is in it. */
function digestOf(config: NotifyConfig, person: StaffMember, read: Read, now: Date): { subject: string; text: string } | null {
  const mine = <T extends { ownerId: string }>(rows: readonly T[]) => rows.filter((r) => r.ownerId === person.id);
  const near = mine(read.near);
  const late = near.filter((r) => r.dueAt! < now);
  const dueSoon = near.filter((r) => r.dueAt! > now);
  const windows = mine(read.windows);
  const ownedHere = (engagementId: string) => read.about.get(engagementId)?.ownerId === person.id;
  const runs = read.runs.filter((r) => ownedHere(r.engagementId) && r.finishedAt > person.since);
  const dropsBy = new Map<string, string[]>();
  for (const d of read.drops) if (ownedHere(d.engagementId) && d.droppedAt > person.since) dropsBy.set(d.engagementId, [...(dropsBy.get(d.engagementId) ?? []), d.name]);
  const drops = [...dropsBy.values()].reduce((n, names) => n + names.length, 0);
  if (!late.length && !dueSoon.length && !windows.length && !runs.length && !drops) return null;
  const link = (id: string) => `${base(config.appUrl)}/engagements/${id}`;
  const line = (r: { id: string; reference: string; organizationName: string }, what: string) => `- ${r.reference} · ${r.organizationName}: ${what} — ${link(r.id)}`;
  const whose = (r: (typeof near)[number]) => (r.waitingOn === "support" ? "your move" : "the customer's move");
  const section = (title: string, lines: string[]) => (lines.length ? [`${title} (${lines.length}):`, ...lines].join("\n") : null);
  const sinceWords = `since ${formatUtc(person.since)}`;
  const sections = [
    section("Late", late.map((r) => line(r, `${whose(r)}, due ${formatUtc(r.dueAt!)}`))),
    section("Due within a day", dueSoon.map((r) => line(r, `${whose(r)}, due ${formatUtc(r.dueAt!)}`))),
    section("Windows today and tomorrow", windows.map((r) => line(r, `starts ${formatUtc(r.windowStartsAt!)}`))),
    section(`Runs that finished ${sinceWords}`, runs.map((r) => line(read.about.get(r.engagementId)!, r.words))),
    section(
      `Connections dropped during hypercare ${sinceWords}`,
      [...dropsBy].map(([id, names]) => line(read.about.get(id)!, `${countOf(names.length, "connection", "connections")} dropped (${names.slice(0, 3).join(", ")}${names.length > 3 ? ", …" : ""}): send the reconnect links`)),
    ),
  ].filter(Boolean);
  const counts = [
    late.length ? `${late.length} late` : null,
    dueSoon.length ? `${dueSoon.length} due` : null,
    windows.length ? `${windows.length} window(s)` : null,
    runs.length ? `${runs.length} run(s) finished` : null,
    drops ? `${countOf(drops, "drop", "drops")}` : null,
  ];
  return {
    subject: `Your day in Ferry: ${counts.filter(Boolean).join(", ")}`,
    text: `Hello ${person.name},\n\n${sections.join("\n\n")}\n\nYour portfolio: ${base(config.appUrl)}/portfolio\n`,
  };
}

/** A batch of people's digests, each once: their keys claimed, then the digests of those claimed queued; a transaction step. */
function* digestBatch(tx: Tx, config: NotifyConfig, batch: readonly StaffMember[], day: string, now: Date): Steps<number> {
  const claimed = yield* q.all(
    tx
      .insert(digestsSent)
      .values(batch.map((p) => ({ userId: p.id, day, sentAt: now })))
      .onConflictDoNothing()
      .returning({ userId: digestsSent.userId }),
  );
  const mine = new Set(claimed.map((c) => c.userId));
  const people = batch.filter((p) => mine.has(p.id));
  if (!people.length) return 0;
  const read = yield* readDigests(tx, people, now);
  const mails: OutgoingMail[] = [];
  for (const person of people) {
    const digest = digestOf(config, person, read, now);
    if (digest) mails.push(prepareMail(config.mail, { to: person.email, ...digest }));
  }
  yield* queueMails(tx, mails, now);
  return mails.length;
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
    // Each one's previous digest, within the look-back.
    const lookBack = new Date(now.getTime() - LOOK_BACK_DAYS * DAY);
    const previous = yield* q.all(
      tx
        .select({ userId: digestsSent.userId, at: max(digestsSent.sentAt) })
        .from(digestsSent)
        .where(and(ne(digestsSent.day, day), gt(digestsSent.sentAt, lookBack)))
        .groupBy(digestsSent.userId),
    );
    const previousAt = new Map(previous.map((p) => [p.userId, p.at]));
    return people
      .filter((p) => digestsWith(p.preference as MailPreference) && !done.has(p.id))
      .map((p) => ({ id: p.id, name: p.name, email: p.email, since: previousAt.get(p.id) ?? new Date(now.getTime() - DAY) }));
  });
  let count = 0;
  for (let i = 0; i < staff.length; i += BATCH) {
    const batch = staff.slice(i, i + BATCH);
    count += await database.transaction((tx) => digestBatch(tx, config, batch, day, now), { isolation: "read committed" });
  }
  return count;
}
