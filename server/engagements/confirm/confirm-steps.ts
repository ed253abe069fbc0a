/**
 * The customer's confirmations of steps 3 (the callback URL is on their app) and 4 (old-app
 * syncing is off for every company in the file), each completing its step with structured
 * evidence (confirmation-evidence.ts) and who and when. Staff may confirm on the customer's
 * behalf with a note saying how the customer confirmed; the same evidence is recorded with it.
 * Support hears of it when the move passes to them (mailed with the change).
 */
import type { Database } from "@/db/database";
import type { Actor } from "@/core/accounts/actor";
import { actOnStep, type StepActionResult } from "../act-on-step";
import type { NotifyDeps } from "../waiting/notify";

type Confirmation = { engagementId: string; note?: string };

/** Step 3: the platform's callback URL is on the customer's registered OAuth app. */
export function confirmCallbackUrl(database: Database, deps: NotifyDeps, actor: Actor, input: Confirmation): Promise<StepActionResult> {
  return actOnStep(database, deps, actor, { engagementId: input.engagementId, step: 3, action: "complete", note: input.note });
}

/** Step 4: old-app syncing is off for every company in the file. */
export function confirmSyncingDisabled(database: Database, deps: NotifyDeps, actor: Actor, input: Confirmation): Promise<StepActionResult> {
  return actOnStep(database, deps, actor, { engagementId: input.engagementId, step: 4, action: "complete", note: input.note });
}
