/**
 * What a reopened step 2 does to its windows, wherever the reopen comes from (a reschedule, a new
 * token file reopening step 1 and its dependents): every window still proposed or accepted is
 * superseded and the engagement's window cleared, so no stale window can be accepted or shown as
 * agreed while step 2 is open again. Runs inside the reopen's transaction.
 */
import type { Actor } from "@/core/accounts/actor";
import type { Steps, Tx } from "@/db/database";
import { updateEngagement } from "../engagement-repository";
import type { StepNumber } from "@/core/engagements/states";
import { supersedeOpenWindows } from "./window-repository";

/** Supersedes the open windows and clears the agreed one when step 2 is among the reopened steps. */
export function* afterStepsReopened(tx: Tx, actor: Actor, params: { engagementId: string; steps: readonly StepNumber[]; at: Date }): Steps<void> {
  if (!params.steps.includes(2)) return;
  yield* supersedeOpenWindows(tx, params.engagementId, { decidedById: actor.id, decidedAt: params.at });
  yield* updateEngagement(tx, params.engagementId, { windowStartsAt: null, windowEndsAt: null }, params.at);
}
