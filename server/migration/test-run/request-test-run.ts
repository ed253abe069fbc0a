/**
 * Asking for a single-company test (step 5) or its rehearsal on the built-in sandbox. The web
 * request only records the run (queued) and, for the test, attaches the company to it and starts
 * step 5; a worker process takes the run up and makes the calls (worker.ts). Checked before the
 * transaction (a quick refusal) and again inside it, on the rows as they are then.
 */
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { refuse } from "@/server/engagements/access";
import { applyStepAction } from "@/server/engagements/act-on-step";
import { loadForChange, type EngagementRow } from "@/server/engagements/engagement-repository";
import { fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { targetUseRefusal } from "@/server/targets/rules";
import { findServiceTarget } from "@/server/targets/targets";
import { writeAudit } from "@/server/security/audit";
import { attachItemToRun, countRealItems, findRealItem, pickSmallestItem, type ItemRow } from "../engine/item-repository";
import { activeRuns, findRun, insertRun, type RunRow } from "../engine/run-repository";
import { RUN_KINDS, TEST_RUN_KINDS, type TestRunKind } from "@/core/migration/states";
import { companyRefusal, testRefusal, type TestRunContext } from "./rules";

export type TestRunRequest = {
  engagementId: string;
  kind: TestRunKind;
  /** The company to test; omitted: Ferry picks the smallest by `records`. */
  itemId?: string | null;
};

/** The context the rules need, with the engagement and the run under way (for the operations). */
export type LoadedTestRunContext = TestRunContext & { eng: EngagementRow; runningRun: RunRow | undefined };

/**
 * What the rules need, read as things stand (a transaction step). Inside a transaction the
 * engagement row is locked first (loadForChange), so two requests for the same engagement queue
 * and the second sees the run the first queued.
 */
export function* loadTestRunContext(tx: Tx, actor: Actor, engagementId: string): Steps<LoadedTestRunContext> {
  const { eng, states } = yield* loadForChange(tx, engagementId);
  const runningRun = (yield* activeRuns(tx, eng.id, TEST_RUN_KINDS))[0];
  const target = eng.serviceTargetId ? yield* findServiceTarget(tx, eng.serviceTargetId) : undefined;
  return {
    eng,
    runningRun,
    role: actor.role,
    engagementStatus: eng.status,
    states,
    // The test copies the engagement's target: it must be one this engagement may use.
    targetRefusal: !eng.serviceTargetId
      ? "Choose the engagement's service target before running the single-company test."
      : target
        ? targetUseRefusal(target, eng.organizationId)
        : "The engagement's service target no longer exists: choose another.",
    running: runningRun ? { kind: runningRun.kind as TestRunKind, status: runningRun.status } : null,
    companies: yield* countRealItems(tx, eng.id),
  };
}

/** Checks the request against the rules as things stand; returns the company to test. */
function* check(tx: Tx, actor: Actor, input: TestRunRequest): Steps<{ c: LoadedTestRunContext; item: ItemRow; pickedBy: "support" | "smallest" }> {
  const c = yield* loadTestRunContext(tx, actor, input.engagementId);
  const refusal = testRefusal(input.kind, c);
  if (refusal) refuse(refusal);
  const item = input.itemId ? yield* findRealItem(tx, c.eng.id, input.itemId) : yield* pickSmallestItem(tx, c.eng.id);
  const holder = item?.runId ? yield* findRun(tx, item.runId) : undefined;
  const unusable = companyRefusal({ kind: input.kind, chosen: !!input.itemId, item, holder: holder ?? null });
  if (unusable) refuse(unusable);
  return { c, item: item!, pickedBy: input.itemId ? "support" : "smallest" };
}

/** Queues a single-company test or a rehearsal; returns the run's id. */
export async function requestTestRun(database: Database, actor: Actor, input: TestRunRequest): Promise<{ runId: string }> {
  if (!(RUN_KINDS as readonly string[]).includes(input.kind)) throw fieldError("kind", "Unknown kind of test.");
  await readSteps(database, (tx) => check(tx, actor, input));
  // Made once, before the transaction: a retried transaction queues the same run.
  const runId = crypto.randomUUID();
  // Read committed: check locks the engagement row (loadForChange) before it looks for a run under
  // way, so of two requests at once the second waits, then finds the first's run and is refused.
  await database.transaction(
    function* (tx) {
      const { c, item, pickedBy } = yield* check(tx, actor, input);
      const { eng, states } = c;
      const now = new Date();
      if (input.kind === "pilot") {
        yield* insertRun(tx, { id: runId, engagementId: eng.id, kind: "pilot", serviceTargetId: eng.serviceTargetId, itemId: item.id, requestedById: actor.id, now, outcome: { pickedBy } });
        yield* attachItemToRun(tx, { itemId: item.id, runId, now });
        if (states[5] === "pending") yield* applyStepAction(tx, actor, { engagementId: eng.id, step: 5, action: "start", via: "flow", at: now });
      } else {
        // The simulated twin is made by the worker; until then the run names the real company.
        yield* insertRun(tx, {
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
      yield* writeAudit(tx, {
        actor,
        action: "migration.test_requested",
        targetId: runId,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        after: { kind: input.kind, company: item.name, pickedBy },
        at: now,
      });
    },
    { isolation: "read committed" },
  );
  return { runId };
}
