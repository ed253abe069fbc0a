/**
 * The bulk run's controls: start, pause, resume, cancel, retry the failed companies, set one
 * company aside, retry one. Each is checked against the rules (rules.ts) before its transaction
 * (a quick refusal) and again inside it, changes the run or its companies in that transaction and
 * is audited. The worker notices a pause or a cancel at its next lease renewal (within a second)
 * and lets go.
 *
 * Locks (PostgreSQL; on SQLite the transaction is the only writer anyway), all at read committed:
 * every control locks the engagement row first (loadForChange), so two controls of one engagement
 * (two starts, a start and a retry…) queue and the second decides on what the first left. The
 * worker changes a run's status and its companies without that lock, so a control also locks the
 * latest run's row before it reads its status, and the company's row before it reads its state.
 */
import { eq } from "drizzle-orm";
import { migrationItems } from "@/db/schema";
import { forUpdate, q, readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { refuse } from "@/server/engagements/access";
import { applyStepAction } from "@/server/engagements/act-on-step";
import { loadForChange, type EngagementRow } from "@/server/engagements/engagement-repository";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { targetUseRefusal } from "@/server/targets/rules";
import { findServiceTarget } from "@/server/targets/targets";
import { realItems } from "@/server/items/item-scope";
import { findHandover } from "../handover/handover-repository";
import { findRealItem, type ItemRow } from "../engine/item-repository";
import { insertRun, lockRun, type RunRow } from "../engine/run-repository";
import { FINAL_ITEM_STATES, MIGRATION_ITEM_STATES, type MigrationItemState } from "@/core/migration/states";
import { attachToRun, latestBulkRun, realCountsByState, reopenRun, setBulkStatus, setItemAside } from "./bulk-repository";
import {
  cancelRefusal,
  itemActionsRefusal,
  OPEN_BULK_STATUSES,
  pauseRefusal,
  resumeRefusal,
  retryFailedRefusal,
  retryItemRefusal,
  setAsideItemRefusal,
  startReasonRefusal,
  startRefusal,
  windowPosition,
  type AgreedWindow,
  type BulkContext,
  type CommonContext,
} from "./rules";
import { withNotice, type FlowNotice, type NotifyDeps } from "@/server/engagements/waiting/notify";
import { windowText } from "@/server/engagements/window/propose-window";
import { formatDuration } from "@/core/format";
import { companiesText } from "@/core/words";
import { reconcile } from "../reconciliation";

const UNFINISHED: readonly MigrationItemState[] = MIGRATION_ITEM_STATES.filter((s) => !(FINAL_ITEM_STATES as readonly string[]).includes(s));

/** The context the rules need, with the engagement, its latest bulk run and its companies per state. */
export type LoadedBulkContext = BulkContext & { eng: EngagementRow; latest: RunRow | undefined; counts: Record<MigrationItemState, number> };

/**
 * What the rules need, read as things stand (at `now`); a transaction step. The engagement row is
 * locked first (loadForChange). `lockRun`: the latest run is read with its row locked too, for a
 * control about to change it (the worker may change its status meanwhile otherwise).
 */
export function* loadBulkContext(
  tx: Tx,
  actor: Actor,
  engagementId: string,
  now: Date = new Date(),
  options: { lockRun?: boolean; counts?: Record<MigrationItemState, number> } = {},
): Steps<LoadedBulkContext> {
  const { eng, states } = yield* loadForChange(tx, engagementId);
  const found = yield* latestBulkRun(tx, engagementId);
  // Which run is the latest cannot change meanwhile: a run is only added under the engagement's lock.
  const latest = found && options.lockRun ? yield* lockRun(tx, found.id) : found;
  // A caller that read the counts in the same transaction (the overview, with the reconciliation's) passes them.
  const counts = options.counts ?? (yield* realCountsByState(tx, engagementId));
  return {
    eng,
    latest,
    counts,
    role: actor.role,
    engagementStatus: eng.status,
    states,
    targetRefusal: eng.serviceTargetId === null ? "Choose the engagement's service target first." : yield* targetRefusalOf(tx, eng.serviceTargetId, eng.organizationId),
    runTargetRefusal: latest?.serviceTargetId ? yield* targetRefusalOf(tx, latest.serviceTargetId, eng.organizationId) : null,
    run: latest ? { status: latest.status } : null,
    unfinished: UNFINISHED.reduce((n, s) => n + counts[s], 0),
    failed: counts.failed,
    handoverProduced: (yield* findHandover(tx, engagementId)) !== undefined,
    window: eng.windowStartsAt && eng.windowEndsAt ? { startsAt: eng.windowStartsAt, endsAt: eng.windowEndsAt } : null,
    now,
  };
}

/**
 * What a page of companies needs to offer their actions (itemActionsRefusal) and retries: the rules'
 * common facts and the latest run, without counting the companies; a transaction step.
 */
export function* loadItemActionsContext(tx: Tx, actor: Actor, engagementId: string): Steps<CommonContext & { eng: EngagementRow; latest: RunRow | undefined }> {
  const { eng, states } = yield* loadForChange(tx, engagementId);
  return {
    eng,
    role: actor.role,
    engagementStatus: eng.status,
    states,
    handoverProduced: (yield* findHandover(tx, engagementId)) !== undefined,
    latest: yield* latestBulkRun(tx, engagementId),
  };
}

/** Why an engagement of `organizationId` may not migrate into the target, or null. */
function* targetRefusalOf(tx: Tx, targetId: string, organizationId: string): Steps<string | null> {
  const target = yield* findServiceTarget(tx, targetId);
  return target ? targetUseRefusal(target, organizationId) : "The service target no longer exists: choose another.";
}

const check = (refusal: ReturnType<typeof startRefusal>) => {
  if (refusal) refuse(refusal);
};

/** The context for a quick refusal before a control's transaction (nothing locked for long). */
const contextNow = (database: Database, actor: Actor, engagementId: string, now?: Date) => readSteps(database, (tx) => loadBulkContext(tx, actor, engagementId, now));

/** Every control's transaction: read committed, with the rows it decides on locked (see the module comment). */
const LOCKED = { isolation: "read committed" } as const;

/**
 * Starts the bulk migration of every real company not yet in a final state; starts step 6.
 * Outside the agreed window it needs a reason: recorded with the start, and the customer is told
 * (the returned notice, queued in the start's own transaction).
 */
export async function startBulkRun(database: Database, deps: NotifyDeps, actor: Actor, input: { engagementId: string; reason?: string; now?: Date }): Promise<{ runId: string; notice: FlowNotice | null }> {
  const first = await contextNow(database, actor, input.engagementId, input.now);
  check(startRefusal(first));
  check(startReasonRefusal(first, input.reason));
  // Made once, before the transaction: a retried transaction starts the same run.
  const runId = crypto.randomUUID();
  // Of two starts at once, the second waits on the engagement's row, then finds the first's run
  // open and is refused.
  return database.transaction(function* (tx) {
    const now = input.now ?? new Date();
    const c = yield* loadBulkContext(tx, actor, input.engagementId, now, { lockRun: true });
    check(startRefusal(c));
    check(startReasonRefusal(c, input.reason));
    const target = yield* findServiceTarget(tx, c.eng.serviceTargetId!);
    yield* insertRun(tx, { id: runId, engagementId: c.eng.id, kind: "bulk", serviceTargetId: c.eng.serviceTargetId, itemId: null, requestedById: actor.id, now, outcome: {} });
    const companies = yield* attachToRun(tx, { engagementId: c.eng.id, runId, states: UNFINISHED, now });
    const reconciliation = yield* reconcile(tx, c.eng.id);
    if (c.states[6] === "pending") yield* applyStepAction(tx, actor, { engagementId: c.eng.id, step: 6, action: "start", via: "flow", at: now });
    const outside = outsideWindowStart(c.window, now, input.reason);
    yield* writeAudit(tx, {
      actor,
      action: "migration.bulk_started",
      targetId: runId,
      engagementId: c.eng.id,
      organizationId: c.eng.organizationId,
      after: {
        companies,
        target: target?.name ?? "the service target",
        supplied: reconciliation.supplied,
        pilot: reconciliation.pilot?.name ?? null,
        ...(outside ? { outsideWindow: outside.audit } : {}),
      },
      at: now,
    });
    return yield* withNotice(tx, deps.notify, c.eng.id, { runId, notice: outside ? outside.notice(actor, companies) : null });
  }, LOCKED);
}

/** A start outside the agreed window: what the audit keeps and what the customer is told; null inside it or without one. */
function outsideWindowStart(window: AgreedWindow | null, now: Date, reason: string | undefined) {
  if (!window || !reason?.trim()) return null;
  const position = windowPosition(window, now);
  if (position === "inside") return null;
  const bySeconds = Math.round(Math.abs((position === "before" ? window.startsAt : window.endsAt).getTime() - now.getTime()) / 1000);
  const text = reason.trim();
  return {
    audit: { position, startsAt: window.startsAt.toISOString(), endsAt: window.endsAt.toISOString(), bySeconds, reason: text },
    notice: (actor: Actor, companies: number): FlowNotice => ({
      to: "customer",
      subject: position === "before" ? "The bulk migration started before the agreed window" : "The bulk migration started after the agreed window",
      text: `${actor.name} started the bulk migration of ${companiesText(companies)} ${formatDuration(bySeconds)} ${position} the agreed window ${windowText(window)}, saying why:\n\n${text}\n\nYou can follow it on the engagement's page.`,
    }),
  };
}

/** Pauses the run: the worker lets go within a second; the companies keep their states. */
export async function pauseBulkRun(database: Database, actor: Actor, input: { engagementId: string; reason?: string }): Promise<void> {
  check(pauseRefusal(await contextNow(database, actor, input.engagementId)));
  await database.transaction(function* (tx) {
    const c = yield* loadBulkContext(tx, actor, input.engagementId, new Date(), { lockRun: true });
    check(pauseRefusal(c));
    const now = new Date();
    const reason = input.reason?.trim() || undefined;
    yield* setBulkStatus(tx, { runId: c.latest!.id, from: ["queued", "running"], to: "paused", reason: reason ? `Paused by ${actor.name}: ${reason}` : `Paused by ${actor.name}.`, now });
    yield* writeAudit(tx, { actor, action: "migration.bulk_paused", targetId: c.latest!.id, engagementId: c.eng.id, organizationId: c.eng.organizationId, after: { reason }, at: now });
  }, LOCKED);
}

/** Resumes a paused or stopped run: it goes back to the worker (a stop's cause should be fixed first). */
export async function resumeBulkRun(database: Database, actor: Actor, input: { engagementId: string }): Promise<void> {
  check(resumeRefusal(await contextNow(database, actor, input.engagementId)));
  await database.transaction(function* (tx) {
    const c = yield* loadBulkContext(tx, actor, input.engagementId, new Date(), { lockRun: true });
    check(resumeRefusal(c));
    const run = c.latest!;
    const now = new Date();
    yield* setBulkStatus(tx, { runId: run.id, from: ["paused", "stopped"], to: "queued", reason: null, now });
    yield* writeAudit(tx, {
      actor,
      action: "migration.bulk_resumed",
      targetId: run.id,
      engagementId: c.eng.id,
      organizationId: c.eng.organizationId,
      before: { status: run.status, reason: run.statusReason },
      at: now,
    });
  }, LOCKED);
}

/** Cancels the run: the unfinished companies keep their states (a new run carries on from them). */
export async function cancelBulkRun(database: Database, actor: Actor, input: { engagementId: string; reason: string }): Promise<void> {
  check(cancelRefusal(await contextNow(database, actor, input.engagementId)));
  await database.transaction(function* (tx) {
    const c = yield* loadBulkContext(tx, actor, input.engagementId, new Date(), { lockRun: true });
    check(cancelRefusal(c));
    const now = new Date();
    const reason = input.reason.trim();
    yield* setBulkStatus(tx, { runId: c.latest!.id, from: OPEN_BULK_STATUSES, to: "cancelled", reason: `Cancelled by ${actor.name}: ${reason}`, now, finished: true });
    yield* writeAudit(tx, {
      actor,
      action: "migration.bulk_cancelled",
      targetId: c.latest!.id,
      engagementId: c.eng.id,
      organizationId: c.eng.organizationId,
      after: { reason, unfinished: c.unfinished },
      at: now,
    });
  }, LOCKED);
}

/** Retries every failed company in the latest run (reopened if it had ended). */
export async function retryFailedItems(database: Database, actor: Actor, input: { engagementId: string }): Promise<{ count: number }> {
  check(retryFailedRefusal(await contextNow(database, actor, input.engagementId)));
  return database.transaction(function* (tx) {
    const c = yield* loadBulkContext(tx, actor, input.engagementId, new Date(), { lockRun: true });
    check(retryFailedRefusal(c));
    const now = new Date();
    const run = c.latest!;
    // One statement on the companies failed as it runs: one failing meanwhile is retried too.
    const n = yield* attachToRun(tx, { engagementId: c.eng.id, runId: run.id, states: ["failed"], now });
    yield* reopenRun(tx, run, now);
    yield* writeAudit(tx, { actor, action: "migration.bulk_retry_failed", targetId: run.id, engagementId: c.eng.id, organizationId: c.eng.organizationId, after: { companies: n }, at: now });
    return { count: n };
  }, LOCKED);
}

/**
 * One of the engagement's real companies, NOT_FOUND when it is none. `lock`: its row is locked
 * until the transaction ends (FOR UPDATE on PostgreSQL), so a worker storing a call result for it
 * waits and then finds its lease gone, instead of the control deciding on a state that is no longer.
 */
function* loadItem(tx: Tx, engagementId: string, itemId: string, lock: boolean): Steps<ItemRow> {
  const item = lock
    ? yield* q.get(forUpdate(tx.select().from(migrationItems).where(realItems(engagementId, eq(migrationItems.id, itemId)))))
    : yield* findRealItem(tx, engagementId, itemId);
  if (!item) throw new AppError("NOT_FOUND", "No such company in this engagement's token file.");
  return item;
}

/** Sets one company aside with a reason: it is not migrated (the handover report says why). */
export async function setItemAsideControl(database: Database, actor: Actor, input: { engagementId: string; itemId: string; reason: string }): Promise<void> {
  await readSteps(database, function* (tx) {
    check(itemActionsRefusal(yield* loadBulkContext(tx, actor, input.engagementId)));
    const before = yield* loadItem(tx, input.engagementId, input.itemId, false);
    check(setAsideItemRefusal(before.state, before.name));
  });
  await database.transaction(function* (tx) {
    const c = yield* loadBulkContext(tx, actor, input.engagementId, new Date(), { lockRun: true });
    check(itemActionsRefusal(c));
    const item = yield* loadItem(tx, input.engagementId, input.itemId, true);
    check(setAsideItemRefusal(item.state, item.name));
    const now = new Date();
    const reason = input.reason.trim();
    yield* setItemAside(tx, { itemId: item.id, reason, now });
    yield* writeAudit(tx, {
      actor,
      action: "migration_item.set_aside",
      targetId: item.id,
      engagementId: c.eng.id,
      organizationId: c.eng.organizationId,
      before: { state: item.state },
      after: { company: item.name, reason },
      at: now,
    });
  }, LOCKED);
}

/** Retries one company that failed, needs reauthorization or was set aside, in the latest run. */
export async function retryItemControl(database: Database, actor: Actor, input: { engagementId: string; itemId: string }): Promise<void> {
  await readSteps(database, function* (tx) {
    const pre = yield* loadBulkContext(tx, actor, input.engagementId);
    check(itemActionsRefusal(pre));
    const before = yield* loadItem(tx, input.engagementId, input.itemId, false);
    check(retryItemRefusal(before.state, before.name, pre.latest?.status ?? null, pre.runTargetRefusal));
  });
  await database.transaction(function* (tx) {
    const c = yield* loadBulkContext(tx, actor, input.engagementId, new Date(), { lockRun: true });
    check(itemActionsRefusal(c));
    const item = yield* loadItem(tx, input.engagementId, input.itemId, true);
    check(retryItemRefusal(item.state, item.name, c.latest?.status ?? null, c.runTargetRefusal));
    const now = new Date();
    const run = c.latest!;
    yield* attachToRun(tx, { engagementId: c.eng.id, runId: run.id, states: [item.state], itemId: item.id, now });
    yield* reopenRun(tx, run, now);
    yield* writeAudit(tx, {
      actor,
      action: "migration_item.retried",
      targetId: item.id,
      engagementId: c.eng.id,
      organizationId: c.eng.organizationId,
      before: { state: item.state },
      after: { company: item.name },
      at: now,
    });
  }, LOCKED);
}
