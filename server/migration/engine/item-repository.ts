/**
 * The migration items as the engine reads and writes them (the only module of the engine that
 * touches drizzle for items): loading an item for the pipeline, claiming items with a lease,
 * renewing and releasing leases, and storing a call's result with the item's new fields in one
 * transaction, fenced by the lease (a worker that lost its lease writes nothing).
 *
 * Every claim sets a fresh fencing token on the items it takes (`lease_token`), and every write and
 * renewal names it with the owner: a worker that lost an item's lease and claimed it again later
 * can never write with the claim it lost (its token is no longer the item's).
 *
 * A claim is a conditional `UPDATE … WHERE (lease free or expired) … RETURNING` in the caller's
 * transaction: SQLite runs one writer at a time, so two workers can never both see an item free
 * and take it; on PostgreSQL the items are first picked with FOR UPDATE SKIP LOCKED (claimers at
 * once take different items, none waits for another) and the update checks the lease again on the
 * rows it locked.
 *
 * Reads and single statements are transaction steps (db/database.ts); storing a call's result and
 * failing an item alone are whole transactions, on the `Database`.
 */
import { and, asc, eq, inArray, isNotNull, isNull, lt, notInArray, or, sql } from "drizzle-orm";
import { forUpdate, q, type Database, type Steps, type Tx } from "@/db/database";
import { migrationItems, serviceCalls } from "@/db/schema";
import { getManagedPlatform, type ManagedPlatform } from "@/server/platforms";
import { realItems } from "../../items/item-scope";
import { checkpointAfterFreshTokenPurge, purgeUsedFreshTokens } from "../../items/fresh-tokens";
import type { PipelineItem, ItemChecks, StoredError, Transition } from "./pipeline";
import { FINAL_ITEM_STATES, type InFlightCall, type MigrationItemState } from "@/core/migration/states";

export type ItemRow = typeof migrationItems.$inferSelect;

/** Thrown when a worker's lease on an item or run was taken over (it then stores nothing). */
export class LeaseLostError extends Error {
  constructor(what: string) {
    super(`The lease on ${what} is no longer this worker's; another worker carries on with it.`);
    this.name = "LeaseLostError";
  }
}

/** One row of service_calls: a call a run made, how it ended, what it returned (never a secret). */
export type CallRecord = {
  at: Date;
  operation: string;
  method: string;
  path: string;
  status: number | null;
  ok: boolean;
  errorKind: string | null;
  errorText: string | null;
  correlationId: string | null;
  durationMs: number;
  attempts: number;
  detail: Record<string, unknown> | null;
};

/** An item row as the pipeline reads it. */
export function toPipelineItem(row: ItemRow, platform: Pick<ManagedPlatform, "key" | "name" | "category">): PipelineItem {
  return {
    id: row.id,
    platform,
    state: row.state,
    companyId: row.companyId,
    connectionId: row.connectionId,
    inFlightCall: row.inFlightCall,
    checks: (row.checks as ItemChecks | null) ?? null,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    lastError: (row.lastError as StoredError | null) ?? null,
    records: row.recordsHint,
    oldCounts: row.oldCounts ?? null,
  };
}

/** One item row, or undefined. */
export function* findItem(tx: Tx, itemId: string): Steps<ItemRow | undefined> {
  return yield* q.get(tx.select().from(migrationItems).where(eq(migrationItems.id, itemId)));
}

/** The managed platform of an engagement's items (the engagement's platform). */
export function platformOf(platformKey: string): ManagedPlatform {
  const platform = getManagedPlatform(platformKey);
  if (!platform) throw new Error(`${platformKey} is not a managed platform`);
  return platform;
}

const leaseFree = (now: Date) => or(isNull(migrationItems.leaseOwner), isNull(migrationItems.leaseExpiresAt), lt(migrationItems.leaseExpiresAt, now));

/** A lease that ran out without being let go: the worker that held it died or stalled mid-company. */
const orphaned = (now: Date) => and(isNotNull(migrationItems.leaseOwner), lt(migrationItems.leaseExpiresAt, now));

/** The fence of every write and renewal on an item: this worker's lease, from this very claim. */
const heldBy = (owner: string, token: string) => and(eq(migrationItems.leaseOwner, owner), eq(migrationItems.leaseToken, token));

/**
 * A fresh fencing token: one per claim. Made inside the claim's transaction body, which the
 * no-randomness rule otherwise forbids: a retried body makes a new one, and only the attempt that
 * commits returns its row, so no token escapes that the database does not hold.
 */
export const newLeaseToken = (): string => crypto.randomUUID();

/** When an item was first taken: kept once set. */
const startedOnce = (now: Date) => sql`coalesce(${migrationItems.startedAt}, ${sql.param(now, migrationItems.startedAt)})`;

/**
 * Takes the lease on one item of a run (free, expired, or already this worker's), with a fresh
 * fencing token (`leaseToken` of the row returned). Returns the row, or undefined when another worker holds it or it belongs to another run.
 */
export function* claimItem(tx: Tx, params: { itemId: string; runId: string; owner: string; leaseMs: number; now: Date }): Steps<ItemRow | undefined> {
  const { itemId, runId, owner, now } = params;
  return yield* q.get(
    tx
      .update(migrationItems)
      .set({ leaseOwner: owner, leaseToken: newLeaseToken(), leaseExpiresAt: new Date(now.getTime() + params.leaseMs), startedAt: startedOnce(now) })
      .where(and(eq(migrationItems.id, itemId), eq(migrationItems.runId, runId), or(leaseFree(now), eq(migrationItems.leaseOwner, owner))))
      .returning(),
  );
}

/**
 * Takes the leases on up to `limit` items of a run that have work now (not final, not waiting,
 * lease free or expired), so two workers never take the same item: first those a dead worker left
 * (their lease ran out without being let go), then in file order; with `orphanedOnly`, only those.
 * What a bulk run's workers call to share a run's items; a step of the caller's (read-committed)
 * transaction.
 *
 * Two statements: the items are picked (FOR UPDATE SKIP LOCKED on PostgreSQL, so claimers at once
 * take different items and none waits for another), then the picked ones updated, each checked
 * again as it is now. Not one `UPDATE … WHERE id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)`:
 * PostgreSQL may run such a subquery again for every row it updates, and each run skips the rows
 * the statement already took and picks the next ones, so one claim took every free item.
 */
export function* claimItems(tx: Tx, params: { runId: string; owner: string; limit: number; leaseMs: number; now: Date; orphanedOnly?: boolean }): Steps<ItemRow[]> {
  const { runId, owner, now } = params;
  const picked = yield* q.all(
    forUpdate(
      tx
        .select({ id: migrationItems.id })
        .from(migrationItems)
        .where(
          and(
            eq(migrationItems.runId, runId),
            notInArray(migrationItems.state, [...FINAL_ITEM_STATES]),
            or(isNull(migrationItems.nextAttemptAt), lt(migrationItems.nextAttemptAt, now)),
            leaseFree(now),
            params.orphanedOnly ? orphaned(now) : undefined,
          ),
        )
        // A dead worker's companies first (their lease ran out, never let go), then file order.
        .orderBy(sql`${migrationItems.leaseExpiresAt} is null`, asc(migrationItems.position))
        .limit(params.limit),
      { skipLocked: true },
    ),
  );
  if (!picked.length) return [];
  return yield* q.all(
    tx
      .update(migrationItems)
      // One fresh fencing token for this claim (an item's claim is its id and this token).
      .set({ leaseOwner: owner, leaseToken: newLeaseToken(), leaseExpiresAt: new Date(now.getTime() + params.leaseMs), startedAt: startedOnce(now) })
      // The same conditions again on the row itself: on SQLite outside a transaction, or should a
      // row have changed between the two statements, a lease another worker holds is never taken.
      .where(and(inArray(migrationItems.id, picked.map((p) => p.id)), eq(migrationItems.runId, runId), leaseFree(now)))
      .returning(),
  );
}

/**
 * Extends the item leases this worker holds from the claims named by `tokens` (of one run, or of
 * all); returns how many it still holds. Only rows whose lease owner is this worker and whose token
 * is one of these claims' match, so on PostgreSQL it never waits on the rows another worker has
 * locked, nor extends a lease another worker took over, nor one from a claim this worker lost.
 */
export function* renewItemLeases(tx: Tx, params: { owner: string; tokens: readonly string[]; runId?: string; leaseMs: number; now: Date }): Steps<number> {
  if (!params.tokens.length) return 0;
  const { changes } = yield* q.run(
    tx
      .update(migrationItems)
      .set({ leaseExpiresAt: new Date(params.now.getTime() + params.leaseMs) })
      .where(and(eq(migrationItems.leaseOwner, params.owner), inArray(migrationItems.leaseToken, [...new Set(params.tokens)]), params.runId ? eq(migrationItems.runId, params.runId) : undefined)),
  );
  return changes;
}

/** Gives up this worker's leases on a run's items (or on all it holds), so another worker may take them at once. */
export function* releaseItemLeases(tx: Tx, params: { owner: string; runId?: string }): Steps<void> {
  yield* q.run(
    tx
      .update(migrationItems)
      .set({ leaseOwner: null, leaseToken: null, leaseExpiresAt: null })
      .where(and(eq(migrationItems.leaseOwner, params.owner), params.runId ? eq(migrationItems.runId, params.runId) : undefined)),
  );
}

/** Records a create as sent, before it is (fenced by the lease and its claim's token). */
export function* markInFlight(tx: Tx, params: { itemId: string; owner: string; token: string; call: InFlightCall; now: Date }): Steps<void> {
  const { changes } = yield* q.run(
    tx
      .update(migrationItems)
      .set({ inFlightCall: params.call, updatedAt: params.now })
      .where(and(eq(migrationItems.id, params.itemId), heldBy(params.owner, params.token))),
  );
  if (changes === 0) throw new LeaseLostError(`item ${params.itemId}`);
}

const FINAL: readonly MigrationItemState[] = FINAL_ITEM_STATES;

/**
 * Stores one call and the item's new fields in one transaction, only while this worker holds the
 * item's lease from the claim `token` names (else LeaseLostError, and nothing is written). Read committed: the fenced update
 * is one statement that locks the item's row, so a takeover between check and write cannot be.
 */
export async function storeCallResult(
  database: Database,
  params: { itemId: string; runId: string; owner: string; token: string; record: CallRecord; transition: Transition; now: Date; linkUrl?: string | null; platformTenant?: Record<string, string> | null },
): Promise<void> {
  const { transition: t, now } = params;
  const purged = await database.transaction(function* (tx) {
    const { changes } = yield* q.run(
      tx
      .update(migrationItems)
      .set({
        state: t.state,
        companyId: t.companyId,
        connectionId: t.connectionId,
        inFlightCall: t.inFlightCall,
        checks: t.checks as Record<string, unknown> | null,
        attempts: t.attempts,
        nextAttemptAt: t.nextAttemptAt,
        lastError: t.lastError as Record<string, unknown> | null,
        lastErrorAt: t.lastError ? new Date(t.lastError.at) : null,
        outcomeReason: t.outcomeReason,
        finishedAt: FINAL.includes(t.state) ? now : null,
        ...(params.linkUrl ? { linkUrl: params.linkUrl } : {}),
        ...(params.platformTenant ? { platformTenant: params.platformTenant } : {}),
        // Verified again after its end customer reconnected it (or fresh tokens came for it).
        ...(t.state === "verified"
          ? { reconnectedAt: sql`case when ${migrationItems.reconnectSince} is not null then ${sql.param(now, migrationItems.reconnectedAt)} else ${migrationItems.reconnectedAt} end` }
          : {}),
        updatedAt: now,
      })
      .where(and(eq(migrationItems.id, params.itemId), heldBy(params.owner, params.token))),
    );
    if (changes === 0) throw new LeaseLostError(`item ${params.itemId}`);
    yield* q.run(tx.insert(serviceCalls).values({ runId: params.runId, itemId: params.itemId, ...params.record }));
    // A retry with fresh tokens from a supplementary file has used them once it ends.
    return FINAL.includes(t.state) && (yield* purgeUsedFreshTokens(tx, { itemId: params.itemId, at: now }));
  }, { isolation: "read committed" });
  if (purged) checkpointAfterFreshTokenPurge(database);
}

/**
 * What an item starts a new run from: it keeps its company and connection (the pipeline looks them
 * up or re-authorizes, never creating twice), so its state goes back to the last one they prove;
 * the last run's checks, counters, error, outcome and lease are forgotten. The one definition of a
 * fresh attempt, for the single-company test and the bulk run alike.
 */
export function freshAttempt(runId: string, now: Date) {
  return {
    runId,
    state: sql<MigrationItemState>`case when ${migrationItems.connectionId} is not null then 'connection_created' when ${migrationItems.companyId} is not null then 'company_created' else 'pending' end`,
    checks: null,
    attempts: 0,
    nextAttemptAt: null,
    lastError: null,
    lastErrorAt: null,
    outcomeReason: null,
    finishedAt: null,
    leaseOwner: null,
    leaseToken: null,
    leaseExpiresAt: null,
    updatedAt: now,
  };
}

/** Makes one item ready to be run again by a new run (see `freshAttempt`). Inside the caller's transaction. */
export function* attachItemToRun(tx: Tx, params: { itemId: string; runId: string; now: Date }): Steps<void> {
  const { changes } = yield* q.run(tx.update(migrationItems).set(freshAttempt(params.runId, params.now)).where(eq(migrationItems.id, params.itemId)));
  if (!changes) throw new Error(`No migration item ${params.itemId}`);
}

/** Why an item cannot be tested: the states that already say what is wrong with it. */
const UNTESTABLE: readonly MigrationItemState[] = ["reauth_required", "failed", "set_aside"];

/** One of the customer's real items of an engagement, or undefined. */
export function* findRealItem(tx: Tx, engagementId: string, itemId: string): Steps<ItemRow | undefined> {
  return yield* q.get(tx.select().from(migrationItems).where(realItems(engagementId, eq(migrationItems.id, itemId))));
}

/**
 * The company Ferry picks for the single-company test: the smallest by `records` (unknown sizes
 * last, then file order) among those not already known to need reauthorization, failed or set aside.
 */
export function* pickSmallestItem(tx: Tx, engagementId: string): Steps<ItemRow | undefined> {
  return yield* q.get(
    tx
      .select()
      .from(migrationItems)
      .where(realItems(engagementId, notInArray(migrationItems.state, [...UNTESTABLE])))
      .orderBy(sql`${migrationItems.recordsHint} is null`, asc(migrationItems.recordsHint), asc(migrationItems.position))
      .limit(1),
  );
}

/** How many real items an engagement has. */
export function* countRealItems(tx: Tx, engagementId: string): Steps<number> {
  return (yield* q.get(tx.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(migrationItems).where(realItems(engagementId))))?.n ?? 0;
}

/** Real items whose name or external reference contains `search` (every real item without one). */
function matchingRealItems(engagementId: string, search: string | undefined) {
  const term = search?.trim();
  const pattern = term ? `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  // lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
  const like = (column: typeof migrationItems.name | typeof migrationItems.externalRef) => sql`lower(${column}) like lower(${pattern}) escape '\\'`;
  return realItems(engagementId, pattern ? or(like(migrationItems.name), like(migrationItems.externalRef)) : undefined);
}

/** Real items whose name or external reference contains `search`, smallest first (the test's company picker). */
export function* searchRealItems(tx: Tx, params: { engagementId: string; search?: string; limit: number }): Steps<ItemRow[]> {
  return yield* q.all(
    tx
      .select()
      .from(migrationItems)
      .where(matchingRealItems(params.engagementId, params.search))
      .orderBy(sql`${migrationItems.recordsHint} is null`, asc(migrationItems.recordsHint), asc(migrationItems.position))
      .limit(params.limit),
  );
}

/** How many real items `searchRealItems` would find without its limit. */
export function* countSearchedRealItems(tx: Tx, params: { engagementId: string; search?: string }): Steps<number> {
  return (yield* q.get(tx.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(migrationItems).where(matchingRealItems(params.engagementId, params.search))))?.n ?? 0;
}

/** Gives up this worker's lease on one item from the claim `token` names (it waits a while, or it is done): any worker may take it next. */
export function* releaseItemLease(tx: Tx, params: { itemId: string; owner: string; token: string }): Steps<void> {
  yield* q.run(
    tx
      .update(migrationItems)
      .set({ leaseOwner: null, leaseToken: null, leaseExpiresAt: null })
      .where(and(eq(migrationItems.id, params.itemId), heldBy(params.owner, params.token))),
  );
}

/**
 * Fails one item on a fault of Ferry's own (not a service answer: e.g. its credentials were purged
 * meanwhile), fenced by the lease; the others of the run go on.
 */
export async function failItemAlone(database: Database, params: { itemId: string; owner: string; token: string; error: StoredError; now: Date }): Promise<void> {
  const purged = await database.transaction(function* (tx) {
    const { changes: failed } = yield* q.run(
      tx
      .update(migrationItems)
      .set({
        state: "failed",
        lastError: params.error as Record<string, unknown>,
        lastErrorAt: params.now,
        outcomeReason: params.error.error,
        nextAttemptAt: null,
        finishedAt: params.now,
        updatedAt: params.now,
        leaseOwner: null,
        leaseToken: null,
        leaseExpiresAt: null,
      })
      .where(and(eq(migrationItems.id, params.itemId), heldBy(params.owner, params.token))),
    );
    return failed > 0 && (yield* purgeUsedFreshTokens(tx, { itemId: params.itemId, at: params.now }));
  }, { isolation: "read committed" });
  if (purged) checkpointAfterFreshTokenPurge(database);
}
