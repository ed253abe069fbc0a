/**
 * Support reschedules the agreed window: step 2 reopens with the reason (the cascade applies:
 * steps gated on it reopen too), the accepted window is superseded and the engagement's window
 * cleared (after-steps-reopened.ts), and the customer is told. New windows are then proposed.
 */
import { readSteps } from "@/db/database";
import type { Database } from "@/db/database";
import { isStaff } from "@/core/accounts/roles";
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { applyStepAction } from "../act-on-step";
import { refreshWaiting, type WaitingChange } from "../waiting/refresh-waiting";
import { withNotice, type FlowNotice, type NotifyDeps } from "../waiting/notify";
import type { StepNumber } from "@/core/engagements/states";
import { enforce, loadWindowState } from "./load-window-state";
import { windowText } from "./propose-window";
import { rescheduleRule } from "./window-rules";

/** Reopens step 2 with a reason; returns the steps that reopened. */
export async function rescheduleWindow(
  database: Database,
  deps: NotifyDeps,
  actor: Actor,
  input: { engagementId: string; reason: string },
): Promise<{ changed: StepNumber[]; waiting: WaitingChange | null; notice: FlowNotice }> {
  const first = await readSteps(database, (tx) => loadWindowState(tx, actor, input.engagementId));
  enforce(rescheduleRule(first.rule), isStaff(actor.role));
  const reason = input.reason.trim();
  if (!reason) throw fieldError("reason", "Give a reason for rescheduling; the customer sees it.");
  // Read committed: loadWindowState locks the engagement row before the rule is decided.
  return database.transaction(
    function* (tx) {
      const { eng, rule } = yield* loadWindowState(tx, actor, input.engagementId);
      enforce(rescheduleRule(rule), true);
      if (!eng.windowStartsAt || !eng.windowEndsAt) throw new AppError("PRECONDITION_FAILED", "No window is agreed yet.");
      const old = { startsAt: eng.windowStartsAt, endsAt: eng.windowEndsAt };
      const at = new Date();
      const { changed } = yield* applyStepAction(tx, actor, { engagementId: eng.id, step: 2, action: "reopen", via: "flow", reason: `Rescheduled: ${reason}`, at });
      yield* writeAudit(tx, {
        actor,
        action: "window.rescheduled",
        targetId: eng.id,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        after: { startsAt: old.startsAt.toISOString(), endsAt: old.endsAt.toISOString(), reason },
        at,
      });
      return yield* withNotice(tx, deps.notify, eng.id, {
        changed,
        waiting: yield* refreshWaiting(tx, eng.id, at, eng),
        notice: {
          to: "customer",
          subject: "The migration window is being rescheduled",
          text: `${actor.name} cancelled the agreed window ${windowText(old)} to reschedule it:\n\n${reason}\n\nA new window will be proposed; the calendar invite for the old one no longer holds.`,
        },
      });
    },
    { isolation: "read committed" },
  );
}
