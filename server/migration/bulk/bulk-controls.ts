/**
 * The bulk run's controls: start, pause, resume, cancel, retry the failed companies, set one
 * company aside, retry one. Each is checked against the rules (rules.ts) before its transaction
 * and again inside it, changes the run or its companies in that transaction and is audited. The
 * worker notices a pause or a cancel at its next lease renewal (within a second) and lets go.
 */
import { runSync } from "@/db/database";
import type { Db } from "@/db/client";
import { refuse } from "@/server/engagements/access";
import { applyStepAction } from "@/server/engagements/act-on-step";
import { loadForChange, type EngagementRow } from "@/server/engagements/engagement-repository";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
import { targetUseRefusal } from "@/server/targets/rules";
import { findServiceTarget } from "@/server/targets/targets";
import { findHandover } from "../handover/handover-repository";
import { findRealItem } from "../engine/item-repository";
import { insertRun, type RunRow } from "../engine/run-repository";
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
} from "./rules";
import type { FlowNotice } from "@/server/engagements/waiting/notify";
import { windowText } from "@/server/engagements/window/propose-window";
import { formatDuration } from "@/core/format";
import { companiesText } from "@/core/words";
import { reconcile } from "../reconciliation";

const UNFINISHED: readonly MigrationItemState[] = MIGRATION_ITEM_STATES.filter((s) => !(FINAL_ITEM_STATES as readonly string[]).includes(s));

/** What the rules need, read as things stand (at `now`). */
export function loadBulkContext(
  tx: DbOrTx,
  actor: Actor,
  engagementId: string,
  now: Date = new Date(),
): BulkContext & { eng: EngagementRow; latest: RunRow | undefined; counts: Record<MigrationItemState, number> } {
  const { eng, states } = runSync(loadForChange(tx, engagementId));
  const latest = runSync(latestBulkRun(tx, engagementId));
  const counts = runSync(realCountsByState(tx, engagementId));
  return {
    eng,
    latest,
    counts,
    role: actor.role,
    engagementStatus: eng.status,
    states,
    targetRefusal: eng.serviceTargetId === null ? "Choose the engagement's service target first." : targetRefusalOf(tx, eng.serviceTargetId, eng.organizationId),
    runTargetRefusal: latest?.serviceTargetId ? targetRefusalOf(tx, latest.serviceTargetId, eng.organizationId) : null,
    run: latest ? { status: latest.status } : null,
    unfinished: UNFINISHED.reduce((n, s) => n + counts[s], 0),
    failed: counts.failed,
    handoverProduced: runSync(findHandover(tx, engagementId)) !== undefined,
    window: eng.windowStartsAt && eng.windowEndsAt ? { startsAt: eng.windowStartsAt, endsAt: eng.windowEndsAt } : null,
    now,
  };
}

/** Why an engagement of `organizationId` may not migrate into the target, or null. */
function targetRefusalOf(tx: DbOrTx, targetId: string, organizationId: string): string | null {
  const target = runSync(findServiceTarget(tx, targetId));
  return target ? targetUseRefusal(target, organizationId) : "The service target no longer exists: choose another.";
}

const check = (refusal: ReturnType<typeof startRefusal>) => {
  if (refusal) refuse(refusal);
};

/**
 * Starts the bulk migration of every real company not yet in a final state; starts step 6.
 * Outside the agreed window it needs a reason: recorded with the start, and the customer is told
 * (the returned notice, mailed by the caller once the transaction has committed).
 */
export function startBulkRun(db: Db, actor: Actor, input: { engagementId: string; reason?: string; now?: Date }): { runId: string; notice: FlowNotice | null } {
  const first = loadBulkContext(db, actor, input.engagementId, input.now);
  check(startRefusal(first));
  check(startReasonRefusal(first, input.reason));
  const runId = crypto.randomUUID();
  return db.transaction((tx) => {
    const now = input.now ?? new Date();
    const c = loadBulkContext(tx, actor, input.engagementId, now);
    check(startRefusal(c));
    check(startReasonRefusal(c, input.reason));
    const target = runSync(findServiceTarget(tx, c.eng.serviceTargetId!));
    runSync(insertRun(tx, { id: runId, engagementId: c.eng.id, kind: "bulk", serviceTargetId: c.eng.serviceTargetId, itemId: null, requestedById: actor.id, now, outcome: {} }));
    const companies = runSync(attachToRun(tx, { engagementId: c.eng.id, runId, states: UNFINISHED, now }));
    const reconciliation = runSync(reconcile(tx, c.eng.id));
    if (c.states[6] === "pending") runSync(applyStepAction(tx, actor, { engagementId: c.eng.id, step: 6, action: "start", via: "flow", at: now }));
    const outside = outsideWindowStart(c.window, now, input.reason);
    recordAudit(tx, {
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
    return { runId, notice: outside ? outside.notice(actor, companies) : null };
  });
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
export function pauseBulkRun(db: Db, actor: Actor, input: { engagementId: string; reason?: string }): void {
  check(pauseRefusal(loadBulkContext(db, actor, input.engagementId)));
  db.transaction((tx) => {
    const c = loadBulkContext(tx, actor, input.engagementId);
    check(pauseRefusal(c));
    const now = new Date();
    const reason = input.reason?.trim() || undefined;
    runSync(setBulkStatus(tx, { runId: c.latest!.id, from: ["queued", "running"], to: "paused", reason: reason ? `Paused by ${actor.name}: ${reason}` : `Paused by ${actor.name}.`, now }));
    recordAudit(tx, { actor, action: "migration.bulk_paused", targetId: c.latest!.id, engagementId: c.eng.id, organizationId: c.eng.organizationId, after: { reason }, at: now });
  });
}

/** Resumes a paused or stopped run: it goes back to the worker (a stop's cause should be fixed first). */
export function resumeBulkRun(db: Db, actor: Actor, input: { engagementId: string }): void {
  check(resumeRefusal(loadBulkContext(db, actor, input.engagementId)));
  db.transaction((tx) => {
    const c = loadBulkContext(tx, actor, input.engagementId);
    check(resumeRefusal(c));
    const run = c.latest!;
    const now = new Date();
    runSync(setBulkStatus(tx, { runId: run.id, from: ["paused", "stopped"], to: "queued", reason: null, now }));
    recordAudit(tx, {
      actor,
      action: "migration.bulk_resumed",
      targetId: run.id,
      engagementId: c.eng.id,
      organizationId: c.eng.organizationId,
      before: { status: run.status, reason: run.statusReason },
      at: now,
    });
  });
}

/** Cancels the run: the unfinished companies keep their states (a new run carries on from them). */
export function cancelBulkRun(db: Db, actor: Actor, input: { engagementId: string; reason: string }): void {
  check(cancelRefusal(loadBulkContext(db, actor, input.engagementId)));
  db.transaction((tx) => {
    const c = loadBulkContext(tx, actor, input.engagementId);
    check(cancelRefusal(c));
    const now = new Date();
    const reason = input.reason.trim();
    runSync(setBulkStatus(tx, { runId: c.latest!.id, from: OPEN_BULK_STATUSES, to: "cancelled", reason: `Cancelled by ${actor.name}: ${reason}`, now, finished: true }));
    recordAudit(tx, {
      actor,
      action: "migration.bulk_cancelled",
      targetId: c.latest!.id,
      engagementId: c.eng.id,
      organizationId: c.eng.organizationId,
      after: { reason, unfinished: c.unfinished },
      at: now,
    });
  });
}


/** Retries every failed company in the latest run (reopened if it had ended). */
export function retryFailedItems(db: Db, actor: Actor, input: { engagementId: string }): { count: number } {
  check(retryFailedRefusal(loadBulkContext(db, actor, input.engagementId)));
  return db.transaction((tx) => {
    const c = loadBulkContext(tx, actor, input.engagementId);
    check(retryFailedRefusal(c));
    const now = new Date();
    const run = c.latest!;
    const n = runSync(attachToRun(tx, { engagementId: c.eng.id, runId: run.id, states: ["failed"], now }));
    runSync(reopenRun(tx, run, now));
    recordAudit(tx, { actor, action: "migration.bulk_retry_failed", targetId: run.id, engagementId: c.eng.id, organizationId: c.eng.organizationId, after: { companies: n }, at: now });
    return { count: n };
  });
}

function loadItem(tx: DbOrTx, engagementId: string, itemId: string) {
  const item = runSync(findRealItem(tx, engagementId, itemId));
  if (!item) throw new AppError("NOT_FOUND", "No such company in this engagement's token file.");
  return item;
}

/** Sets one company aside with a reason: it is not migrated (the handover report says why). */
export function setItemAsideControl(db: Db, actor: Actor, input: { engagementId: string; itemId: string; reason: string }): void {
  const pre = loadBulkContext(db, actor, input.engagementId);
  check(itemActionsRefusal(pre));
  const before = loadItem(db, input.engagementId, input.itemId);
  check(setAsideItemRefusal(before.state, before.name));
  db.transaction((tx) => {
    const c = loadBulkContext(tx, actor, input.engagementId);
    check(itemActionsRefusal(c));
    const item = loadItem(tx, input.engagementId, input.itemId);
    check(setAsideItemRefusal(item.state, item.name));
    const now = new Date();
    const reason = input.reason.trim();
    runSync(setItemAside(tx, { itemId: item.id, reason, now }));
    recordAudit(tx, {
      actor,
      action: "migration_item.set_aside",
      targetId: item.id,
      engagementId: c.eng.id,
      organizationId: c.eng.organizationId,
      before: { state: item.state },
      after: { company: item.name, reason },
      at: now,
    });
  });
}

/** Retries one company that failed, needs reauthorization or was set aside, in the latest run. */
export function retryItemControl(db: Db, actor: Actor, input: { engagementId: string; itemId: string }): void {
  const pre = loadBulkContext(db, actor, input.engagementId);
  check(itemActionsRefusal(pre));
  const before = loadItem(db, input.engagementId, input.itemId);
  check(retryItemRefusal(before.state, before.name, pre.latest?.status ?? null, pre.runTargetRefusal));
  db.transaction((tx) => {
    const c = loadBulkContext(tx, actor, input.engagementId);
    check(itemActionsRefusal(c));
    const item = loadItem(tx, input.engagementId, input.itemId);
    check(retryItemRefusal(item.state, item.name, c.latest?.status ?? null, c.runTargetRefusal));
    const now = new Date();
    const run = c.latest!;
    runSync(attachToRun(tx, { engagementId: c.eng.id, runId: run.id, states: [item.state], itemId: item.id, now }));
    runSync(reopenRun(tx, run, now));
    recordAudit(tx, {
      actor,
      action: "migration_item.retried",
      targetId: item.id,
      engagementId: c.eng.id,
      organizationId: c.eng.organizationId,
      before: { state: item.state },
      after: { company: item.name },
      at: now,
    });
  });
}
