/**
 * The audit log: every change is an event (actor, action, target, time, before/after), of one of
 * the typed actions in audit-events.ts. Values under secret-looking keys are replaced before they
 * are stored, so no secret reaches it. A change about an engagement moves the engagement's
 * "last change" (its `updatedAt`, which the list shows and sorts by) in the same transaction, so
 * every change counts there, whichever part of Ferry made it.
 */
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, lt, lte, sql, type AnyColumn, type SQL } from "drizzle-orm";
import { auditEvents, engagements } from "@/db/schema";
import { q, type Dialect, type Steps, type Tx } from "@/db/database";
import { actorLabel } from "./actor";
import { type Actor } from "@/core/accounts/actor";
import type { TimelineWho } from "@/core/engagements/schemas";
import { auditTargetType, isChange, validateAuditPayload, type AuditAction, type AuditPayload } from "./audit-events";


const SECRET_KEY = /secret|token|password|apikey|api_key|cipher|credential/i;

/** Replaces values under secret-looking keys, recursively (exported for tests). */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? "[redacted]" : redact(v)]),
    );
  }
  return value;
}

export type AuditInput<A extends AuditAction> = {
  actor: Actor | null;
  action: A;
  targetId: string;
  engagementId?: string | null;
  organizationId?: string | null;
  at?: Date;
} & AuditPayload<A>;

/**
 * Writes one audit event, as a step of the transaction that made the change (`yield* writeAudit(tx, …)`).
 * The payload is checked against the action's schema, and secret-looking keys are redacted on top of that.
 */
export function* writeAudit<A extends AuditAction>(tx: Tx, input: AuditInput<A>): Steps<void> {
  const payload = validateAuditPayload(input.action, input as { before?: unknown; after?: unknown });
  const at = input.at ?? new Date();
  if (input.engagementId && isChange(input.action)) {
    // Only forward: a change stamped earlier than the last one (a clock moved back) leaves it be.
    yield* q.run(tx.update(engagements).set({ updatedAt: at }).where(and(eq(engagements.id, input.engagementId), lt(engagements.updatedAt, at))));
  }
  yield* q.run(
    tx.insert(auditEvents).values({
      at,
      actorId: input.actor?.id ?? null,
      actorLabel: actorLabel(input.actor),
      action: input.action,
      targetType: auditTargetType(input.action),
      targetId: input.targetId,
      engagementId: input.engagementId ?? null,
      organizationId: input.organizationId ?? null,
      before: redact(payload.before) as Record<string, unknown> | null,
      after: redact(payload.after) as Record<string, unknown> | null,
    }),
  );
}


/** The condition for `who`'s events (none for everyone's): the people's have an actor, the system's (the worker, the watch) none. */
function eventsOf(who: TimelineWho = "everyone"): SQL | undefined {
  return who === "people" ? isNotNull(auditEvents.actorId) : who === "system" ? isNull(auditEvents.actorId) : undefined;
}

/** An engagement's audit events, newest first (a transaction step; readSteps outside one). */
export function* listAuditEvents(tx: Tx, filter: { engagementId: string; limit: number; who?: TimelineWho }) {
  return yield* q.all(
    tx
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.engagementId, filter.engagementId), eventsOf(filter.who)))
      .orderBy(desc(auditEvents.id))
      .limit(filter.limit),
  );
}

/**
 * A top-level key of a JSON payload column as text, on either database: SQLite's json_extract,
 * PostgreSQL's ->> on jsonb. `key` is one of this module's own constants, written into the SQL.
 */
function payloadText(dialect: Dialect, column: AnyColumn, key: "purpose" | "company"): SQL<string | null> {
  return dialect === "postgresql" ? sql<string | null>`(${column} ->> ${sql.raw(`'${key}'`)})` : sql<string | null>`json_extract(${column}, ${sql.raw(`'$.${key}'`)})`;
}

/** Whether a payload's `rehearsal` is true, as a condition on either database (absent counts as false). */
function payloadRehearsal(dialect: Dialect, column: AnyColumn): SQL {
  return dialect === "postgresql" ? sql`coalesce((${column} ->> 'rehearsal')::boolean, false)` : sql`coalesce(json_extract(${column}, '$.rehearsal'), 0) = 1`;
}

/**
 * An engagement's audit events in brief, newest first, older than `beforeId` when given (the next
 * page): what a timeline needs to tell runs of per-company events apart — action, actor, and the
 * purpose, rehearsal flag and company of their payload.
 */
export function* listAuditEventsInBrief(tx: Tx, dialect: Dialect, filter: { engagementId: string; limit: number; beforeId?: number; who?: TimelineWho }) {
  return yield* q.all(
    tx
      .select({
        id: auditEvents.id,
        at: auditEvents.at,
        actorLabel: auditEvents.actorLabel,
        action: auditEvents.action,
        purpose: payloadText(dialect, auditEvents.after, "purpose"),
        rehearsal: sql<boolean>`case when ${payloadRehearsal(dialect, auditEvents.after)} then 1 else 0 end`.mapWith((v) => Number(v) === 1),
        company: payloadText(dialect, auditEvents.after, "company"),
      })
      .from(auditEvents)
      .where(and(eq(auditEvents.engagementId, filter.engagementId), eventsOf(filter.who), filter.beforeId === undefined ? undefined : lt(auditEvents.id, filter.beforeId)))
      .orderBy(desc(auditEvents.id))
      .limit(filter.limit),
  );
}

/**
 * How far back a run of like events goes from event `fromId` (itself one of them): events of one
 * action and actor with the same purpose and rehearsal flag, one after another with nothing else
 * between. The database walks the run backwards to the first event that differs, so a run of 100,000
 * events is measured without reading them here. Returns how many, the oldest one's id and time,
 * and the companies of its oldest few (`names`, oldest first).
 */
export function* auditRunExtent(
  tx: Tx,
  dialect: Dialect,
  run: { engagementId: string; fromId: number; action: string; actorLabel: string; purpose: string | null; rehearsal: boolean; names: number; who?: TimelineWho },
): Steps<{ count: number; oldestId: number; oldestAt: Date; names: string[] }> {
  const rehearsal = payloadRehearsal(dialect, auditEvents.after);
  const like = and(
    eq(auditEvents.action, run.action),
    eq(auditEvents.actorLabel, run.actorLabel),
    // Null-safe equality (the purpose may be absent); both databases read IS NOT DISTINCT FROM.
    sql`${payloadText(dialect, auditEvents.after, "purpose")} is not distinct from ${run.purpose}`,
    run.rehearsal ? rehearsal : sql`not (${rehearsal})`,
  );
  // Among `who`'s events only: a run is measured in the timeline as it is shown.
  const inEngagement = and(eq(auditEvents.engagementId, run.engagementId), eventsOf(run.who));
  const other = yield* q.get(
    tx
      .select({ id: auditEvents.id })
      .from(auditEvents)
      .where(and(inEngagement, lt(auditEvents.id, run.fromId), sql`not (${like})`))
      .orderBy(desc(auditEvents.id))
      .limit(1),
  );
  const after = other?.id ?? 0;
  const within = and(inEngagement, gt(auditEvents.id, after), lte(auditEvents.id, run.fromId));
  const count = (yield* q.get(tx.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(auditEvents).where(within)))?.n ?? 0;
  const oldest = yield* q.all(
    tx
      .select({ id: auditEvents.id, at: auditEvents.at, company: payloadText(dialect, auditEvents.after, "company") })
      .from(auditEvents)
      .where(within)
      .orderBy(asc(auditEvents.id))
      .limit(Math.max(1, run.names)),
  );
  return { count, oldestId: oldest[0]!.id, oldestAt: oldest[0]!.at, names: oldest.map((o) => o.company).filter((c): c is string => !!c) };
}

/** Audit events by id (for the entries a timeline shows in full). */
export function* auditEventsById(tx: Tx, ids: readonly number[]) {
  return ids.length ? yield* q.all(tx.select().from(auditEvents).where(inArray(auditEvents.id, [...ids]))) : [];
}
