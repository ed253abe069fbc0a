/** Support withdraws a window it proposed that the customer has not accepted. */
import { readSteps, type Tx } from "@/db/database";
import type { Database, Steps } from "@/db/database";
import { isStaff } from "@/core/accounts/roles";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { refreshWaiting, type WaitingChange } from "../waiting/refresh-waiting";
import { withNotice, type FlowNotice, type NotifyDeps } from "../waiting/notify";
import { enforce, loadWindowState, proposedWindow } from "./load-window-state";
import { windowText } from "./propose-window";
import { decideWindow } from "./window-repository";
import { withdrawRule } from "./window-rules";

function* check(tx: Tx, actor: Actor, input: { engagementId: string; windowId: string }) {
  const state = yield* loadWindowState(tx, actor, input.engagementId);
  enforce(withdrawRule(state.rule), isStaff(actor.role));
  return { ...state, window: yield* proposedWindow(tx, state.eng.id, input.windowId, "withdrawn") };
}

/** Withdraws one proposed window. */
export async function withdrawWindow(
  database: Database,
  deps: NotifyDeps,
  actor: Actor,
  input: { engagementId: string; windowId: string },
): Promise<{ waiting: WaitingChange | null; notice: FlowNotice }> {
  await readSteps(database, (tx) => check(tx, actor, input));
  // Read committed: check locks the engagement row (loadWindowState) before it reads the window;
  // every change of the engagement's windows locks it first too.
  return database.transaction(
    function* (tx): Steps<{ waiting: WaitingChange | null; notice: FlowNotice }> {
      const { eng, window } = yield* check(tx, actor, input);
      const at = new Date();
      yield* decideWindow(tx, window.id, { status: "withdrawn", decidedById: actor.id, decidedAt: at });
      yield* writeAudit(tx, {
        actor,
        action: "window.withdrawn",
        targetId: window.id,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        after: { startsAt: window.startsAt.toISOString(), endsAt: window.endsAt.toISOString() },
        at,
      });
      return yield* withNotice(tx, deps.notify, eng.id, {
        waiting: yield* refreshWaiting(tx, eng.id, at, eng),
        notice: { to: "customer", subject: "A proposed window was withdrawn", text: `${actor.name} withdrew the proposed migration window ${windowText(window)}.` },
      });
    },
    { isolation: "read committed" },
  );
}
