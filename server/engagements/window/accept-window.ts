/**
 * The customer accepts one proposed window, which completes step 2 with its evidence (the window
 * and the estimate beside it). The other proposed windows are superseded, and the engagement's
 * window is set.
 */
import type { Db } from "@/db/client";
import type { Actor } from "@/core/accounts/actor";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
import { applyStepAction } from "../act-on-step";
import { updateEngagement } from "../engagement-repository";
import { refreshWaiting, type WaitingChange } from "../waiting/refresh-waiting";
import type { FlowNotice } from "../waiting/notify";
import { enforce, loadWindowState, proposedWindow } from "./load-window-state";
import { windowText } from "./propose-window";
import { decideWindow, supersedeOpenWindows } from "./window-repository";
import { acceptWindowRule } from "./window-rules";

function check(tx: DbOrTx, actor: Actor, input: { engagementId: string; windowId: string }) {
  const state = loadWindowState(tx, actor, input.engagementId);
  enforce(acceptWindowRule(state.rule), actor.role === "customer");
  return { ...state, window: proposedWindow(tx, state.eng.id, input.windowId, "accepted") };
}

/** Accepts a proposed window and completes step 2. */
export function acceptWindow(db: Db, actor: Actor, input: { engagementId: string; windowId: string }): { waiting: WaitingChange | null; notice: FlowNotice } {
  check(db, actor, input);
  return db.transaction((tx) => {
    const { eng, window } = check(tx, actor, input);
    const at = new Date();
    decideWindow(tx, window.id, { status: "accepted", decidedById: actor.id, decidedAt: at });
    supersedeOpenWindows(tx, eng.id, { decidedById: actor.id, decidedAt: at }, window.id);
    updateEngagement(tx, eng.id, { windowStartsAt: window.startsAt, windowEndsAt: window.endsAt }, at);
    applyStepAction(tx, actor, {
      engagementId: eng.id,
      step: 2,
      action: "complete",
      via: "flow",
      at,
      evidence: { kind: "window_accepted", proposalId: window.id, startsAt: window.startsAt, endsAt: window.endsAt, estimateSeconds: window.estimateSeconds },
    });
    recordAudit(tx, {
      actor,
      action: "window.accepted",
      targetId: window.id,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      after: { startsAt: window.startsAt.toISOString(), endsAt: window.endsAt.toISOString() },
      at,
    });
    return {
      waiting: refreshWaiting(tx, eng.id, at, eng),
      notice: { to: "support", subject: "Migration window accepted", text: `${actor.name} accepted the migration window ${windowText(window)}. Step 2 is done.` },
    };
  });
}
