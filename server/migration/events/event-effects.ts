/**
 * What the inbox's non-watch events change in Ferry's database (transaction steps): a finished sync
 * makes its company's next status poll due now, and the client's rate-limit events pause or free
 * every run on the target.
 */
import { and, eq, gt, isNotNull, isNull, lt, or } from "drizzle-orm";
import { q, type Steps, type Tx } from "@/db/database";
import { migrationItems, webhookInbox } from "@/db/schema";
import { realItems } from "@/server/items/item-scope";
import { setTargetPause } from "@/server/targets/events/inbox-repository";

/**
 * `read.completed` arrived before the pipeline's next poll of the company's sync: that poll is due
 * now (it then reads the finished statuses at once instead of waiting out its backoff). Only a
 * company waiting on its sync, not held by a worker; true when it was waiting.
 */
export function* syncSettled(tx: Tx, params: { engagementId: string; companyId: string; now: Date }): Steps<boolean> {
  const { changes } = yield* q.run(
    tx
      .update(migrationItems)
      .set({ nextAttemptAt: params.now })
      .where(
        realItems(
          params.engagementId,
          eq(migrationItems.companyId, params.companyId),
          eq(migrationItems.state, "sync_requested"),
          gt(migrationItems.nextAttemptAt, params.now),
          or(isNull(migrationItems.leaseExpiresAt), lt(migrationItems.leaseExpiresAt, params.now)),
        ),
      ),
  );
  return changes > 0;
}

/** Whether an event of `eventType` newer (by the service's time) than `generatedAt` was already processed for the target. */
function* processedSince(tx: Tx, params: { targetId: string; eventType: string; generatedAt: Date }): Steps<boolean> {
  const row = yield* q.get(
    tx
      .select({ id: webhookInbox.id })
      .from(webhookInbox)
      .where(
        and(
          eq(webhookInbox.targetId, params.targetId),
          eq(webhookInbox.eventType, params.eventType),
          isNotNull(webhookInbox.processedAt),
          gt(webhookInbox.generatedAt, params.generatedAt),
        ),
      )
      .limit(1),
  );
  return row !== undefined;
}

/**
 * `client.rateLimit.reached`: every run on the target waits until the announced reset — its
 * `expiryDate` measured from the event's `generatedDate` on the service's clock, laid on this
 * machine's from when it arrived. A reached older than a reset already processed changes nothing.
 */
export function* quotaReached(tx: Tx, params: { targetId: string; generatedAt: Date | null; receivedAt: Date; expiryDate: Date | null; dailyQuota: number | null }): Steps<Date | null> {
  if (params.generatedAt && (yield* processedSince(tx, { targetId: params.targetId, eventType: "client.rateLimit.reset", generatedAt: params.generatedAt }))) return null;
  const expiry = params.expiryDate ?? new Date(Math.floor(params.receivedAt.getTime() / 86_400_000 + 1) * 86_400_000);
  const waitMs = params.generatedAt ? expiry.getTime() - params.generatedAt.getTime() : expiry.getTime() - params.receivedAt.getTime();
  if (waitMs <= 0) return null;
  const until = new Date(params.receivedAt.getTime() + waitMs);
  const quota = params.dailyQuota ? ` of ${params.dailyQuota.toLocaleString("en-GB")} requests` : "";
  yield* setTargetPause(tx, { targetId: params.targetId, until, reason: `The service's daily quota${quota} is spent.` });
  return until;
}

/** `client.rateLimit.reset`: the pause is lifted (unless a newer `reached` was processed: an old reset arriving late); the runs carry on at their next look (about a second). */
export function* quotaReset(tx: Tx, params: { targetId: string; generatedAt: Date | null }): Steps<void> {
  if (params.generatedAt && (yield* processedSince(tx, { targetId: params.targetId, eventType: "client.rateLimit.reached", generatedAt: params.generatedAt }))) return;
  yield* setTargetPause(tx, { targetId: params.targetId, until: null, reason: null });
}
