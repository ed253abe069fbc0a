/**
 * The webhook inbox and the targets' event state in Ferry's database (a target's consumers, its last
 * event and refusals, its rate-limit pause). Transaction steps (generator bodies) on either database.
 *
 * The inbox is written by the receiver in one statement per delivery — an insert that does nothing
 * when the target already holds that message id — and read by the worker's inbox work, which claims
 * due rows under a lease (a fresh claim token each time, named by the write that marks a row
 * processed), so a row is processed once even when a worker dies between claiming and finishing:
 * its claim lapses and another worker takes the row; the first one's late write names a stale token
 * and changes nothing.
 */
import { and, asc, eq, inArray, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import { q, type Steps, type Tx } from "@/db/database";
import { targetEvents, webhookConsumers, webhookInbox } from "@/db/schema";

export type InboxRow = typeof webhookInbox.$inferSelect;
export type ConsumerRow = typeof webhookConsumers.$inferSelect;
export type TargetEventsRow = typeof targetEvents.$inferSelect;

/** The consumers of a target that still verify deliveries (not removed). */
export function* liveConsumers(tx: Tx, targetId: string): Steps<ConsumerRow[]> {
  return yield* q.all(tx.select().from(webhookConsumers).where(and(eq(webhookConsumers.targetId, targetId), isNull(webhookConsumers.removedAt))));
}

/** The engagement's live consumer, if it has one. */
export function* engagementConsumer(tx: Tx, engagementId: string): Steps<ConsumerRow | undefined> {
  return yield* q.get(tx.select().from(webhookConsumers).where(and(eq(webhookConsumers.engagementId, engagementId), isNull(webhookConsumers.removedAt))));
}

export function* insertConsumer(tx: Tx, row: { id: string; targetId: string; engagementId: string | null; consumerId: string; secretCipher: string; url: string; now: Date }): Steps<void> {
  yield* q.run(tx.insert(webhookConsumers).values({ id: row.id, targetId: row.targetId, engagementId: row.engagementId, consumerId: row.consumerId, secretCipher: row.secretCipher, url: row.url, createdAt: row.now }));
}

export function* markConsumerRemoved(tx: Tx, params: { id: string; now: Date }): Steps<void> {
  yield* q.run(tx.update(webhookConsumers).set({ removedAt: params.now }).where(eq(webhookConsumers.id, params.id)));
}

/** A target's event state (a row with the defaults when it has none yet). */
export function* eventStateOf(tx: Tx, targetId: string): Steps<TargetEventsRow> {
  const row = yield* q.get(tx.select().from(targetEvents).where(eq(targetEvents.targetId, targetId)));
  return row ?? { targetId, publicUrl: null, lastEventAt: null, lastEventType: null, lastFailureAt: null, lastFailure: null, failures: 0, pausedUntil: null, pauseReason: null };
}

/** Makes the target's event row if it has none (so the updates below have one to change). */
function* ensureEventState(tx: Tx, targetId: string): Steps<void> {
  yield* q.run(tx.insert(targetEvents).values({ targetId }).onConflictDoNothing({ target: targetEvents.targetId }));
}

/** Sets (or clears, with null) Ferry's public URL for the target. */
export function* setPublicUrl(tx: Tx, params: { targetId: string; publicUrl: string | null }): Steps<void> {
  yield* ensureEventState(tx, params.targetId);
  yield* q.run(tx.update(targetEvents).set({ publicUrl: params.publicUrl }).where(eq(targetEvents.targetId, params.targetId)));
}

/** A delivery refused (its signature, its timestamp): counted and said on the target; nothing of it is stored. */
export function* recordRefusal(tx: Tx, params: { targetId: string; reason: string; now: Date }): Steps<void> {
  yield* ensureEventState(tx, params.targetId);
  yield* q.run(
    tx
      .update(targetEvents)
      .set({ lastFailureAt: params.now, lastFailure: params.reason, failures: sql`${targetEvents.failures} + 1` })
      .where(eq(targetEvents.targetId, params.targetId)),
  );
}

/** The company an event is about (its payload's `referenceCompany.id`), or null. */
export function referenceCompanyId(payload: Record<string, unknown>): string | null {
  const company = payload.referenceCompany;
  const id = company && typeof company === "object" ? (company as Record<string, unknown>).id : null;
  return typeof id === "string" && id.length > 0 && id.length <= 200 ? id : null;
}

/**
 * A verified delivery into the inbox, once per message id (a duplicate changes nothing); true when
 * it was new. With `noteEvent` the target's last event is set too (the receiver does so at most once a
 * second per target: the page's "last event" to the second, without a second write per delivery).
 */
export function* insertDelivery(tx: Tx, d: { id: string; targetId: string; messageId: string; eventType: string; generatedAt: Date | null; payload: Record<string, unknown>; now: Date; noteEvent?: boolean }): Steps<boolean> {
  const inserted = yield* q.all(
    tx
      .insert(webhookInbox)
      .values({ id: d.id, targetId: d.targetId, messageId: d.messageId, eventType: d.eventType, generatedAt: d.generatedAt, receivedAt: d.now, payload: d.payload, companyId: referenceCompanyId(d.payload) })
      .onConflictDoNothing({ target: [webhookInbox.targetId, webhookInbox.messageId] })
      .returning({ id: webhookInbox.id }),
  );
  if (d.noteEvent ?? true) {
    yield* ensureEventState(tx, d.targetId);
    yield* q.run(tx.update(targetEvents).set({ lastEventAt: d.now, lastEventType: d.eventType }).where(eq(targetEvents.targetId, d.targetId)));
  }
  return inserted.length > 0;
}

/** Unprocessed rows due now whose claim is free or lapsed, oldest first (by the service's time, then arrival). */
export function* dueInbox(tx: Tx, params: { now: Date; limit: number }): Steps<InboxRow[]> {
  const { now } = params;
  return yield* q.all(
    tx
      .select()
      .from(webhookInbox)
      .where(
        and(
          isNull(webhookInbox.processedAt),
          or(isNull(webhookInbox.nextAttemptAt), lte(webhookInbox.nextAttemptAt, now)),
          or(isNull(webhookInbox.claimExpiresAt), lt(webhookInbox.claimExpiresAt, now)),
        ),
      )
      .orderBy(asc(webhookInbox.receivedAt))
      .limit(params.limit),
  );
}

/** Claims the rows still unclaimed (or lapsed) for `leaseMs` under a new token; answers the ids claimed. */
export function* claimInbox(tx: Tx, params: { ids: readonly string[]; token: string; now: Date; leaseMs: number }): Steps<string[]> {
  if (params.ids.length === 0) return [];
  const rows = yield* q.all(
    tx
      .update(webhookInbox)
      .set({ claimToken: params.token, claimExpiresAt: new Date(params.now.getTime() + params.leaseMs), attempts: sql`${webhookInbox.attempts} + 1` })
      .where(
        and(
          inArray(webhookInbox.id, [...params.ids]),
          isNull(webhookInbox.processedAt),
          or(isNull(webhookInbox.claimExpiresAt), lt(webhookInbox.claimExpiresAt, params.now)),
        ),
      )
      .returning({ id: webhookInbox.id }),
  );
  return rows.map((r) => r.id);
}

/** Marks a claimed row processed (only under this claim: a lapsed one taken over changes nothing); true when it did. */
export function* markProcessed(tx: Tx, params: { id: string; token: string; now: Date }): Steps<boolean> {
  const done = yield* q.run(
    tx
      .update(webhookInbox)
      .set({ processedAt: params.now, error: null, claimToken: null, claimExpiresAt: null })
      .where(and(eq(webhookInbox.id, params.id), eq(webhookInbox.claimToken, params.token), isNull(webhookInbox.processedAt))),
  );
  return done.changes > 0;
}

/** A processing attempt that failed: its error, and not before `retryAt` again (its claim let go). */
export function* markFailed(tx: Tx, params: { id: string; token: string; error: string; retryAt: Date | null; now: Date }): Steps<void> {
  yield* q.run(
    tx
      .update(webhookInbox)
      .set({ error: params.error, nextAttemptAt: params.retryAt, claimToken: null, claimExpiresAt: null, ...(params.retryAt === null ? { processedAt: params.now } : {}) })
      .where(and(eq(webhookInbox.id, params.id), eq(webhookInbox.claimToken, params.token))),
  );
}

/** Sets the pause of every run on the target (null: lifted). */
export function* setTargetPause(tx: Tx, params: { targetId: string; until: Date | null; reason: string | null }): Steps<void> {
  yield* ensureEventState(tx, params.targetId);
  yield* q.run(tx.update(targetEvents).set({ pausedUntil: params.until, pauseReason: params.reason }).where(eq(targetEvents.targetId, params.targetId)));
}

/** The pause in force on the target at `now`, if any. */
export function* targetPause(tx: Tx, params: { targetId: string; now: Date }): Steps<{ until: Date; reason: string } | null> {
  const row = yield* q.get(tx.select({ until: targetEvents.pausedUntil, reason: targetEvents.pauseReason }).from(targetEvents).where(eq(targetEvents.targetId, params.targetId)));
  if (!row?.until || row.until.getTime() <= params.now.getTime()) return null;
  return { until: row.until, reason: row.reason ?? "The service's daily request quota is spent." };
}

/**
 * Forgets processed rows older than `before`: kept for the service's replay window (2 weeks) and a
 * day more, so a replayed id still finds its row and is not stored again.
 */
export function* pruneProcessed(tx: Tx, params: { before: Date }): Steps<number> {
  const done = yield* q.run(tx.delete(webhookInbox).where(and(isNotNull(webhookInbox.processedAt), lt(webhookInbox.processedAt, params.before))));
  return done.changes;
}
