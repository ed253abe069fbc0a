/**
 * One company's timeline (core/migration/company-timeline.ts), read for support or for the
 * company's own customer: the service calls every run made for it, the audit events about it (what
 * people and the watch did to it), the fresh tokens sent for it with support's review, and the
 * service's events (webhooks) about it with what became of each.
 */
import { and, asc, count, desc, eq, inArray } from "drizzle-orm";
import { q, readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { auditEvents, migrationItems, reconnectLinkOpens, serviceCalls, supplementaryFiles, supplementaryRows, users, webhookInbox } from "@/db/schema";
import type { Actor } from "@/core/accounts/actor";
import { foldCalls, linkOpenWords, mergeTimeline, serviceEventWords, type CompanyTimeline, type TimelineEntry } from "@/core/migration/company-timeline";
import { AppError } from "@/server/errors";
import { assertCanView } from "@/server/engagements/access";
import { describeAuditEvent } from "@/server/engagements/timeline";

/** The newest calls a drawer shows (a company's calls are a handful, or a few dozen polls). */
export const TIMELINE_CALLS = 300;

function* callEntries(tx: Tx, itemId: string): Steps<{ entries: TimelineEntry[]; leftOut: number }> {
  const rows = yield* q.all(
    tx
      .select({
        at: serviceCalls.at,
        operation: serviceCalls.operation,
        method: serviceCalls.method,
        path: serviceCalls.path,
        status: serviceCalls.status,
        ok: serviceCalls.ok,
        errorText: serviceCalls.errorText,
        correlationId: serviceCalls.correlationId,
        detail: serviceCalls.detail,
      })
      .from(serviceCalls)
      .where(eq(serviceCalls.itemId, itemId))
      .orderBy(desc(serviceCalls.id))
      .limit(TIMELINE_CALLS),
  );
  let leftOut = 0;
  if (rows.length === TIMELINE_CALLS) {
    const [all] = yield* q.all(tx.select({ n: count() }).from(serviceCalls).where(eq(serviceCalls.itemId, itemId)));
    leftOut = Number(all?.n ?? 0) - TIMELINE_CALLS;
  }
  return { entries: foldCalls(rows.reverse()), leftOut };
}

function* auditEntries(tx: Tx, itemId: string): Steps<TimelineEntry[]> {
  const rows = yield* q.all(
    tx
      .select({ at: auditEvents.at, action: auditEvents.action, actorId: auditEvents.actorId, actorLabel: auditEvents.actorLabel, before: auditEvents.before, after: auditEvents.after })
      .from(auditEvents)
      .where(and(eq(auditEvents.targetType, "migration_item"), eq(auditEvents.targetId, itemId)))
      .orderBy(asc(auditEvents.id)),
  );
  return rows.map((r) => ({
    at: r.at,
    until: null,
    source: r.actorId ? ("person" as const) : ("system" as const),
    text: describeAuditEvent(r),
    actor: r.actorId ? r.actorLabel : null,
    call: null,
  }));
}

const REVIEW_WORDS: Record<string, string> = {
  accepted: "Ferry support accepted the fresh tokens",
  returned: "Ferry support sent the fresh tokens back",
  replaced: "The fresh tokens were replaced by a later file",
  expired: "The fresh tokens expired before they were used",
};

function* freshTokenEntries(tx: Tx, itemId: string): Steps<TimelineEntry[]> {
  const rows = yield* q.all(
    tx
      .select({
        fileName: supplementaryFiles.fileName,
        status: supplementaryFiles.status,
        submittedAt: supplementaryFiles.submittedAt,
        submittedBy: users.name,
        decidedAt: supplementaryFiles.decidedAt,
        decidedById: supplementaryFiles.decidedById,
        note: supplementaryFiles.note,
      })
      .from(supplementaryRows)
      .innerJoin(supplementaryFiles, eq(supplementaryFiles.id, supplementaryRows.fileId))
      .innerJoin(users, eq(users.id, supplementaryFiles.submittedById))
      .where(eq(supplementaryRows.itemId, itemId))
      .orderBy(asc(supplementaryFiles.submittedAt)),
  );
  const deciderIds = [...new Set(rows.map((r) => r.decidedById).filter((x): x is string => !!x))];
  const deciders = new Map(deciderIds.length ? (yield* q.all(tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, deciderIds)))).map((u) => [u.id, u.name]) : []);
  return rows.flatMap((r) => {
    const sent: TimelineEntry = { at: r.submittedAt, until: null, source: "person", text: `Sent fresh tokens in ${r.fileName}`, actor: r.submittedBy, call: null };
    const words = REVIEW_WORDS[r.status];
    if (!r.decidedAt || !words) return [sent];
    const decided: TimelineEntry = {
      at: r.decidedAt,
      until: null,
      source: r.decidedById ? "person" : "system",
      text: r.note ? `${words}: ${r.note}` : words,
      actor: r.decidedById ? (deciders.get(r.decidedById) ?? null) : null,
      call: null,
    };
    return [sent, decided];
  });
}

/** The service's events (webhooks) about the company, by its companyId on the service, as they arrived. */
function* serviceEventEntries(tx: Tx, companyId: string | null): Steps<TimelineEntry[]> {
  if (!companyId) return [];
  const rows = yield* q.all(
    tx
      .select({ receivedAt: webhookInbox.receivedAt, eventType: webhookInbox.eventType, payload: webhookInbox.payload, processedAt: webhookInbox.processedAt, error: webhookInbox.error })
      .from(webhookInbox)
      .where(eq(webhookInbox.companyId, companyId))
      .orderBy(asc(webhookInbox.receivedAt))
      .limit(TIMELINE_CALLS),
  );
  return rows.map((r) => ({
    at: r.receivedAt,
    until: null,
    source: "service" as const,
    text: serviceEventWords({ eventType: r.eventType, payload: r.payload, processed: r.processedAt !== null, error: r.error }),
    actor: null,
    call: null,
  }));
}

/** Each open of the company's reconnect link (by its end customer, or anyone holding the link), with what became of it. */
function* linkOpenEntries(tx: Tx, itemId: string): Steps<TimelineEntry[]> {
  const rows = yield* q.all(tx.select().from(reconnectLinkOpens).where(eq(reconnectLinkOpens.itemId, itemId)).orderBy(asc(reconnectLinkOpens.at)).limit(TIMELINE_CALLS));
  return rows.map((r) => ({
    at: r.at,
    until: null,
    source: "person" as const,
    text: linkOpenWords(r),
    actor: "Its end customer (reconnect link)",
    call:
      r.outcome === "service_error"
        ? { method: "GET", path: "/companies/{companyId}", status: r.status, ok: false, errorText: r.detail, correlationId: r.correlationId, count: 1, answer: null, refused: false }
        : null,
  }));
}

/** The timeline of one company of the engagement (NOT_FOUND for another engagement's, or for a customer another organisation's). */
export function getCompanyTimeline(database: Database, actor: Actor, input: { engagementId: string; itemId: string }): Promise<CompanyTimeline> {
  return readSteps(database, function* (tx) {
    yield* assertCanView(tx, actor, input.engagementId);
    const [item] = yield* q.all(
      tx
        .select({ id: migrationItems.id, name: migrationItems.name, companyId: migrationItems.companyId })
        .from(migrationItems)
        .where(and(eq(migrationItems.id, input.itemId), eq(migrationItems.engagementId, input.engagementId)))
        .limit(1),
    );
    if (!item) throw new AppError("NOT_FOUND", "No such company in this engagement's token file.");
    const calls = yield* callEntries(tx, item.id);
    const entries = mergeTimeline(calls.entries, yield* auditEntries(tx, item.id), yield* freshTokenEntries(tx, item.id), yield* serviceEventEntries(tx, item.companyId), yield* linkOpenEntries(tx, item.id));
    return { itemId: item.id, name: item.name, entries, olderCallsLeftOut: calls.leftOut };
  });
}
