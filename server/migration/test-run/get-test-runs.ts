/**
 * The engagement's test runs as the screens show them (console and portal): the list, one run in
 * full — live while it runs, from its stored outcome once it has ended — the companies support
 * may pick for a test, and the controls step 5 offers (rules.ts).
 */
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { findUser } from "@/server/accounts/users";
import { assertCanView } from "@/server/engagements/access";
import { toControl } from "@/server/engagements/checklist";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { findServiceTarget } from "@/server/targets/targets";
import { findEngagement } from "@/server/engagements/engagement-repository";
import { countRealItems, countSearchedRealItems, findItem, searchRealItems } from "../engine/item-repository";
import type { ItemChecks } from "../engine/pipeline";
import { readFailure } from "../engine/stored-failure";
import { findRun, listCallRows, listRunRows, type RunRow } from "../engine/run-repository";
import type { TestControlsView, TestRunDetailView, TestRunSummaryView } from "@/core/migration/test-run-schemas";
import { ACTIVE_RUN_STATUSES, FINAL_ITEM_STATES, TEST_RUN_KINDS, type MigrationItemState, type TestRunKind } from "@/core/migration/states";
import { loadTestRunContext } from "./request-test-run";
import { cancelRefusal, pilotRefusal, rehearsalRefusal } from "./rules";
import { NO_ITEM, snapshotOf, testChecks, type ItemSnapshot, type TestRunOutcome } from "./test-run-report";

/** How many runs the list shows (newest first). */
const RUNS_LISTED = 50;

const isActive = (run: RunRow) => (ACTIVE_RUN_STATUSES as readonly string[]).includes(run.status);
const outcomeOf = (run: RunRow) => (run.outcome ?? {}) as TestRunOutcome;

function* summary(tx: Tx, run: RunRow, item: { name: string } | undefined): Steps<TestRunSummaryView> {
  const outcome = outcomeOf(run);
  return {
    id: run.id,
    kind: run.kind as TestRunKind,
    status: run.status,
    active: isActive(run),
    result: outcome.result ?? null,
    requestedAt: run.requestedAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    requestedBy: run.requestedById ? ((yield* findUser(tx, run.requestedById))?.name ?? null) : null,
    company: outcome.simulates?.name ?? item?.name ?? null,
    pickedBy: outcome.pickedBy ?? null,
    statusReason: run.statusReason,
  };
}

/** The engagement's single-company tests and rehearsals, newest first. */
export function listTestRuns(database: Database, actor: Actor, engagementId: string): Promise<TestRunSummaryView[]> {
  return readSteps(database, function* (tx) {
    yield* assertCanView(tx, actor, engagementId);
    const listed: TestRunSummaryView[] = [];
    for (const run of yield* listRunRows(tx, { engagementId, kinds: TEST_RUN_KINDS, limit: RUNS_LISTED })) {
      listed.push(yield* summary(tx, run, outcomeOf(run).item ?? (run.itemId ? yield* findItem(tx, run.itemId) : undefined)));
    }
    return listed;
  });
}

const PROGRESS_STEPS = 5;

/** How far the company got, in steps of the pipeline, and what it is doing now. */
function progressOf(run: RunRow, item: ItemSnapshot | null, checks: ItemChecks | null): TestRunDetailView["progress"] {
  const preparation = outcomeOf(run).preparation;
  if (!item) {
    if (preparation && !preparation.done) return { done: 0, of: PROGRESS_STEPS, label: `Making simulated companies on the sandbox (${preparation.created} of ${preparation.total})` };
    return { done: 0, of: PROGRESS_STEPS, label: isActive(run) ? "Waiting for a worker" : "Not started" };
  }
  const linked = item.state === "verified" || checks?.connection?.status === "Linked";
  const synced = item.state === "verified" || !!checks?.sync?.finishedAt;
  const done = [item.companyId, item.connectionId, linked, synced, item.state === "verified"].filter(Boolean).length;
  const labels: Record<MigrationItemState, string> = {
    pending: "Creating the company",
    company_created: "Creating the connection",
    connection_created: "Authorizing the connection with the migrated tokens",
    authorized: "Requesting a sync of every data type",
    sync_requested: item.dataTypes.length ? "Waiting for every data type to sync, then reading one back" : "Waiting for the sync to start",
    verified: "Verified",
    reauth_required: "Needs reauthorization",
    failed: "Failed",
    set_aside: "Set aside",
    reconnect_pending: "Waiting for its end customer to reconnect",
  };
  const label = isActive(run) || (FINAL_ITEM_STATES as readonly MigrationItemState[]).includes(item.state) ? labels[item.state] : "Stopped";
  return { done, of: PROGRESS_STEPS, label };
}

const span = (from: Date | null | undefined, to: Date | null | undefined) => (from && to ? Math.max(0, to.getTime() - from.getTime()) : null);

/** One run in full (see ZTestRunDetail). */
export function getTestRun(database: Database, actor: Actor, input: { engagementId: string; runId: string }): Promise<TestRunDetailView> {
  return readSteps(database, (tx) => testRunDetail(tx, actor, input));
}

/** One run in full, read inside `readSteps`. */
function* testRunDetail(tx: Tx, actor: Actor, input: { engagementId: string; runId: string }): Steps<TestRunDetailView> {
  yield* assertCanView(tx, actor, input.engagementId);
  const run = yield* findRun(tx, input.runId);
  if (!run || run.engagementId !== input.engagementId || !(TEST_RUN_KINDS as readonly string[]).includes(run.kind)) {
    throw new AppError("NOT_FOUND", "No such test run on this engagement.");
  }
  const outcome = outcomeOf(run);
  const active = isActive(run);
  const now = new Date();
  // A run that ended shows the company as it left it; a running one, as it is now.
  const row = run.itemId ? yield* findItem(tx, run.itemId) : undefined;
  const platformKey = (yield* findEngagement(tx, input.engagementId))?.platformKey ?? "";
  const item = (active ? undefined : outcome.item) ?? (row ? snapshotOf(row, now, platformKey) : null);
  const target =
    run.kind === "rehearsal"
      ? { name: "Built-in sandbox (a client of the rehearsal's own)", baseUrl: outcome.sandboxUrl ?? "" }
      : run.serviceTargetId
        ? ((yield* findServiceTarget(tx, run.serviceTargetId)) ?? null)
        : null;
  return {
    ...(yield* summary(tx, run, item ?? undefined)),
    target: target ? { name: target.name, baseUrl: target.baseUrl } : null,
    preparation: outcome.preparation ?? null,
    progress: progressOf(run, item, (row?.checks ?? null) as ItemChecks | null),
    item: item
      ? {
          id: item.id,
          name: item.name,
          externalRef: item.externalRef,
          records: item.records,
          state: item.state,
          companyId: item.companyId,
          connectionId: item.connectionId,
          attempts: item.attempts,
          lastError: readFailure(item.lastError),
        }
      : null,
    checks: outcome.checks ?? testChecks(row ?? NO_ITEM, active),
    dataTypes: item?.dataTypes ?? [],
    completeness: item?.completeness ?? null,
    failure: readFailure(outcome.failure),
    advice: outcome.advice ?? null,
    stepEffect: outcome.stepEffect ?? null,
    durations: {
      waitedMs: span(run.requestedAt, run.startedAt ?? (active ? now : null)),
      runMs: span(run.startedAt, run.finishedAt ?? (active ? now : null)),
      syncMs: item?.syncMs ?? null,
    },
    calls: (yield* listCallRows(tx, run.id)).map((c) => ({
      id: c.id,
      at: c.at,
      operation: c.operation,
      method: c.method,
      path: c.path,
      status: c.status,
      ok: c.ok,
      errorKind: c.errorKind,
      errorText: c.errorText,
      correlationId: c.correlationId,
      durationMs: c.durationMs,
      attempts: c.attempts,
    })),
  };
}

/** How many companies the test's picker lists at once; a search finds the others. */
export const TESTABLE_LISTED = 20;

/**
 * Companies of the engagement's token file support may pick for the test, smallest first (at most
 * TESTABLE_LISTED), with how many there are in all and how many the search matches, so the
 * picker can say what it leaves out.
 */
export function listTestableItems(database: Database, actor: Actor, input: { engagementId: string; search?: string }) {
  return readSteps(database, function* (tx) {
    yield* assertCanView(tx, actor, input.engagementId);
    const search = input.search?.trim() || undefined;
    const companies = (yield* searchRealItems(tx, { engagementId: input.engagementId, search, limit: TESTABLE_LISTED })).map((i) => ({
      id: i.id,
      name: i.name,
      externalRef: i.externalRef,
      records: i.recordsHint,
      state: i.state,
    }));
    const total = yield* countRealItems(tx, input.engagementId);
    return { companies, total, matching: search ? yield* countSearchedRealItems(tx, { engagementId: input.engagementId, search }) : total };
  });
}

/**
 * What step 5 offers the viewer now: the single-company test, the rehearsal, cancelling the run
 * under way — each allowed, or not with the reason the operation would refuse with.
 */
export async function getTestControls(database: Database, actor: Actor, engagementId: string): Promise<TestControlsView> {
  const c = await readSteps(database, function* (tx) {
    yield* assertCanView(tx, actor, engagementId);
    return yield* loadTestRunContext(tx, actor, engagementId);
  });
  return {
    pilot: toControl(pilotRefusal(c)),
    rehearsal: toControl(rehearsalRefusal(c)),
    cancel: toControl(cancelRefusal({ role: actor.role, run: c.running })),
  };
}
