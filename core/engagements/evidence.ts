/**
 * What shows a step is done, stored with the step (JSON): a note, and for steps completed by
 * their own flow, structured evidence of that flow.
 */
import { z } from "zod";

/** Step 1: support accepted the customer's submission. */
const ZIntakeAccepted = z.object({
  kind: z.literal("intake_accepted"),
  submissionId: z.string(),
  rowCount: z.number().int(),
  warningCount: z.number().int(),
  submittedAt: z.coerce.date(),
  submittedBy: z.string(),
});

/** Step 2: the customer accepted a proposed window. */
const ZWindowAccepted = z.object({
  kind: z.literal("window_accepted"),
  proposalId: z.string(),
  startsAt: z.coerce.date(),
  endsAt: z.coerce.date(),
  estimateSeconds: z.number().int(),
});

/**
 * Step 3: the callback URL is on the customer's app. `proof`: a round trip showed it (a throwaway
 * connection authorized on the platform became Linked); without it the step rests on the
 * customer's word (older evidence has neither field: unproven).
 */
const ZCallbackConfirmed = z.object({
  kind: z.literal("callback_confirmed"),
  callbackUrl: z.string(),
  proof: z.object({ checkId: z.string(), companyId: z.string(), connectionId: z.string(), linkedAt: z.coerce.date() }).optional(),
});

/** Step 4: old-app syncing is off for every company in the file, with the risk as it stood. */
const ZSyncingDisabled = z.object({
  kind: z.literal("syncing_disabled"),
  fileSubmittedAt: z.coerce.date(),
  expiredAccessTokens: z.number().int(),
  refreshTokensRotate: z.boolean(),
});

/** Step 5: a single-company test run passed. */
const ZTestPassed = z.object({
  kind: z.literal("test_passed"),
  runId: z.string(),
  itemId: z.string(),
  companyId: z.string(),
  connectionId: z.string(),
});

/** Step 6: the handover report was acknowledged and the credentials purged. */
const ZHandedOver = z.object({
  kind: z.literal("handed_over"),
  acknowledgedAt: z.coerce.date(),
  purgedAt: z.coerce.date(),
  counts: z.record(z.string(), z.number().int()),
});

export const ZFlowEvidence = z.discriminatedUnion("kind", [ZIntakeAccepted, ZWindowAccepted, ZCallbackConfirmed, ZSyncingDisabled, ZTestPassed, ZHandedOver]);
export type FlowEvidence = z.infer<typeof ZFlowEvidence>;

export const ZStepEvidence = z.object({
  note: z.string().optional(),
  /** Set when staff completed a customer's step for them (e.g. confirmed by email). */
  onBehalfOfCustomer: z.boolean().optional(),
  /** What the step's own flow recorded. */
  flow: ZFlowEvidence.optional(),
});
export type StepEvidence = z.infer<typeof ZStepEvidence>;
