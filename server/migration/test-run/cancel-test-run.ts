/**
 * Cancelling a single-company test or rehearsal that has not ended (e.g. a sync that takes too
 * long). The run ends at once; the worker notices at its next lease renewal and lets the company
 * go, keeping what it stored (a later test resumes from there). The checklist is left as it is.
 */
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { findEngagement } from "@/server/engagements/engagement-repository";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { findRun, cancelRunRow, lockRun, type RunRow } from "../engine/run-repository";
import { TEST_RUN_KINDS, type TestRunKind } from "@/core/migration/states";
import { isStaff } from "@/core/accounts/roles";
import { refuse } from "@/server/engagements/access";
import { findItem } from "../engine/item-repository";
import { cancelRefusal } from "./rules";
import { snapshotOf, testChecks, type TestRunOutcome } from "./test-run-report";

/** The run to cancel, refused unless the actor may cancel it now; `lock`: read it with its row locked. */
function* check(tx: Tx, actor: Actor, input: { engagementId: string; runId: string }, lock: boolean): Steps<RunRow> {
  const found = lock ? yield* lockRun(tx, input.runId) : yield* findRun(tx, input.runId);
  const run = found && found.engagementId === input.engagementId && (TEST_RUN_KINDS as readonly string[]).includes(found.kind) ? found : undefined;
  // Who may cancel comes first; then a run that is not this engagement's test is not found.
  if (!run && isStaff(actor.role)) throw new AppError("NOT_FOUND", "No such test run on this engagement.");
  const refusal = cancelRefusal({ role: actor.role, run: run ?? null });
  if (refusal) refuse(refusal);
  return run!;
}

/** Cancels a queued or running test run, with a reason for the timeline. */
export async function cancelTestRun(database: Database, actor: Actor, input: { engagementId: string; runId: string; reason?: string }): Promise<void> {
  await readSteps(database, (tx) => check(tx, actor, input, false));
  // Read committed, with the run's row locked before it is checked again: a second cancel waits
  // and then finds the run ended; the worker's own writes to the run (its progress, its end) wait
  // too, so the outcome kept here is the run's latest.
  await database.transaction(
    function* (tx) {
      const run = yield* check(tx, actor, input, true);
      const now = new Date();
      const reason = input.reason?.trim() || "Cancelled by support.";
      const previous = (run.outcome ?? {}) as TestRunOutcome;
      const item = run.itemId ? yield* findItem(tx, run.itemId) : undefined;
      const platformKey = (yield* findEngagement(tx, input.engagementId))?.platformKey ?? "";
      yield* cancelRunRow(tx, { runId: run.id, reason, now, outcome: { ...previous, ...(item ? { item: snapshotOf(item, now, platformKey), checks: testChecks(item, false) } : {}) } });
      const company = previous.simulates?.name ?? item?.name ?? "a company";
      yield* writeAudit(tx, {
        actor,
        action: "migration.test_cancelled",
        targetId: run.id,
        engagementId: run.engagementId,
        organizationId: (yield* findEngagement(tx, run.engagementId))?.organizationId ?? null,
        after: { kind: run.kind as TestRunKind, company, reason },
        at: now,
      });
    },
    { isolation: "read committed" },
  );
}
