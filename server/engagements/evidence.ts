/** What shows a step is done, stored with the step (JSON). Later steps add structured evidence here. */
import { z } from "zod";

export const ZStepEvidence = z.object({
  note: z.string().optional(),
  /** Set when staff completed a customer's step for them (e.g. confirmed by email). */
  onBehalfOfCustomer: z.boolean().optional(),
});
export type StepEvidence = z.infer<typeof ZStepEvidence>;
