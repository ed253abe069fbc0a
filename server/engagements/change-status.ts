/** Putting an engagement on hold, resuming it, or cancelling it (with a reason). */
import { readSteps, type Tx } from "@/db/database";
import type { Database, Steps } from "@/db/database";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { refuse } from "./access";
import { decideStatusChange, statusChangeInputRefusal } from "./checklist";
import { creditMoveClock, loadForChange, storeMoveDeadlines, updateEngagement, type EngagementRow } from "./engagement-repository";
import { reasonsFor, type StatusReason } from "@/core/engagements/status-reasons";
import type { EngagementStatus } from "@/core/engagements/states";
import { withNotice, type NotifyDeps } from "./waiting/notify";
import { refreshWaiting, type WaitingChange } from "./waiting/refresh-waiting";

/** Records a status change in the audit log (the one place every status change is audited). */
export function* recordStatusChange(
  tx: Tx,
  actor: Actor,
  change: { engagement: { id: string; organizationId: string; status: EngagementStatus }; to: EngagementStatus; reasonCode?: StatusReason; reason?: string; at: Date },
): Steps<void> {
  const { engagement: eng, to, at, reasonCode } = change;
  const reason = change.reason?.trim();
  yield* writeAudit(tx, {
    actor,
    action: "engagement.status_changed",
    targetId: eng.id,
    engagementId: eng.id,
    organizationId: eng.organizationId,
    before: { status: eng.status },
    after: { status: to, ...(reasonCode ? { reasonCode } : {}), ...(reason ? { reason } : {}) },
    at,
  });
}

/**
 * The move's clock on a hold: it stops, keeping whose move it was and how long it had run
 * (core/engagements/clocks.ts); leaving the hold clears that (resumeMoveClock credits it).
 */
function pauseOrResume(eng: EngagementRow, to: EngagementStatus, at: Date): Pick<EngagementRow, "pausedMove"> | Record<string, never> {
  if (to === "on_hold") {
    const elapsedMs = eng.waitingOn && eng.waitingSince ? eng.moveCreditMs + Math.max(0, at.getTime() - eng.waitingSince.getTime()) : 0;
    return { pausedMove: eng.waitingOn ? { party: eng.waitingOn, elapsedMs } : null };
  }
  return eng.pausedMove ? { pausedMove: null } : {};
}

/** Changes an engagement's status by hand: the checklist decides which changes are allowed. */
export async function changeStatus(
  database: Database,
  deps: NotifyDeps,
  actor: Actor,
  input: { engagementId: string; status: EngagementStatus; reasonCode?: StatusReason; reason?: string },
): Promise<{ waiting: WaitingChange | null }> {
  const check = (from: EngagementStatus) => decideStatusChange({ role: actor.role, from, to: input.status });
  const first = await readSteps(database, (tx) => loadForChange(tx, input.engagementId));
  const pre = check(first.eng.status);
  if (!pre.ok) refuse(pre);
  const missing = statusChangeInputRefusal({ to: input.status, reasonCode: input.reasonCode, reason: input.reason });
  if (missing) refuse(missing);
  // Read committed: the change is decided on the engagement row, locked by loadForChange.
  return database.transaction(
    function* (tx) {
      const { eng } = yield* loadForChange(tx, input.engagementId);
      const d = check(eng.status);
      if (!d.ok) refuse(d);
      const now = new Date();
      const reason = reasonsFor(input.status).length ? { statusReason: input.reasonCode ?? null, statusNote: input.reason?.trim() || null } : { statusReason: null, statusNote: null };
      yield* updateEngagement(tx, eng.id, { status: input.status, statusChangedAt: now, ...reason, ...pauseOrResume(eng, input.status, now) }, now);
      yield* recordStatusChange(tx, actor, { engagement: eng, to: input.status, reasonCode: input.reasonCode, reason: input.reason, at: now });
      const waiting = yield* refreshWaiting(tx, eng.id, now);
      // After a hold, the same party's move resumes with the time it had already run.
      if (input.status === "active" && eng.pausedMove) {
        yield* creditMoveClock(tx, eng.id, eng.pausedMove);
        yield* storeMoveDeadlines(tx, eng.id);
      }
      return yield* withNotice(tx, deps.notify, eng.id, { waiting });
    },
    { isolation: "read committed" },
  );
}
