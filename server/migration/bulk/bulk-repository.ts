/**
 * The bulk run as stored (the only module of the bulk run that touches drizzle): the engagement's
 * latest bulk run, attaching companies to it in one statement each (a run may cover 100,000),
 * the counts per state, the pace counters the workers add to, and the run's status changes.
 */
import { and, count, desc, eq, inArray, isNull, notInArray, or, sql } from "drizzle-orm";
import { migrationItems, migrationRuns } from "@/db/schema";
import type { Db } from "@/db/client";
import { q, runSync, type Steps } from "@/db/database";
import type { DbOrTx } from "@/server/security/audit";
import { realItems } from "../../items/item-scope";
import { purgeUsedFreshTokens } from "../../items/fresh-tokens";
import { freshAttempt } from "../engine/item-repository";
import type { RunRow } from "../engine/run-repository";
import { FINAL_ITEM_STATES, MIGRATION_ITEM_STATES, type MigrationItemState, type RunStatus } from "@/core/migration/states";

/** The engagement's latest bulk run, or undefined before the first. */
export function latestBulkRun(tx: DbOrTx, engagementId: string): RunRow | undefined {
  return tx
    .select()
    .from(migrationRuns)
    .where(and(eq(migrationRuns.engagementId, engagementId), eq(migrationRuns.kind, "bulk")))
    .orderBy(desc(migrationRuns.requestedAt))
    .limit(1)
    .get();
}

/** Zero for every state, then the counts found. */
function countsOf(rows: readonly { state: MigrationItemState; n: number }[]): Record<MigrationItemState, number> {
  const counts = Object.fromEntries(MIGRATION_ITEM_STATES.map((s) => [s, 0])) as Record<MigrationItemState, number>;
  for (const r of rows) counts[r.state] = r.n;
  return counts;
}

/** The engagement's real companies per state. */
export function realCountsByState(tx: DbOrTx, engagementId: string): Record<MigrationItemState, number> {
  return countsOf(tx.select({ state: migrationItems.state, n: count() }).from(migrationItems).where(realItems(engagementId)).groupBy(migrationItems.state).all());
}

/** A run's companies per state. */
export function runCountsByState(tx: DbOrTx, runId: string): Record<MigrationItemState, number> {
  return countsOf(tx.select({ state: migrationItems.state, n: count() }).from(migrationItems).where(eq(migrationItems.runId, runId)).groupBy(migrationItems.state).all());
}

/** A run's companies not yet in a final state. */
export function countUnfinished(tx: DbOrTx, runId: string): number {
  return tx.select({ n: count() }).from(migrationItems).where(and(eq(migrationItems.runId, runId), notInArray(migrationItems.state, [...FINAL_ITEM_STATES]))).get()?.n ?? 0;
}

/**
 * Attaches real companies to a run in one statement, ready to be driven again: each keeps its
 * company and connection (the pipeline re-authorizes, never creating twice) and forgets the
 * previous attempt's checks, counters and error. `states`: which companies (by their state now).
 */
export function attachToRun(tx: DbOrTx, params: { engagementId: string; runId: string; states: readonly MigrationItemState[]; itemId?: string; now: Date }): number {
  return tx
    .update(migrationItems)
    .set(freshAttempt(params.runId, params.now))
    .where(realItems(params.engagementId, inArray(migrationItems.state, [...params.states]), params.itemId ? eq(migrationItems.id, params.itemId) : undefined))
    .run().changes;
}

/** Puts a run (the engagement's latest bulk run) back to work on companies attached to it: reopened when it had ended. */
export function reopenRun(tx: DbOrTx, run: RunRow, now: Date): void {
  if (run.status === "completed" || run.status === "cancelled" || run.status === "failed") {
    setBulkStatus(tx, { runId: run.id, from: [run.status], to: "queued", reason: null, now });
  }
}

/**
 * Carries companies on after the bulk run, in the engagement's latest bulk run (reopened when it
 * had ended): a company its end customer reconnected goes on at `authorized` (sync, then verify),
 * one with fresh tokens from a supplementary file at `connection_created` (authorize again). Each
 * forgets its previous attempt; returns the run, or null when the engagement has no bulk run.
 */
export function requeueIntoBulkRun(
  tx: DbOrTx,
  params: { engagementId: string; itemIds: readonly string[]; state: Extract<MigrationItemState, "authorized" | "connection_created">; now: Date },
): RunRow | null {
  const run = latestBulkRun(tx, params.engagementId);
  if (!run || !params.itemIds.length) return run ?? null;
  tx.update(migrationItems)
    .set({ ...freshAttempt(run.id, params.now), state: params.state })
    .where(realItems(params.engagementId, inArray(migrationItems.id, [...params.itemIds])))
    .run();
  reopenRun(tx, run, params.now);
  return run;
}

/**
 * Sets one company aside with its reason; a worker driving it loses its lease and lets it go. Fresh
 * tokens it was being retried with are purged (a final state: see items/fresh-tokens.ts).
 */
export function setItemAside(tx: DbOrTx, params: { itemId: string; reason: string; now: Date }): void {
  tx.update(migrationItems)
    .set({ state: "set_aside", outcomeReason: params.reason, nextAttemptAt: null, leaseOwner: null, leaseExpiresAt: null, finishedAt: params.now, updatedAt: params.now })
    .where(eq(migrationItems.id, params.itemId))
    .run();
  runSync(purgeUsedFreshTokens(tx, { itemId: params.itemId, at: params.now }));
}

/** Changes a bulk run's status (from one of `from`), with its reason; false when it was in none of them. */
export function setBulkStatus(
  tx: DbOrTx,
  params: { runId: string; from: readonly RunStatus[]; to: RunStatus; reason: string | null; now: Date; finished?: boolean },
): boolean {
  return (
    tx
      .update(migrationRuns)
      .set({
        status: params.to,
        statusReason: params.reason,
        updatedAt: params.now,
        finishedAt: params.finished ? params.now : null,
        // Anything but running lets the worker's lease go at its next renewal.
        ...(params.to === "running" ? {} : { leaseOwner: null, leaseExpiresAt: null }),
        outcome: sql`json_remove(coalesce(${migrationRuns.outcome}, '{}'), '$.hold')`,
      })
      .where(and(eq(migrationRuns.id, params.runId), inArray(migrationRuns.status, [...params.from])))
      .run().changes > 0
  );
}

/** What a worker adds to a run's pace counters since it last did (any worker of the run may). */
export type PaceDelta = { requests: number; rateLimited: number };

/** What the run's outcome holds for the screens (beside what a test run's holds). */
export type BulkOutcome = {
  requests?: number;
  rateLimited?: number;
  limit?: { requests: number; perSeconds: number };
  hold?: { kind: string; text: string; until: number | null };
  /** [epoch ms, requests so far, companies finished], oldest first, at most SAMPLES. */
  samples?: [number, number, number][];
  /** The company limit or key problem that stopped the run, with the service's answer. */
  stop?: { status: number | null; error: string; correlationId: string | null };
};

const SAMPLES = 30;

/**
 * Adds a worker's requests to the run's counters (one atomic statement: any worker of the run may)
 * and, from the run's coordinator, a sample for the screens' pace and ETA and the hold it sees.
 */
export function addPace(
  db: Db,
  params: {
    runId: string;
    delta: PaceDelta;
    coordinator: { finished: number; limit: { requests: number; perSeconds: number } | null; hold: BulkOutcome["hold"] | null } | null;
    now: Date;
  },
): void {
  const o = migrationRuns.outcome;
  db.transaction((tx) => {
    tx.update(migrationRuns)
      .set({
        outcome: sql`json_set(coalesce(${o}, '{}'),
          '$.requests', coalesce(json_extract(${o}, '$.requests'), 0) + ${params.delta.requests},
          '$.rateLimited', coalesce(json_extract(${o}, '$.rateLimited'), 0) + ${params.delta.rateLimited})`,
      })
      .where(eq(migrationRuns.id, params.runId))
      .run();
    const c = params.coordinator;
    if (!c) return;
    const row = tx.select({ outcome: migrationRuns.outcome }).from(migrationRuns).where(eq(migrationRuns.id, params.runId)).get();
    const outcome = { ...((row?.outcome ?? {}) as BulkOutcome) };
    outcome.samples = [...(outcome.samples ?? []), [params.now.getTime(), outcome.requests ?? 0, c.finished] as [number, number, number]].slice(-SAMPLES);
    if (c.limit) outcome.limit = c.limit;
    if (c.hold) outcome.hold = c.hold;
    else delete outcome.hold;
    tx.update(migrationRuns).set({ outcome: outcome as Record<string, unknown>, updatedAt: params.now }).where(eq(migrationRuns.id, params.runId)).run();
  });
}

/** A bulk run another worker is carrying out, whose companies this worker may help with. */
export function runToHelp(tx: DbOrTx, params: { owner: string; now: Date }): RunRow | undefined {
  return tx
    .select()
    .from(migrationRuns)
    .where(
      and(
        eq(migrationRuns.kind, "bulk"),
        eq(migrationRuns.status, "running"),
        or(isNull(migrationRuns.leaseOwner), sql`${migrationRuns.leaseOwner} <> ${params.owner}`),
        sql`${migrationRuns.leaseExpiresAt} > ${params.now.getTime()}`,
      ),
    )
    .limit(1)
    .get();
}

/** The company of the engagement's latest passed single-company test (it counts as migrated); a transaction step. */
export function* passedPilotItem(tx: DbOrTx, engagementId: string): Steps<{ id: string; name: string; state: MigrationItemState } | undefined> {
  return yield* q.get(
    tx
      .select({ id: migrationItems.id, name: migrationItems.name, state: migrationItems.state })
      .from(migrationRuns)
      .innerJoin(migrationItems, eq(migrationItems.id, migrationRuns.itemId))
      .where(and(eq(migrationRuns.engagementId, engagementId), eq(migrationRuns.kind, "pilot"), eq(migrationRuns.status, "passed")))
      .orderBy(desc(migrationRuns.requestedAt))
      .limit(1),
  );
}
