/**
 * Each customer's weekly digest of their organisation's engagements (issue 30, item 5): once per
 * UTC week, from Monday DIGEST_HOUR UTC (core/engagements/reminders.ts, `digestWeek`), to each
 * active customer user of an organisation with active or on-hold engagements who did not switch
 * mail off. Per engagement, what waits on them now (their move, since when and due when; windows
 * proposed awaiting their answer; companies waiting for their end customers to reconnect, or for
 * fresh tokens) and what happened in the past seven days (steps completed, windows agreed, runs
 * finished, connections dropped, the handover report), each with its portal link.
 * Written for a batch of people per transaction: their keys (weekly_digests_sent, by the week's
 * Monday) claimed in one statement, what their digests say read in a few queries over all their
 * organisations' engagements, and their mail queued in the same transaction — so each goes once
 * however many workers tick, and a worker that was down sends the current week's later in the
 * week, never the weeks it missed.
 */
import { and, asc, count, eq, gt, inArray, isNull, or, type SQL } from "drizzle-orm";
import { q, readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { engagements, engagementSteps, handovers, migrationItems, organizations, users, weeklyDigestsSent, windowProposals } from "@/db/schema";
import { digestsWith, digestWeek, type MailPreference } from "@/core/engagements/reminders";
import { stepDefinition } from "@/core/engagements/steps";
import type { StepNumber } from "@/core/engagements/states";
import { companiesText, countOf, plural } from "@/core/words";
import { prepareMail, queueMails, type OutgoingMail } from "@/server/mail/mailer";
import { getManagedPlatform } from "@/server/platforms";
import type { NotifyConfig } from "../waiting/notify";
import { droppedConnections, finishedRuns } from "./digest-reads";
import { formatDay, formatUtc } from "./words";

const DAY = 86_400_000;
/** What happened is told of this many days back. */
const WEEK_DAYS = 7;
/** Digests written to a transaction. */
const BATCH = 100;

const base = (appUrl: string) => appUrl.replace(/\/$/, "");

type Customer = { id: string; name: string; email: string; organizationId: string };

/** One engagement's part of its organisation's digest. */
type EngagementNews = {
  id: string;
  reference: string;
  platformKey: string;
  status: string;
  currentStep: number;
  waitingOn: "customer" | "support" | null;
  waitingSince: Date | null;
  dueAt: Date | null;
  proposed: { startsAt: Date; endsAt: Date }[];
  reconnectPending: number;
  happened: { at: Date; words: string }[];
};

/** What the digests of these organisations say, read for all their engagements at once. */
function* readWeek(tx: Tx, orgIds: readonly string[], since: Date, now: Date): Steps<Map<string, { name: string; engagements: EngagementNews[] }>> {
  const theirs: SQL | undefined = and(
    inArray(engagements.organizationId, [...orgIds]),
    // Open ones, and those that ended this week (their last news: the handover, a cancellation).
    or(inArray(engagements.status, ["active", "on_hold"]), gt(engagements.statusChangedAt, since)),
  );
  const rows = yield* q.all(
    tx
      .select({
        id: engagements.id,
        reference: engagements.reference,
        platformKey: engagements.platformKey,
        organizationId: engagements.organizationId,
        organizationName: organizations.name,
        status: engagements.status,
        currentStep: engagements.currentStep,
        waitingOn: engagements.waitingOn,
        waitingSince: engagements.waitingSince,
        dueAt: engagements.dueAt,
      })
      .from(engagements)
      .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
      .where(theirs)
      .orderBy(asc(engagements.reference)),
  );
  const news = new Map<string, EngagementNews>();
  const byOrg = new Map<string, { name: string; engagements: EngagementNews[] }>();
  for (const r of rows) {
    const e: EngagementNews = { ...r, proposed: [], reconnectPending: 0, happened: [] };
    news.set(r.id, e);
    const org = byOrg.get(r.organizationId) ?? { name: r.organizationName, engagements: [] };
    org.engagements.push(e);
    byOrg.set(r.organizationId, org);
  }
  if (!rows.length) return byOrg;
  const told = (engagementId: string, at: Date, words: string) => news.get(engagementId)?.happened.push({ at, words });
  // The reads below name the engagements by a subquery (the organisations' ids its only
  // parameters): each table is then looked up by its engagement index — the companies counted
  // from the index on (engagement, rehearsal, state) — never scanned.
  const ids = tx.select({ id: engagements.id }).from(engagements).where(theirs);
  // Windows: proposed and awaiting their answer, or agreed this week.
  const windows = yield* q.all(
    tx
      .select({ engagementId: windowProposals.engagementId, status: windowProposals.status, startsAt: windowProposals.startsAt, endsAt: windowProposals.endsAt, decidedAt: windowProposals.decidedAt })
      .from(windowProposals)
      .where(and(inArray(windowProposals.engagementId, ids), or(eq(windowProposals.status, "proposed"), and(eq(windowProposals.status, "accepted"), gt(windowProposals.decidedAt, since)))))
      .orderBy(asc(windowProposals.startsAt)),
  );
  for (const w of windows) {
    if (w.status === "proposed") news.get(w.engagementId)?.proposed.push(w);
    else told(w.engagementId, w.decidedAt!, `The migration window ${formatUtc(w.startsAt)} – ${formatUtc(w.endsAt)} was agreed`);
  }
  // Companies that wait for their end customers to reconnect (or for fresh tokens): counted from the index.
  const pending = yield* q.all(
    tx
      .select({ engagementId: migrationItems.engagementId, n: count() })
      .from(migrationItems)
      .where(and(inArray(migrationItems.engagementId, ids), isNull(migrationItems.rehearsalRunId), eq(migrationItems.state, "reconnect_pending")))
      .groupBy(migrationItems.engagementId),
  );
  for (const p of pending) {
    const e = news.get(p.engagementId);
    if (e) e.reconnectPending = Number(p.n);
  }
  const steps = yield* q.all(
    tx
      .select({ engagementId: engagementSteps.engagementId, step: engagementSteps.step, completedAt: engagementSteps.completedAt })
      .from(engagementSteps)
      .where(and(inArray(engagementSteps.engagementId, ids), eq(engagementSteps.state, "done"), gt(engagementSteps.completedAt, since))),
  );
  for (const s of steps) told(s.engagementId, s.completedAt!, `Step ${s.step} (${stepDefinition(s.step as StepNumber).title}) was completed`);
  for (const r of yield* finishedRuns(tx, theirs, since, now)) told(r.engagementId, r.finishedAt, r.words);
  const dropped = new Map<string, { n: number; at: Date }>();
  for (const d of yield* droppedConnections(tx, theirs, since)) dropped.set(d.engagementId, { n: (dropped.get(d.engagementId)?.n ?? 0) + 1, at: d.droppedAt });
  for (const [id, d] of dropped) told(id, d.at, `The daily check found ${countOf(d.n, "migrated connection", "migrated connections")} dropped: ${plural(d.n, { one: "its end customer needs", other: "their end customers need" })} the reconnect link`);
  const reports = yield* q.all(
    tx
      .select({ engagementId: handovers.engagementId, confirmedAt: handovers.confirmedAt, acknowledgedAt: handovers.acknowledgedAt })
      .from(handovers)
      .where(and(inArray(handovers.engagementId, ids), or(gt(handovers.confirmedAt, since), gt(handovers.acknowledgedAt, since)))),
  );
  for (const h of reports) {
    if (h.confirmedAt > since) told(h.engagementId, h.confirmedAt, "Ferry support sent the handover report");
    if (h.acknowledgedAt && h.acknowledgedAt > since) told(h.engagementId, h.acknowledgedAt, "The handover report was acknowledged");
  }
  for (const e of news.values()) e.happened.sort((a, b) => a.at.getTime() - b.at.getTime());
  return byOrg;
}

/** One engagement's lines. */
function engagementLines(config: NotifyConfig, e: EngagementNews, now: Date): string[] {
  const platform = getManagedPlatform(e.platformKey)?.name ?? e.platformKey;
  const step = e.currentStep >= 1 && e.currentStep <= 6 ? `step ${e.currentStep} of 6 (${stepDefinition(e.currentStep as StepNumber).title})` : "all six steps done";
  const due = e.dueAt ? `, due ${formatUtc(e.dueAt)}${e.dueAt < now ? " (late)" : ""}` : "";
  const where =
    e.status === "on_hold"
      ? "On hold."
      : e.status !== "active"
        ? `${e.status === "completed" ? "Completed" : "Cancelled"}.`
        : e.waitingOn === "customer"
          ? `Your move, since ${formatUtc(e.waitingSince!)}${due}.`
          : e.waitingOn === "support"
            ? `Ferry support's move, since ${formatUtc(e.waitingSince!)}.`
            : "Nobody's move.";
  return [
    `${e.reference} · ${platform} · ${step}`,
    `  ${where}`,
    ...(e.proposed.length ? [`  Windows proposed, awaiting your answer: ${e.proposed.map((w) => `${formatUtc(w.startsAt)} – ${formatUtc(w.endsAt)}`).join("; ")}.`] : []),
    ...(e.reconnectPending
      ? [`  ${companiesText(e.reconnectPending)} ${plural(e.reconnectPending, { one: "waits for its end customer", other: "wait for their end customers" })} to reconnect, or for fresh tokens from you.`]
      : []),
    ...(e.happened.length ? ["  In the past seven days:", ...e.happened.map((h) => `  - ${formatDay(h.at)}: ${h.words}`)] : ["  Nothing happened in the past seven days."]),
    `  Open it in Ferry: ${base(config.appUrl)}/portal/engagements/${e.id}`,
  ];
}

/** A customer's digest from their organisation's news. */
function digestOf(config: NotifyConfig, person: Customer, org: { name: string; engagements: EngagementNews[] }, now: Date): { subject: string; text: string } {
  const yours = org.engagements.filter((e) => e.status === "active" && (e.waitingOn === "customer" || e.proposed.length || e.reconnectPending)).length;
  const updates = org.engagements.reduce((n, e) => n + e.happened.length, 0);
  const summary = [yours ? `${countOf(yours, "engagement waits", "engagements wait")} on you` : "nothing waits on you", updates ? countOf(updates, "update", "updates") : null];
  return {
    subject: `Your week in Ferry (${org.name}): ${summary.filter(Boolean).join(", ")}`,
    text: [
      `Hello ${person.name},`,
      "",
      `${org.name}'s migrations this week: what waits on you now, and what happened in the past seven days.`,
      "",
      org.engagements.map((e) => engagementLines(config, e, now).join("\n")).join("\n\n"),
      "",
      `All your engagements: ${base(config.appUrl)}/portal`,
      "",
    ].join("\n"),
  };
}

/** A batch of customers' digests, each once: their keys claimed, then the digests of those claimed queued; a transaction step. */
function* weeklyBatch(tx: Tx, config: NotifyConfig, batch: readonly Customer[], week: string, now: Date): Steps<number> {
  const claimed = yield* q.all(
    tx
      .insert(weeklyDigestsSent)
      .values(batch.map((p) => ({ userId: p.id, week, sentAt: now })))
      .onConflictDoNothing()
      .returning({ userId: weeklyDigestsSent.userId }),
  );
  const mine = new Set(claimed.map((c) => c.userId));
  const people = batch.filter((p) => mine.has(p.id));
  if (!people.length) return 0;
  const orgs = yield* readWeek(tx, [...new Set(people.map((p) => p.organizationId))], new Date(now.getTime() - WEEK_DAYS * DAY), now);
  const mails: OutgoingMail[] = [];
  for (const person of people) {
    const org = orgs.get(person.organizationId);
    if (org?.engagements.length) mails.push(prepareMail(config.mail, { to: person.email, ...digestOf(config, person, org, now) }));
  }
  yield* queueMails(tx, mails, now);
  return mails.length;
}

/** Each customer's digest for this week, once (see the module note). */
export async function sendDueWeeklyDigests(database: Database, config: NotifyConfig, now: Date): Promise<number> {
  const week = digestWeek(now);
  const customers = await readSteps(database, function* (tx) {
    const withWork = tx.select({ id: engagements.organizationId }).from(engagements).where(inArray(engagements.status, ["active", "on_hold"]));
    const people = yield* q.all(
      tx
        .select({ id: users.id, name: users.name, email: users.email, organizationId: users.organizationId, preference: users.mailPreference })
        .from(users)
        .where(and(eq(users.active, true), eq(users.role, "customer"), inArray(users.organizationId, withWork)))
        .orderBy(asc(users.organizationId)),
    );
    const done = new Set((yield* q.all(tx.select({ userId: weeklyDigestsSent.userId }).from(weeklyDigestsSent).where(eq(weeklyDigestsSent.week, week)))).map((d) => d.userId));
    return people.flatMap((p) => (p.organizationId && digestsWith(p.preference as MailPreference) && !done.has(p.id) ? [{ id: p.id, name: p.name, email: p.email, organizationId: p.organizationId }] : []));
  });
  let sent = 0;
  for (let i = 0; i < customers.length; i += BATCH) {
    const batch = customers.slice(i, i + BATCH);
    sent += await database.transaction((tx) => weeklyBatch(tx, config, batch, week, now), { isolation: "read committed" });
  }
  return sent;
}
