/**
 * Applies the waiting rule after a change, inside the change's transaction: reads the state the
 * rule needs, records whose move it now is, and says whether it changed hands (so the caller can
 * queue the mail to the party that now has the move in the same transaction: waiting/notify.ts).
 */
import type { Steps, Tx } from "@/db/database";
import { loadForChange, storeMoveDeadlines, updateWaiting } from "../engagement-repository";
import type { WaitingParty } from "@/core/engagements/flow-states";
import { loadWaitingInput } from "./waiting-input";
import { whoseMove, type Waiting } from "./waiting-rule";

/** A change of hands, for the mail to the party that now has the move. */
export type WaitingChange = Waiting & { engagementId: string; from: WaitingParty | null; party: WaitingParty };

/**
 * Recomputes whose move it is and stores it; `waitingSince` moves only when the party changes.
 * Returns the change when the move passed to a party (not when it passed to nobody), compared
 * with `before` — the party before the caller's whole change, when the caller made several
 * (a flow whose step change already refreshed it) — or else with the party stored until now.
 */
export function* refreshWaiting(tx: Tx, engagementId: string, at: Date, before?: { waitingOn: WaitingParty | null }): Steps<WaitingChange | null> {
  const { eng, states } = yield* loadForChange(tx, engagementId);
  const waiting = whoseMove(yield* loadWaitingInput(tx, eng, states));
  if (waiting.party !== eng.waitingOn) yield* updateWaiting(tx, engagementId, { waitingOn: waiting.party, waitingSince: waiting.party ? at : null });
  // The move's deadlines follow the party, the step and the status (the portfolio's clocks).
  yield* storeMoveDeadlines(tx, engagementId);
  const from = before ? before.waitingOn : eng.waitingOn;
  return waiting.party && waiting.party !== from ? { ...waiting, party: waiting.party, engagementId, from } : null;
}
