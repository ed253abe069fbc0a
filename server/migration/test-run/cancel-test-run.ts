/**
 * Cancelling a single-company test or rehearsal that has not ended (e.g. a sync that takes too
 * long). The run ends at once; the worker notices at its next lease renewal and lets the company
 * go, keeping what it stored (a later test resumes from there). The checklist is left as it is.
 */
import { runSync } from "@/db/database";
import type { Db } from "@/db/client";
import { findEngagement } from "@/server/engagements/engagement-repository";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
import { findRun, cancelRunRow } from "../engine/run-repository";
import { TEST_RUN_KINDS, type TestRunKind } from "@/core/migration/states";
import { isStaff } from "@/core/accounts/roles";
import { refuse } from "@/server/engagements/access";
import { findItem } from "../engine/item-repository";
import { cancelRefusal } from "./rules";
import { snapshotOf, testChecks, type TestRunOutcome } from "./test-run-report";

function check(tx: DbOrTx, actor: Actor, input: { engagementId: string; runId: string }) {
  const found = runSync(findRun(tx, input.runId));
  const run = found && found.engagementId === input.engagementId && (TEST_RUN_KINDS as readonly string[]).includes(found.kind) ? found : undefined;
  // Who may cancel comes first; then a run that is not this engagement's test is not found.
  if (!run && isStaff(actor.role)) throw new AppError("NOT_FOUND", "No such test run on this engagement.");
  const refusal = cancelRefusal({ role: actor.role, run: run ?? null });
  if (refusal) refuse(refusal);
  return run!;
}

/** Cancels a queued or running test run, with a reason for the timeline. */
export function cancelTestRun(db: Db, actor: Actor, input: { engagementId: string; runId: string; reason?: string }): void {
  check(db, actor, input);
  db.transaction((tx) => {
    const run = check(tx, actor, input);
    const now = new Date();
    const reason = input.reason?.trim() || "Cancelled by support.";
    const previous = (run.outcome ?? {}) as TestRunOutcome;
    const item = run.itemId ? runSync(findItem(tx, run.itemId)) : undefined;
    runSync(cancelRunRow(tx, { runId: run.id, reason, now, outcome: { ...previous, ...(item ? { item: snapshotOf(item, now), checks: testChecks(item, false) } : {}) } }));
    const company = previous.simulates?.name ?? item?.name ?? "a company";
    recordAudit(tx, {
      actor,
      action: "migration.test_cancelled",
      targetId: run.id,
      engagementId: run.engagementId,
      organizationId: runSync(findEngagement(tx, run.engagementId))?.organizationId ?? null,
      after: { kind: run.kind as TestRunKind, company, reason },
      at: now,
    });
  });
}
