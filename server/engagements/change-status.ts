/** Putting an engagement on hold, resuming it, or cancelling it (with a reason). */
import { readSteps, type Tx } from "@/db/database";
import type { Database, Steps } from "@/db/database";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { refuse } from "./access";
import { decideStatusChange, statusChangeInputRefusal } from "./checklist";
import { loadForChange, updateEngagement } from "./engagement-repository";
import type { EngagementStatus } from "@/core/engagements/states";
import { withNotice, type NotifyDeps } from "./waiting/notify";
import { refreshWaiting, type WaitingChange } from "./waiting/refresh-waiting";

/** Records a status change in the audit log (the one place every status change is audited). */
export function* recordStatusChange(
  tx: Tx,
  actor: Actor,
  change: { engagement: { id: string; organizationId: string; status: EngagementStatus }; to: EngagementStatus; reason?: string; at: Date },
): Steps<void> {
  const { engagement: eng, to, at } = change;
  const reason = change.reason?.trim();
  yield* writeAudit(tx, {
    actor,
    action: "engagement.status_changed",
    targetId: eng.id,
    engagementId: eng.id,
    organizationId: eng.organizationId,
    before: { status: eng.status },
    after: { status: to, ...(reason ? { reason } : {}) },
    at,
  });
}

/** Changes an engagement's status by hand: the checklist decides which changes are allowed. */
export async function changeStatus(
  database: Database,
  deps: NotifyDeps,
  actor: Actor,
  input: { engagementId: string; status: EngagementStatus; reason?: string },
): Promise<{ waiting: WaitingChange | null }> {
  const check = (from: EngagementStatus) => decideStatusChange({ role: actor.role, from, to: input.status });
  const first = await readSteps(database, (tx) => loadForChange(tx, input.engagementId));
  const pre = check(first.eng.status);
  if (!pre.ok) refuse(pre);
  const missing = statusChangeInputRefusal({ to: input.status, reason: input.reason });
  if (missing) refuse(missing);
  // Read committed: the change is decided on the engagement row, locked by loadForChange.
  return database.transaction(
    function* (tx) {
      const { eng } = yield* loadForChange(tx, input.engagementId);
      const d = check(eng.status);
      if (!d.ok) refuse(d);
      const now = new Date();
      yield* updateEngagement(tx, eng.id, { status: input.status, statusChangedAt: now }, now);
      yield* recordStatusChange(tx, actor, { engagement: eng, to: input.status, reason: input.reason, at: now });
      return yield* withNotice(tx, deps.notify, eng.id, { waiting: yield* refreshWaiting(tx, eng.id, now) });
    },
    { isolation: "read committed" },
  );
}
