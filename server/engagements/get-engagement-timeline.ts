/** The engagement's audit timeline, newest first, in words. */
import { readSteps, type Tx } from "@/db/database";
import type { Database, Dialect, Steps } from "@/db/database";
import { isStaff } from "@/core/accounts/roles";
import type { Actor } from "@/core/accounts/actor";
import { auditEventsById, auditRunExtent, listAuditEvents, listAuditEventsInBrief } from "@/server/security/audit";
import type { auditEvents } from "@/db/schema";
import { assertCanView } from "./access";
import type { TimelineEntry, TimelineOptions, TimelineWho } from "@/core/engagements/schemas";
import { describeAuditEvent, describeEventRun, isPerCompanyAction } from "./timeline";

/** Events read at a time, in brief, for a customer's timeline. */
const PAGE = 250;

type AuditRow = typeof auditEvents.$inferSelect;

/** One event as an entry of its own. */
const entryOf = (ev: AuditRow): TimelineEntry => ({
  id: ev.id,
  at: ev.at,
  actor: ev.actorLabel,
  action: ev.action,
  summary: describeAuditEvent(ev),
  count: 1,
  since: null,
  before: ev.before ?? null,
  after: ev.after ?? null,
});

/**
 * The engagement's audit events, newest first (at most `limit` entries), of everyone, the people
 * or the system (`who`). Everyone reads what happened as a story: a run of per-company events (a
 * credential decrypted for each company the bulk run authorizes…) is one entry saying how many, so
 * the people's moves around it stay in view. Staff may ask for `every` event on a line of its own,
 * as the audit log holds it.
 */
export async function getEngagementTimeline(
  database: Database,
  actor: Actor,
  engagementId: string,
  options: Partial<TimelineOptions> & { limit?: number } = {},
): Promise<TimelineEntry[]> {
  const dialect = database.dialect;
  const { who = "everyone", every = false, limit = 200 } = options;
  return readSteps(database, function* (tx) {
    yield* assertCanView(tx, actor, engagementId);
    if (every && isStaff(actor.role)) return (yield* listAuditEvents(tx, { engagementId, limit, who })).map(entryOf);
    return yield* groupedTimeline(tx, dialect, { engagementId, limit, who });
  });
}

/**
 * Reads the events in brief, newest first; each event of a per-company kind starts a run, which
 * the database measures back to the first event that differs (auditRunExtent), and reading goes on
 * before it — so a run of 10,000 decryptions is one entry counting 10,000, read in a few queries.
 * Events of their own are then read in full for their words.
 */
function* groupedTimeline(tx: Tx, dialect: Dialect, params: { engagementId: string; limit: number; who: TimelineWho }): Steps<TimelineEntry[]> {
  const { engagementId, limit, who } = params;
  const entries: (TimelineEntry | { single: number })[] = [];
  let beforeId: number | undefined;
  reading: for (;;) {
    const page = yield* listAuditEventsInBrief(tx, dialect, { engagementId, limit: PAGE, beforeId, who });
    for (const event of page) {
      if (entries.length >= limit) break reading;
      if (!isPerCompanyAction(event.action)) {
        entries.push({ single: event.id });
        continue;
      }
      const rehearsal = event.rehearsal;
      const run = yield* auditRunExtent(tx, dialect, { engagementId, fromId: event.id, action: event.action, actorLabel: event.actorLabel, purpose: event.purpose, rehearsal, names: 3, who });
      if (run.count === 1) entries.push({ single: event.id });
      else {
        entries.push({
          id: event.id,
          at: event.at,
          actor: event.actorLabel,
          action: event.action,
          summary: describeEventRun({ action: event.action, purpose: event.purpose, rehearsal, count: run.count, names: run.names }),
          count: run.count,
          since: run.oldestAt,
          before: null,
          after: null,
        });
      }
      // Go on before the run's oldest event.
      beforeId = run.oldestId;
      continue reading;
    }
    if (page.length < PAGE) break;
    beforeId = page[page.length - 1]!.id;
  }
  const full = new Map((yield* auditEventsById(tx, entries.flatMap((e) => ("single" in e ? [e.single] : [])))).map((ev) => [ev.id, ev]));
  return entries.flatMap((e) => {
    if (!("single" in e)) return [e];
    const ev = full.get(e.single);
    return ev ? [entryOf(ev)] : [];
  });
}
