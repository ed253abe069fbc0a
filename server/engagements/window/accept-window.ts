/**
 * The customer accepts one proposed window, which completes step 2 with its evidence (the window
 * and the estimate beside it). The other proposed windows are superseded, and the engagement's
 * window is set.
 */
import { readSteps, type Tx } from "@/db/database";
import type { Database, Steps } from "@/db/database";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { applyStepAction } from "../act-on-step";
import { updateEngagement } from "../engagement-repository";
import { refreshWaiting, type WaitingChange } from "../waiting/refresh-waiting";
import { withNotice, type FlowNotice, type NotifyDeps } from "../waiting/notify";
import { enforce, loadWindowState, proposedWindow } from "./load-window-state";
import { windowText } from "./propose-window";
import { decideWindow, supersedeOpenWindows } from "./window-repository";
import { acceptWindowRule } from "./window-rules";

function* check(tx: Tx, actor: Actor, input: { engagementId: string; windowId: string }) {
  const state = yield* loadWindowState(tx, actor, input.engagementId);
  enforce(acceptWindowRule(state.rule), actor.role === "customer");
  return { ...state, window: yield* proposedWindow(tx, state.eng.id, input.windowId, "accepted") };
}

/** Accepts a proposed window and completes step 2. */
export async function acceptWindow(
  database: Database,
  deps: NotifyDeps,
  actor: Actor,
  input: { engagementId: string; windowId: string },
): Promise<{ waiting: WaitingChange | null; notice: FlowNotice }> {
  await readSteps(database, (tx) => check(tx, actor, input));
  // Read committed: check locks the engagement row (loadWindowState) before it reads the window,
  // so a withdrawal or another acceptance of the same engagement waits for this one.
  return database.transaction(
    function* (tx): Steps<{ waiting: WaitingChange | null; notice: FlowNotice }> {
      const { eng, window } = yield* check(tx, actor, input);
      const at = new Date();
      yield* decideWindow(tx, window.id, { status: "accepted", decidedById: actor.id, decidedAt: at });
      yield* supersedeOpenWindows(tx, eng.id, { decidedById: actor.id, decidedAt: at }, window.id);
      yield* updateEngagement(tx, eng.id, { windowStartsAt: window.startsAt, windowEndsAt: window.endsAt }, at);
      yield* applyStepAction(tx, actor, {
        engagementId: eng.id,
        step: 2,
        action: "complete",
        via: "flow",
        at,
        evidence: { kind: "window_accepted", proposalId: window.id, startsAt: window.startsAt, endsAt: window.endsAt, estimateSeconds: window.estimateSeconds },
      });
      yield* writeAudit(tx, {
        actor,
        action: "window.accepted",
        targetId: window.id,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        after: { startsAt: window.startsAt.toISOString(), endsAt: window.endsAt.toISOString() },
        at,
      });
      return yield* withNotice(tx, deps.notify, eng.id, {
        waiting: yield* refreshWaiting(tx, eng.id, at, eng),
        notice: { to: "support", subject: "Migration window accepted", text: `${actor.name} accepted the migration window ${windowText(window)}. Step 2 is done.` },
      });
    },
    { isolation: "read committed" },
  );
}
