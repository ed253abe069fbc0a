/**
 * The migration items as the engine reads and writes them (the only module of the engine that
 * touches drizzle for items): loading an item for the pipeline, claiming items with a lease,
 * renewing and releasing leases, and storing a call's result with the item's new fields in one
 * synchronous transaction, fenced by the lease (a worker that lost its lease writes nothing).
 *
 * A claim is one atomic `UPDATE … WHERE (lease free or expired) … RETURNING`: SQLite runs one
 * writer at a time, so two workers can never both see an item free and take it.
 */
import { and, asc, eq, inArray, isNull, lt, notInArray, or, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { databaseOf, runSync } from "@/db/database";
import { migrationItems, serviceCalls } from "@/db/schema";
import { getManagedPlatform, type ManagedPlatform } from "@/server/platforms";
import type { DbOrTx } from "@/server/security/audit";
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
  };
}

/** One item row, or undefined. */
export function findItem(db: DbOrTx, itemId: string): ItemRow | undefined {
  return db.select().from(migrationItems).where(eq(migrationItems.id, itemId)).get();
}

/** The managed platform of an engagement's items (the engagement's platform). */
export function platformOf(platformKey: string): ManagedPlatform {
  const platform = getManagedPlatform(platformKey);
  if (!platform) throw new Error(`${platformKey} is not a managed platform`);
  return platform;
}

const leaseFree = (now: Date) => or(isNull(migrationItems.leaseOwner), isNull(migrationItems.leaseExpiresAt), lt(migrationItems.leaseExpiresAt, now));

/**
 * Takes the lease on one item of a run (free, expired, or already this worker's). Returns the
 * row, or undefined when another worker holds it or it belongs to another run.
 */
export function claimItem(db: Db, params: { itemId: string; runId: string; owner: string; leaseMs: number; now: Date }): ItemRow | undefined {
  const { itemId, runId, owner, now } = params;
  return db
    .update(migrationItems)
    .set({ leaseOwner: owner, leaseExpiresAt: new Date(now.getTime() + params.leaseMs), startedAt: sql`coalesce(${migrationItems.startedAt}, ${now.getTime()})` })
    .where(and(eq(migrationItems.id, itemId), eq(migrationItems.runId, runId), or(leaseFree(now), eq(migrationItems.leaseOwner, owner))))
    .returning()
    .get();
}

/**
 * Takes the leases on up to `limit` items of a run that have work now (not final, not waiting,
 * lease free or expired), in file order — one statement, so two workers never take the same item.
 * What a bulk run's workers call to share a run's items.
 */
export function claimItems(db: Db, params: { runId: string; owner: string; limit: number; leaseMs: number; now: Date }): ItemRow[] {
  const { runId, owner, now } = params;
  const candidates = db
    .select({ id: migrationItems.id })
    .from(migrationItems)
    .where(
      and(
        eq(migrationItems.runId, runId),
        notInArray(migrationItems.state, [...FINAL_ITEM_STATES]),
        or(isNull(migrationItems.nextAttemptAt), lt(migrationItems.nextAttemptAt, now)),
        leaseFree(now),
      ),
    )
    .orderBy(asc(migrationItems.position))
    .limit(params.limit);
  return db
    .update(migrationItems)
    .set({ leaseOwner: owner, leaseExpiresAt: new Date(now.getTime() + params.leaseMs), startedAt: sql`coalesce(${migrationItems.startedAt}, ${now.getTime()})` })
    // The same conditions again on the row itself: the statement is atomic either way, and this
    // keeps it correct should the subquery ever be evaluated apart from the update.
    .where(and(inArray(migrationItems.id, candidates), leaseFree(now)))
    .returning()
    .all();
}

/** Extends every item lease this worker holds; returns how many it still holds. */
export function renewItemLeases(db: Db, params: { owner: string; leaseMs: number; now: Date }): number {
  return db
    .update(migrationItems)
    .set({ leaseExpiresAt: new Date(params.now.getTime() + params.leaseMs) })
    .where(eq(migrationItems.leaseOwner, params.owner))
    .run().changes;
}

/** Gives up this worker's leases on a run's items (or on all it holds), so another worker may take them at once. */
export function releaseItemLeases(db: Db, params: { owner: string; runId?: string }): void {
  db.update(migrationItems)
    .set({ leaseOwner: null, leaseExpiresAt: null })
    .where(and(eq(migrationItems.leaseOwner, params.owner), params.runId ? eq(migrationItems.runId, params.runId) : undefined))
    .run();
}

/** Records a create as sent, before it is (fenced by the lease). */
export function markInFlight(db: Db, params: { itemId: string; owner: string; call: InFlightCall; now: Date }): void {
  const changed = db
    .update(migrationItems)
    .set({ inFlightCall: params.call, updatedAt: params.now })
    .where(and(eq(migrationItems.id, params.itemId), eq(migrationItems.leaseOwner, params.owner)))
    .run().changes;
  if (changed === 0) throw new LeaseLostError(`item ${params.itemId}`);
}

const FINAL: readonly MigrationItemState[] = FINAL_ITEM_STATES;

/**
 * Stores one call and the item's new fields in one transaction, only while this worker holds the
 * item's lease (else LeaseLostError, and nothing is written). Synchronous (better-sqlite3).
 */
export function storeCallResult(
  db: Db,
  params: { itemId: string; runId: string; owner: string; record: CallRecord; transition: Transition; now: Date; linkUrl?: string | null },
): void {
  const { transition: t, now } = params;
  const purged = db.transaction((tx) => {
    const changed = tx
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
        // Verified again after its end customer reconnected it (or fresh tokens came for it).
        ...(t.state === "verified" ? { reconnectedAt: sql`case when ${migrationItems.reconnectSince} is not null then ${now.getTime()} else ${migrationItems.reconnectedAt} end` } : {}),
        updatedAt: now,
      })
      .where(and(eq(migrationItems.id, params.itemId), eq(migrationItems.leaseOwner, params.owner)))
      .run().changes;
    if (changed === 0) throw new LeaseLostError(`item ${params.itemId}`);
    tx.insert(serviceCalls)
      .values({ runId: params.runId, itemId: params.itemId, ...params.record })
      .run();
    // A retry with fresh tokens from a supplementary file has used them once it ends.
    return FINAL.includes(t.state) && runSync(purgeUsedFreshTokens(tx, { itemId: params.itemId, at: now }));
  });
  if (purged) checkpointAfterFreshTokenPurge(databaseOf(db));
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
    leaseExpiresAt: null,
    updatedAt: now,
  };
}

/** Makes one item ready to be run again by a new run (see `freshAttempt`). Inside the caller's transaction. */
export function attachItemToRun(tx: DbOrTx, params: { itemId: string; runId: string; now: Date }): void {
  const changed = tx.update(migrationItems).set(freshAttempt(params.runId, params.now)).where(eq(migrationItems.id, params.itemId)).run().changes;
  if (!changed) throw new Error(`No migration item ${params.itemId}`);
}

/** Why an item cannot be tested: the states that already say what is wrong with it. */
const UNTESTABLE: readonly MigrationItemState[] = ["reauth_required", "failed", "set_aside"];

/** One of the customer's real items of an engagement, or undefined. */
export function findRealItem(tx: DbOrTx, engagementId: string, itemId: string): ItemRow | undefined {
  return tx.select().from(migrationItems).where(realItems(engagementId, eq(migrationItems.id, itemId))).get();
}

/**
 * The company Ferry picks for the single-company test: the smallest by `records` (unknown sizes
 * last, then file order) among those not already known to need reauthorization, failed or set aside.
 */
export function pickSmallestItem(tx: DbOrTx, engagementId: string): ItemRow | undefined {
  return tx
    .select()
    .from(migrationItems)
    .where(realItems(engagementId, notInArray(migrationItems.state, [...UNTESTABLE])))
    .orderBy(sql`${migrationItems.recordsHint} is null`, asc(migrationItems.recordsHint), asc(migrationItems.position))
    .limit(1)
    .get();
}

/** How many real items an engagement has. */
export function countRealItems(tx: DbOrTx, engagementId: string): number {
  return tx.select({ n: sql<number>`count(*)` }).from(migrationItems).where(realItems(engagementId)).get()?.n ?? 0;
}

/** Real items whose name or external reference contains `search` (every real item without one). */
function matchingRealItems(engagementId: string, search: string | undefined) {
  const term = search?.trim();
  const pattern = term ? `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  return realItems(engagementId, pattern ? or(sql`${migrationItems.name} like ${pattern} escape '\\'`, sql`${migrationItems.externalRef} like ${pattern} escape '\\'`) : undefined);
}

/** Real items whose name or external reference contains `search`, smallest first (the test's company picker). */
export function searchRealItems(tx: DbOrTx, params: { engagementId: string; search?: string; limit: number }): ItemRow[] {
  return tx
    .select()
    .from(migrationItems)
    .where(matchingRealItems(params.engagementId, params.search))
    .orderBy(sql`${migrationItems.recordsHint} is null`, asc(migrationItems.recordsHint), asc(migrationItems.position))
    .limit(params.limit)
    .all();
}

/** How many real items `searchRealItems` would find without its limit. */
export function countSearchedRealItems(tx: DbOrTx, params: { engagementId: string; search?: string }): number {
  return tx.select({ n: sql<number>`count(*)` }).from(migrationItems).where(matchingRealItems(params.engagementId, params.search)).get()?.n ?? 0;
}

/** Gives up this worker's lease on one item (it waits a while, or it is done): any worker may take it next. */
export function releaseItemLease(db: Db, params: { itemId: string; owner: string }): void {
  db.update(migrationItems)
    .set({ leaseOwner: null, leaseExpiresAt: null })
    .where(and(eq(migrationItems.id, params.itemId), eq(migrationItems.leaseOwner, params.owner)))
    .run();
}

/**
 * Fails one item on a fault of Ferry's own (not a service answer: e.g. its credentials were purged
 * meanwhile), fenced by the lease; the others of the run go on.
 */
export function failItemAlone(db: Db, params: { itemId: string; owner: string; error: StoredError; now: Date }): void {
  const purged = db.transaction((tx) => {
    const failed = tx
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
        leaseExpiresAt: null,
      })
      .where(and(eq(migrationItems.id, params.itemId), eq(migrationItems.leaseOwner, params.owner)))
      .run().changes;
    return failed > 0 && runSync(purgeUsedFreshTokens(tx, { itemId: params.itemId, at: params.now }));
  });
  if (purged) checkpointAfterFreshTokenPurge(databaseOf(db));
}
