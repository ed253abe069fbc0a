/**
 * The bulk run as stored (the only module of the bulk run that touches drizzle): the engagement's
 * latest bulk run, attaching companies to it in one statement each (a run may cover 100,000),
 * the counts per state, the pace counters the workers add to, and the run's status changes.
 * Transaction steps (db/database.ts), but for `addPace`, a transaction of its own.
 *
 * The run's `outcome` (JSON) is changed by reading it with the row locked and writing it back,
 * not with a database's JSON functions, so the same code runs on SQLite and PostgreSQL and two
 * workers adding to its counters at once queue on the row instead of losing one's addition.
 */
import { and, count, desc, eq, gt, inArray, isNull, ne, notInArray, or } from "drizzle-orm";
import { migrationItems, migrationRuns } from "@/db/schema";
import { forUpdate, q, type Database, type Steps, type Tx } from "@/db/database";
import { realItems } from "../../items/item-scope";
import { purgeUsedFreshTokens } from "../../items/fresh-tokens";
import { freshAttempt } from "../engine/item-repository";
import { runHeldBy, type RunClaim, type RunRow } from "../engine/run-repository";
import { countsByState, FINAL_ITEM_STATES, type MigrationItemState, type RunStatus } from "@/core/migration/states";

/** The engagement's latest bulk run, or undefined before the first. */
export function* latestBulkRun(tx: Tx, engagementId: string): Steps<RunRow | undefined> {
  return yield* q.get(
    tx
      .select()
      .from(migrationRuns)
      .where(and(eq(migrationRuns.engagementId, engagementId), eq(migrationRuns.kind, "bulk")))
      .orderBy(desc(migrationRuns.requestedAt))
      .limit(1),
  );
}

/** The engagement's real companies per state. */
export function* realCountsByState(tx: Tx, engagementId: string): Steps<Record<MigrationItemState, number>> {
  return countsByState(yield* q.all(tx.select({ state: migrationItems.state, n: count() }).from(migrationItems).where(realItems(engagementId)).groupBy(migrationItems.state)));
}

/** A run's companies per state. */
export function* runCountsByState(tx: Tx, runId: string): Steps<Record<MigrationItemState, number>> {
  return countsByState(yield* q.all(tx.select({ state: migrationItems.state, n: count() }).from(migrationItems).where(eq(migrationItems.runId, runId)).groupBy(migrationItems.state)));
}

/** A run's companies not yet in a final state. */
export function* countUnfinished(tx: Tx, runId: string): Steps<number> {
  const row = yield* q.get(tx.select({ n: count() }).from(migrationItems).where(and(eq(migrationItems.runId, runId), notInArray(migrationItems.state, [...FINAL_ITEM_STATES]))));
  return Number(row?.n ?? 0);
}

/**
 * Attaches real companies to a run in one statement, ready to be driven again: each keeps its
 * company and connection (the pipeline re-authorizes, never creating twice) and forgets the
 * previous attempt's checks, counters and error. `states`: which companies (by their state now).
 */
export function* attachToRun(tx: Tx, params: { engagementId: string; runId: string; states: readonly MigrationItemState[]; itemId?: string; now: Date }): Steps<number> {
  const { changes } = yield* q.run(
    tx
      .update(migrationItems)
      .set(freshAttempt(params.runId, params.now))
      .where(realItems(params.engagementId, inArray(migrationItems.state, [...params.states]), params.itemId ? eq(migrationItems.id, params.itemId) : undefined)),
  );
  return changes;
}

/** Puts a run (the engagement's latest bulk run) back to work on companies attached to it: reopened when it had ended. */
export function* reopenRun(tx: Tx, run: RunRow, now: Date): Steps<void> {
  if (run.status === "completed" || run.status === "cancelled" || run.status === "failed") {
    yield* setBulkStatus(tx, { runId: run.id, from: [run.status], to: "queued", reason: null, now });
  }
}

/**
 * Carries companies on after the bulk run, in the engagement's latest bulk run (reopened when it
 * had ended): a company its end customer reconnected goes on at `authorized` (sync, then verify),
 * one with fresh tokens from a supplementary file at `connection_created` (authorize again). Each
 * forgets its previous attempt; returns the run, or null when the engagement has no bulk run.
 */
export function* requeueIntoBulkRun(
  tx: Tx,
  params: { engagementId: string; itemIds: readonly string[]; state: Extract<MigrationItemState, "authorized" | "connection_created">; now: Date },
): Steps<RunRow | null> {
  const run = yield* latestBulkRun(tx, params.engagementId);
  if (!run || !params.itemIds.length) return run ?? null;
  yield* q.run(
    tx
      .update(migrationItems)
      .set({ ...freshAttempt(run.id, params.now), state: params.state })
      .where(realItems(params.engagementId, inArray(migrationItems.id, [...params.itemIds]))),
  );
  yield* reopenRun(tx, run, params.now);
  return run;
}

/**
 * Sets one company aside with its reason; a worker driving it loses its lease and lets it go. Fresh
 * tokens it was being retried with are purged (a final state: see items/fresh-tokens.ts).
 */
export function* setItemAside(tx: Tx, params: { itemId: string; reason: string; now: Date }): Steps<void> {
  yield* q.run(
    tx
      .update(migrationItems)
      .set({ state: "set_aside", outcomeReason: params.reason, nextAttemptAt: null, leaseOwner: null, leaseExpiresAt: null, finishedAt: params.now, updatedAt: params.now })
      .where(eq(migrationItems.id, params.itemId)),
  );
  yield* purgeUsedFreshTokens(tx, { itemId: params.itemId, at: params.now });
}

/**
 * Changes a bulk run's status (from one of `from`), with its reason; false when it was in none of
 * them. A worker's change names its `claim` of the run and is fenced on it (false once the run is
 * another claim's); support's controls name none.
 */
export function* setBulkStatus(
  tx: Tx,
  params: { runId: string; from: readonly RunStatus[]; to: RunStatus; reason: string | null; now: Date; finished?: boolean; claim?: RunClaim },
): Steps<boolean> {
  const inFrom = and(eq(migrationRuns.id, params.runId), inArray(migrationRuns.status, [...params.from]), params.claim ? runHeldBy(params.claim) : undefined);
  const row = yield* q.get(forUpdate(tx.select({ outcome: migrationRuns.outcome }).from(migrationRuns).where(inFrom)));
  if (!row) return false;
  // A hold the run waited on belongs to the status it leaves.
  const { hold: _hold, ...outcome } = (row.outcome ?? {}) as BulkOutcome;
  const { changes } = yield* q.run(
    tx
      .update(migrationRuns)
      .set({
        status: params.to,
        statusReason: params.reason,
        updatedAt: params.now,
        finishedAt: params.finished ? params.now : null,
        // Anything but running lets the worker's lease go at its next renewal.
        ...(params.to === "running" ? {} : { leaseOwner: null, leaseExpiresAt: null }),
        outcome: outcome as Record<string, unknown>,
      })
      .where(inFrom),
  );
  return changes > 0;
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
 * Adds a worker's requests to the run's counters and, from the run's coordinator, a sample for the
 * screens' pace and ETA and the hold it sees. Any worker of the run may add its requests: the run's
 * row is locked while its outcome is read and written back (read committed), so additions at once
 * queue. The coordinator's part is fenced on its claim: once the run is another claim's, only the
 * requests are added.
 */
export async function addPace(
  database: Database,
  params: {
    runId: string;
    delta: PaceDelta;
    coordinator: { claim: RunClaim; finished: number; limit: { requests: number; perSeconds: number } | null; hold: BulkOutcome["hold"] | null } | null;
    now: Date;
  },
): Promise<void> {
  if (!params.coordinator && params.delta.requests === 0 && params.delta.rateLimited === 0) return;
  await database.transaction(
    function* (tx) {
      const row = yield* q.get(
        forUpdate(tx.select({ outcome: migrationRuns.outcome, leaseOwner: migrationRuns.leaseOwner, leaseToken: migrationRuns.leaseToken }).from(migrationRuns).where(eq(migrationRuns.id, params.runId))),
      );
      if (!row) return;
      const claim = params.coordinator?.claim;
      const c = claim && row.leaseOwner === claim.owner && row.leaseToken === claim.token ? params.coordinator : null;
      const outcome = { ...((row.outcome ?? {}) as BulkOutcome) };
      outcome.requests = (outcome.requests ?? 0) + params.delta.requests;
      outcome.rateLimited = (outcome.rateLimited ?? 0) + params.delta.rateLimited;
      if (c) {
        outcome.samples = [...(outcome.samples ?? []), [params.now.getTime(), outcome.requests, c.finished] as [number, number, number]].slice(-SAMPLES);
        if (c.limit) outcome.limit = c.limit;
        if (c.hold) outcome.hold = c.hold;
        else delete outcome.hold;
      }
      yield* q.run(
        tx
          .update(migrationRuns)
          .set({ outcome: outcome as Record<string, unknown>, ...(c ? { updatedAt: params.now } : {}) })
          .where(eq(migrationRuns.id, params.runId)),
      );
    },
    { isolation: "read committed" },
  );
}

/** A bulk run another worker is carrying out, whose companies this worker may help with. */
export function* runToHelp(tx: Tx, params: { owner: string; now: Date }): Steps<RunRow | undefined> {
  return yield* q.get(
    tx
      .select()
      .from(migrationRuns)
      .where(
        and(
          eq(migrationRuns.kind, "bulk"),
          eq(migrationRuns.status, "running"),
          or(isNull(migrationRuns.leaseOwner), ne(migrationRuns.leaseOwner, params.owner)),
          gt(migrationRuns.leaseExpiresAt, params.now),
        ),
      )
      .limit(1),
  );
}

