/**
 * The end of a single-company test or rehearsal, in one transaction: the run's result, its two
 * checks and, on a failure, what went wrong and what to do next (advice.ts); then what the test
 * means for the checklist. A passed test completes step 5 with the run as its evidence; a token
 * the old app refreshed after the export reopens step 4 with the advice as its reason (the
 * cascade applies). A rehearsal never changes the checklist. Fenced by the worker's lease: a run
 * cancelled meanwhile is left as it is.
 */
import type { Database, Steps, Tx } from "@/db/database";
import { findUser } from "@/server/accounts/users";
import { applyStepAction } from "@/server/engagements/act-on-step";
import { stepActionAvailability, type StepStates } from "@/server/engagements/checklist";
import { loadForChange, type EngagementRow } from "@/server/engagements/engagement-repository";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { adviceFor } from "../advice";
import type { ItemRow } from "../engine/item-repository";
import type { ItemChecks, StoredError } from "../engine/pipeline";
import { finishRunRow, lockRun, type RunRow } from "../engine/run-repository";
import type { TestRunKind } from "@/core/migration/states";
import { NO_ITEM, snapshotOf, testChecks, type StepEffect, type TestRunOutcome } from "./test-run-report";

/** The person who asked for the run, as the actor of what the run does to the checklist. */
function* requester(tx: Tx, run: RunRow): Steps<Actor | null> {
  const user = run.requestedById ? yield* findUser(tx, run.requestedById) : undefined;
  return user ? { id: user.id, email: "", name: user.name, role: user.role, organizationId: null } : null;
}

/** Completes step 5 or reopens step 4 where the checklist allows it now; otherwise says why not. */
function* applyToChecklist(
  tx: Tx,
  params: { run: RunRow; eng: EngagementRow; states: StepStates; item: ItemRow | null; outcome: TestRunOutcome; now: Date },
): Steps<StepEffect> {
  const { run, eng, states, item, outcome, now } = params;
  if (run.kind === "rehearsal") return { kind: "none", reason: "A rehearsal never changes the checklist." };
  const actor = yield* requester(tx, run);
  if (!actor) return { kind: "none", reason: "The person who asked for the test no longer exists." };
  if (outcome.result === "passed" && item?.companyId && item.connectionId) {
    const d = stepActionAvailability({ role: actor.role, action: "complete", step: 5, states, engagementStatus: eng.status, via: "flow" });
    if (!d.ok) return { kind: "none", reason: d.reason };
    yield* applyStepAction(tx, actor, {
      engagementId: eng.id,
      step: 5,
      action: "complete",
      via: "flow",
      evidence: { kind: "test_passed", runId: run.id, itemId: item.id, companyId: item.companyId, connectionId: item.connectionId },
      at: now,
    });
    return { kind: "completed", step: 5 };
  }
  if (outcome.advice?.reopenStep === 4) {
    const d = stepActionAvailability({ role: actor.role, action: "reopen", step: 4, states, engagementStatus: eng.status });
    if (!d.ok) return { kind: "none", reason: d.reason };
    const reason = `Single-company test on ${item?.name ?? "a company"}: ${outcome.advice.text}`;
    yield* applyStepAction(tx, actor, { engagementId: eng.id, step: 4, action: "reopen", reason, via: "flow", at: now });
    return { kind: "reopened", step: 4, reason };
  }
  return { kind: "none", reason: "The test failed; the checklist stays as it is." };
}

/** What the test found, from the run's outcome so far, the company as stored and a run-level failure. */
function testOutcome(previous: TestRunOutcome, item: ItemRow | null, runFailure: StoredError | null, now: Date, platformKey: string): TestRunOutcome {
  const passed = !runFailure && item?.state === "verified";
  const failure = passed ? null : (runFailure ?? (item?.lastError as StoredError | null) ?? null);
  const outcome: TestRunOutcome = {
    ...previous,
    ...(item ? { item: snapshotOf(item, now, platformKey) } : {}),
    result: passed ? "passed" : "failed",
    checks: testChecks(item ?? NO_ITEM, false),
    ...(failure ? { failure } : {}),
    ...(failure
      ? {
          advice: adviceFor({
            kind: failure.kind,
            status: failure.status,
            error: failure.error,
            platformErrors: (item?.checks as ItemChecks | null)?.connection?.errors ?? null,
          }),
        }
      : {}),
  };
  if (!passed && !failure) {
    outcome.failure = { operation: "test", kind: "internal", status: null, service: null, error: "The test ended without a result.", correlationId: null, at: now.toISOString() };
    outcome.advice = adviceFor({ kind: "internal", status: null, error: outcome.failure.error });
  }
  return outcome;
}

/**
 * Ends a run this worker holds. `item` is the tested company as stored now (null when the run
 * failed before it had one); `failure` a run-level failure (a 401, no target…) that overrides the
 * item's own error. Returns the outcome, or null when the run was no longer this worker's.
 */
export async function finishTestRun(
  database: Database,
  params: { run: RunRow; owner: string; item: ItemRow | null; failure: StoredError | null; now?: Date },
): Promise<TestRunOutcome | null> {
  const { run, item } = params;
  const now = params.now ?? new Date();
  // Read committed, with the rows the decision depends on locked: the engagement's first (as every
  // change of an engagement), then the run's, so a cancel or a takeover either happened before
  // and is seen here, or waits until this has ended (and then finds the run ended).
  return database.transaction(
    function* (tx) {
      const { eng, states } = yield* loadForChange(tx, run.engagementId);
      const current = yield* lockRun(tx, run.id);
      // Cancelled or taken over meanwhile: leave the run and the checklist as they are.
      // The run's claim named by its fencing token (`run.leaseToken`, the claimed row's), not only this worker.
      if (current?.status !== "running" || current.leaseOwner !== params.owner || !run.leaseToken || current.leaseToken !== run.leaseToken) return null;
      const previous = (current.outcome ?? {}) as TestRunOutcome;
      const outcome = testOutcome(previous, item, params.failure, now, eng.platformKey);
      yield* writeAudit(tx, {
        actor: null,
        action: "migration.test_finished",
        targetId: run.id,
        engagementId: run.engagementId,
        organizationId: eng.organizationId,
        after: {
          kind: run.kind as TestRunKind,
          company: (previous.simulates?.name ?? item?.name) || "a company",
          result: outcome.result ?? "failed",
          ...(outcome.advice ? { advice: outcome.advice.text } : {}),
        },
        at: now,
      });
      const stepEffect = yield* applyToChecklist(tx, { run: current, eng, states, item, outcome, now });
      const finished: TestRunOutcome = { ...outcome, stepEffect };
      const statusReason = finished.result === "passed" ? null : (finished.advice?.text ?? null);
      yield* finishRunRow(tx, { runId: run.id, owner: params.owner, token: run.leaseToken, status: finished.result === "passed" ? "passed" : "failed", outcome: finished, statusReason, now });
      return finished;
    },
    { isolation: "read committed" },
  );
}
