/**
 * The structured evidence of a customer's confirmation (steps 3 and 4), recorded whoever confirms
 * (the customer in the portal, or staff on their behalf with a note): the callback URL confirmed,
 * and step 4's risk as it stood. Read inside the completing transaction.
 */
import { getManagedPlatform } from "@/server/platforms";
import type { Steps, Tx } from "@/db/database";
import { findEngagement } from "../engagement-repository";
import type { FlowEvidence } from "@/core/engagements/evidence";
import { findCurrentSubmission, tokenExpiryCounts } from "../intake/intake-repository";
import type { StepNumber } from "@/core/engagements/states";

/** The evidence a confirmation of `step` records; undefined for other steps (or without an accepted file, for step 4). */
export function* confirmationEvidence(tx: Tx, params: { engagementId: string; step: StepNumber; now: Date }): Steps<FlowEvidence | undefined> {
  if (params.step !== 3 && params.step !== 4) return undefined;
  const eng = yield* findEngagement(tx, params.engagementId);
  const platform = eng && getManagedPlatform(eng.platformKey);
  if (!platform) return undefined;
  if (params.step === 3) return { kind: "callback_confirmed", callbackUrl: platform.callbackUrl };
  const submission = yield* findCurrentSubmission(tx, params.engagementId);
  if (submission?.status !== "accepted") return undefined;
  const counts = yield* tokenExpiryCounts(tx, params.engagementId, params.now);
  return {
    kind: "syncing_disabled",
    fileSubmittedAt: submission.submittedAt,
    expiredAccessTokens: counts.expired,
    refreshTokensRotate: platform.refreshTokenRotates,
  };
}
