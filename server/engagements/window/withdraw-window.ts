/** Support withdraws a window it proposed that the customer has not accepted. */
import type { Db } from "@/db/client";
import { isStaff } from "@/core/accounts/roles";
import type { Actor } from "@/core/accounts/actor";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
import { refreshWaiting, type WaitingChange } from "../waiting/refresh-waiting";
import type { FlowNotice } from "../waiting/notify";
import { enforce, loadWindowState, proposedWindow } from "./load-window-state";
import { windowText } from "./propose-window";
import { decideWindow } from "./window-repository";
import { withdrawRule } from "./window-rules";

function check(tx: DbOrTx, actor: Actor, input: { engagementId: string; windowId: string }) {
  const state = loadWindowState(tx, actor, input.engagementId);
  enforce(withdrawRule(state.rule), isStaff(actor.role));
  return { ...state, window: proposedWindow(tx, state.eng.id, input.windowId, "withdrawn") };
}

/** Withdraws one proposed window. */
export function withdrawWindow(db: Db, actor: Actor, input: { engagementId: string; windowId: string }): { waiting: WaitingChange | null; notice: FlowNotice } {
  check(db, actor, input);
  return db.transaction((tx) => {
    const { eng, window } = check(tx, actor, input);
    const at = new Date();
    decideWindow(tx, window.id, { status: "withdrawn", decidedById: actor.id, decidedAt: at });
    recordAudit(tx, {
      actor,
      action: "window.withdrawn",
      targetId: window.id,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      after: { startsAt: window.startsAt.toISOString(), endsAt: window.endsAt.toISOString() },
      at,
    });
    return {
      waiting: refreshWaiting(tx, eng.id, at, eng),
      notice: { to: "customer", subject: "A proposed window was withdrawn", text: `${actor.name} withdrew the proposed migration window ${windowText(window)}.` },
    };
  });
}
