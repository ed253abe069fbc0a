/**
 * Asking for a single-company test (step 5) or its rehearsal on the built-in sandbox. The web
 * request only records the run (queued) and, for the test, attaches the company to it and starts
 * step 5; a worker process takes the run up and makes the calls (worker.ts). Checked before the
 * transaction and again inside it.
 */
import type { Db } from "@/db/client";
import { refuse } from "@/server/engagements/access";
import { applyStepAction } from "@/server/engagements/act-on-step";
import { isStaff, stepActionAvailability } from "@/server/engagements/checklist";
import { loadForChange } from "@/server/engagements/engagement-repository";
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { targetUseRefusal } from "@/server/targets/rules";
import { findServiceTarget } from "@/server/targets/targets";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
import { attachItemToRun, countRealItems, findRealItem, pickSmallestItem, type ItemRow } from "../engine/item-repository";
import { activeRuns, findRun, insertRun } from "../engine/run-repository";
import { ACTIVE_RUN_STATUSES, RUN_KINDS, TEST_RUN_KINDS, type TestRunKind } from "@/core/migration/states";

export type TestRunRequest = {
  engagementId: string;
  kind: TestRunKind;
  /** The company to test; omitted: Ferry picks the smallest by `records`. */
  itemId?: string | null;
};

/** Checks the request against the engagement and its items as they are; returns the company to test. */
function check(tx: DbOrTx, actor: Actor, input: TestRunRequest): { item: ItemRow; pickedBy: "support" | "smallest"; serviceTargetId: string | null } {
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Only support staff run tests.");
  const { eng, states } = loadForChange(tx, input.engagementId);
  if (input.kind === "pilot") {
    const available = stepActionAvailability({ role: actor.role, action: "complete", step: 5, states, engagementStatus: eng.status, via: "flow" });
    if (!available.ok) refuse(available);
    if (!eng.serviceTargetId) throw new AppError("PRECONDITION_FAILED", "Choose the engagement's service target before running the single-company test.");
    // The run copies the engagement's target: it must be one this engagement may use.
    const target = findServiceTarget(tx, eng.serviceTargetId);
    const refused = target ? targetUseRefusal(target, eng.organizationId) : "The engagement's service target no longer exists: choose another.";
    if (refused) throw new AppError("PRECONDITION_FAILED", refused);
  } else if (eng.status !== "active") {
    throw new AppError("PRECONDITION_FAILED", "A rehearsal runs only while the engagement is active.");
  }
  const running = activeRuns(tx, eng.id, TEST_RUN_KINDS)[0];
  if (running) {
    throw new AppError(
      "CONFLICT",
      `A ${running.kind === "rehearsal" ? "rehearsal" : "single-company test"} is already ${running.status === "queued" ? "waiting for the worker" : "running"}: wait for it to end or cancel it.`,
    );
  }
  if (countRealItems(tx, eng.id) === 0) {
    throw new AppError("PRECONDITION_FAILED", "There are no companies to test yet: they come from the token file accepted in step 1.");
  }
  let item: ItemRow | undefined;
  if (input.itemId) {
    item = findRealItem(tx, eng.id, input.itemId);
    if (!item) throw fieldError("itemId", "Choose a company of this engagement's token file.");
    if (item.state === "set_aside") throw fieldError("itemId", `${item.name} is set aside; choose another company.`);
  } else {
    item = pickSmallestItem(tx, eng.id);
    if (!item) throw fieldError("itemId", "Every company has already failed, needs reauthorization or is set aside: choose one yourself.");
  }
  const holder = item.runId ? findRun(tx, item.runId) : undefined;
  if (input.kind === "pilot" && holder && holder.kind !== "pilot" && (ACTIVE_RUN_STATUSES as readonly string[]).includes(holder.status)) {
    throw fieldError("itemId", `${item.name} is part of a ${holder.kind} run that is still going; choose another company.`);
  }
  return { item, pickedBy: input.itemId ? "support" : "smallest", serviceTargetId: eng.serviceTargetId };
}

/** Queues a single-company test or a rehearsal; returns the run's id. */
export function requestTestRun(db: Db, actor: Actor, input: TestRunRequest): { runId: string } {
  if (!(RUN_KINDS as readonly string[]).includes(input.kind)) throw fieldError("kind", "Unknown kind of test.");
  check(db, actor, input);
  const runId = crypto.randomUUID();
  db.transaction((tx) => {
    const { item, pickedBy, serviceTargetId } = check(tx, actor, input);
    const { eng, states } = loadForChange(tx, input.engagementId);
    const now = new Date();
    if (input.kind === "pilot") {
      insertRun(tx, { id: runId, engagementId: eng.id, kind: "pilot", serviceTargetId, itemId: item.id, requestedById: actor.id, now, outcome: { pickedBy } });
      attachItemToRun(tx, { itemId: item.id, runId, now });
      if (states[5] === "pending") applyStepAction(tx, actor, { engagementId: eng.id, step: 5, action: "start", via: "flow", at: now });
    } else {
      // The simulated twin is made by the worker; until then the run names the real company.
      insertRun(tx, {
        id: runId,
        engagementId: eng.id,
        kind: "rehearsal",
        serviceTargetId: null,
        itemId: null,
        requestedById: actor.id,
        now,
        outcome: { pickedBy, simulates: { itemId: item.id, name: item.name } },
      });
    }
    recordAudit(tx, {
      actor,
      action: "migration.test_requested",
      targetId: runId,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      after: { kind: input.kind, company: item.name, pickedBy },
      at: now,
    });
  });
  return { runId };
}
