/**
 * Migration runs as the engine reads and writes them (the only module of the engine that touches
 * drizzle for runs and their calls): creating a run, a worker's claim and lease on it, progress,
 * the end of a run, and the reads the screens make.
 *
 * A worker claims a run with a conditional `UPDATE … WHERE status is queued or running AND (lease
 * free or expired) … RETURNING` in a read-committed transaction (on PostgreSQL the run is first
 * picked with FOR UPDATE SKIP LOCKED, so workers claiming at once each take a different run, and
 * the update checks the conditions again on the row it locked), renews the lease while it works, and every write it makes to the run is
 * fenced by the lease and its claim's fencing token (`lease_token`, fresh for every claim and
 * takeover): a worker that lost it (it stalled, another took over) writes nothing, even after it
 * claimed the run again.
 *
 * Every function is a transaction step (db/database.ts): `yield*` it in a transaction body, or run
 * it alone with `database.transaction(…)` / `readSteps(…)`.
 */
import { and, asc, desc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { forUpdate, q, type Steps, type Tx } from "@/db/database";
import { migrationItems, migrationRuns, serviceCalls } from "@/db/schema";
import { newLeaseToken } from "./item-repository";
import { ACTIVE_RUN_STATUSES, type MigrationItemState, type RunKind, type RunStatus } from "@/core/migration/states";

/** What a run keeps of its own, as JSON: each kind its shape (a test's checks and advice, a bulk run's counts and pace). */
export type RunOutcome = object;

export type RunRow = typeof migrationRuns.$inferSelect;
export type CallRow = typeof serviceCalls.$inferSelect;

const leaseFree = (now: Date) => or(isNull(migrationRuns.leaseOwner), isNull(migrationRuns.leaseExpiresAt), lt(migrationRuns.leaseExpiresAt, now));

/** The fence of every write and renewal on a run: this worker's lease, from this very claim (or takeover). */
const heldBy = (owner: string, token: string) => and(eq(migrationRuns.leaseOwner, owner), eq(migrationRuns.leaseToken, token));

/** A worker's claim of a run (its owner and the claim's fencing token), which its writes to the run name. */
export type RunClaim = { owner: string; token: string };
/** The fence of a worker's write to a run from `claim`, for writes made outside this module. */
export const runHeldBy = (claim: RunClaim) => heldBy(claim.owner, claim.token);

/** Adds a queued run (inside the caller's transaction). */
export function* insertRun(
  tx: Tx,
  params: { id: string; engagementId: string; kind: RunKind; serviceTargetId: string | null; itemId: string | null; requestedById: string; now: Date; outcome?: RunOutcome },
): Steps<void> {
  yield* q.run(
    tx.insert(migrationRuns).values({
      id: params.id,
      engagementId: params.engagementId,
      kind: params.kind,
      status: "queued",
      serviceTargetId: params.serviceTargetId,
      itemId: params.itemId,
      requestedById: params.requestedById,
      requestedAt: params.now,
      outcome: (params.outcome ?? {}) as Record<string, unknown>,
      updatedAt: params.now,
    }),
  );
}

/** The engagement's runs of some kinds that a worker has still to finish. */
export function* activeRuns(tx: Tx, engagementId: string, kinds: readonly RunKind[]): Steps<RunRow[]> {
  return yield* q.all(
    tx
      .select()
      .from(migrationRuns)
      .where(and(eq(migrationRuns.engagementId, engagementId), inArray(migrationRuns.kind, [...kinds]), inArray(migrationRuns.status, [...ACTIVE_RUN_STATUSES]))),
  );
}

/**
 * Takes the oldest queued or running run of the given kinds whose lease is free or expired, and
 * marks it running with this worker's lease; a step of the caller's (read-committed) transaction.
 * On PostgreSQL the run is picked with FOR UPDATE SKIP LOCKED, skipping runs other claimers hold
 * locked, so workers claiming at once take different runs instead of queuing on the oldest; the
 * update checks `claimable` again on the row it locked, so two workers never take the same run.
 * (Two statements, not `UPDATE … WHERE id IN (SELECT … LIMIT 1 FOR UPDATE SKIP LOCKED)`, which
 * PostgreSQL may run again for every row it updates, taking a run each time.)
 */
export function* claimRun(tx: Tx, params: { owner: string; kinds: readonly RunKind[]; leaseMs: number; now: Date }): Steps<RunRow | undefined> {
  const { owner, now } = params;
  const claimable = and(inArray(migrationRuns.status, [...ACTIVE_RUN_STATUSES]), inArray(migrationRuns.kind, [...params.kinds]), leaseFree(now));
  const oldest = yield* q.get(forUpdate(tx.select({ id: migrationRuns.id }).from(migrationRuns).where(claimable).orderBy(asc(migrationRuns.requestedAt)).limit(1), { skipLocked: true }));
  if (!oldest) return undefined;
  return yield* q.get(
    tx
      .update(migrationRuns)
      .set({
        status: "running",
        leaseOwner: owner,
        leaseToken: newLeaseToken(),
        leaseExpiresAt: new Date(now.getTime() + params.leaseMs),
        startedAt: sql`coalesce(${migrationRuns.startedAt}, ${sql.param(now, migrationRuns.startedAt)})`,
        updatedAt: now,
      })
      .where(and(eq(migrationRuns.id, oldest.id), claimable))
      .returning(),
  );
}

/**
 * Takes a running run's lease over from its coordinator once that lease has run out (the worker
 * died or stalled): what a worker helping with the run does, so the run is coordinated again at
 * once without the helper letting its companies go. One conditional update; undefined when the
 * lease still holds, another took it, or the run is no longer running.
 */
export function* takeOverRun(tx: Tx, params: { runId: string; owner: string; leaseMs: number; now: Date }): Steps<RunRow | undefined> {
  const { owner, now } = params;
  return yield* q.get(
    tx
      .update(migrationRuns)
      .set({ leaseOwner: owner, leaseToken: newLeaseToken(), leaseExpiresAt: new Date(now.getTime() + params.leaseMs), updatedAt: now })
      .where(and(eq(migrationRuns.id, params.runId), eq(migrationRuns.status, "running"), leaseFree(now)))
      .returning(),
  );
}

/** Extends this worker's lease on a run from the claim `token` names; false when the run is no longer running or no longer its. */
export function* renewRunLease(tx: Tx, params: { runId: string; owner: string; token: string; leaseMs: number; now: Date }): Steps<boolean> {
  const { changes } = yield* q.run(
    tx
      .update(migrationRuns)
      .set({ leaseExpiresAt: new Date(params.now.getTime() + params.leaseMs) })
      .where(and(eq(migrationRuns.id, params.runId), heldBy(params.owner, params.token), eq(migrationRuns.status, "running"))),
  );
  return changes > 0;
}

/** Gives up this worker's lease on a run (it stops; another worker may take the run at once). */
export function* releaseRun(tx: Tx, params: { runId: string; owner: string; token: string }): Steps<void> {
  yield* q.run(
    tx
      .update(migrationRuns)
      .set({ leaseOwner: null, leaseToken: null, leaseExpiresAt: null })
      .where(and(eq(migrationRuns.id, params.runId), heldBy(params.owner, params.token))),
  );
}

/** Stores what a running run has to show so far (fenced by the lease); false when the lease is gone. */
export function* updateRunProgress(
  tx: Tx,
  params: { runId: string; owner: string; token: string; now: Date; outcome: RunOutcome; itemId?: string; sandbox?: { clientId: string; apiKeyCipher: string } },
): Steps<boolean> {
  const { changes } = yield* q.run(
    tx
      .update(migrationRuns)
      .set({
        outcome: params.outcome as Record<string, unknown>,
        updatedAt: params.now,
        ...(params.itemId ? { itemId: params.itemId } : {}),
        ...(params.sandbox ? { sandboxClientId: params.sandbox.clientId, sandboxApiKeyCipher: params.sandbox.apiKeyCipher } : {}),
      })
      .where(and(eq(migrationRuns.id, params.runId), heldBy(params.owner, params.token), eq(migrationRuns.status, "running"))),
  );
  return changes > 0;
}

/**
 * Ends a run this worker holds (inside the caller's transaction): its final status, what it
 * found, the reason in words. False when the run was cancelled or taken over meanwhile.
 */
export function* finishRunRow(
  tx: Tx,
  params: { runId: string; owner: string; token: string; status: RunStatus; outcome: RunOutcome; statusReason: string | null; now: Date },
): Steps<boolean> {
  const { changes } = yield* q.run(
    tx
      .update(migrationRuns)
      .set({
        status: params.status,
        outcome: params.outcome as Record<string, unknown>,
        statusReason: params.statusReason,
        finishedAt: params.now,
        leaseOwner: null,
        leaseToken: null,
        leaseExpiresAt: null,
        updatedAt: params.now,
      })
      .where(and(eq(migrationRuns.id, params.runId), heldBy(params.owner, params.token), eq(migrationRuns.status, "running"))),
  );
  return changes > 0;
}

/** Cancels a queued or running run (inside the caller's transaction); false when it had already ended. */
export function* cancelRunRow(tx: Tx, params: { runId: string; reason: string; now: Date; outcome: RunOutcome }): Steps<boolean> {
  const { changes } = yield* q.run(
    tx
      .update(migrationRuns)
      .set({ status: "cancelled", statusReason: params.reason, outcome: params.outcome as Record<string, unknown>, finishedAt: params.now, leaseOwner: null, leaseExpiresAt: null, updatedAt: params.now })
      .where(and(eq(migrationRuns.id, params.runId), inArray(migrationRuns.status, [...ACTIVE_RUN_STATUSES]))),
  );
  return changes > 0;
}

/** One run, or undefined. */
export function* findRun(tx: Tx, runId: string): Steps<RunRow | undefined> {
  return yield* q.get(tx.select().from(migrationRuns).where(eq(migrationRuns.id, runId)));
}

/** One run with its row locked until the transaction ends (FOR UPDATE on PostgreSQL), for a change that depends on its state. */
export function* lockRun(tx: Tx, runId: string): Steps<RunRow | undefined> {
  return yield* q.get(forUpdate(tx.select().from(migrationRuns).where(eq(migrationRuns.id, runId))));
}

/** An engagement's runs of some kinds, newest first. */
export function* listRunRows(tx: Tx, params: { engagementId: string; kinds: readonly RunKind[]; limit: number }): Steps<RunRow[]> {
  return yield* q.all(
    tx
      .select()
      .from(migrationRuns)
      .where(and(eq(migrationRuns.engagementId, params.engagementId), inArray(migrationRuns.kind, [...params.kinds])))
      .orderBy(desc(migrationRuns.requestedAt))
      .limit(params.limit),
  );
}

/** Every call a run made, in order. */
export function* listCallRows(tx: Tx, runId: string): Steps<CallRow[]> {
  return yield* q.all(tx.select().from(serviceCalls).where(eq(serviceCalls.runId, runId)).orderBy(asc(serviceCalls.id)));
}

/** The company of the engagement's latest passed single-company test (with its name and state now), if any. */
export function* passedPilotItem(tx: Tx, engagementId: string): Steps<{ id: string; name: string; state: MigrationItemState } | undefined> {
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
