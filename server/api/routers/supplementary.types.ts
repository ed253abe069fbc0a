/** Request and response schemas of the supplementary file's procedures (the file itself goes through /api/engagements/[id]/supplementary-file). */
import { z } from "zod";
import { ZSupplementaryView } from "@/core/migration/supplementary-schemas";

export const ZGetSupplementaryResponse = ZSupplementaryView;

export const ZReviewSupplementaryRequest = z.object({ fileId: z.string().min(1).max(64) });
export const ZAcceptSupplementaryResponse = z.object({
  /** Companies retried with their fresh tokens. */
  companies: z.number().int(),
  /** Companies skipped: they no longer waited for fresh tokens. */
  skipped: z.number().int(),
});
export const ZSendBackSupplementaryRequest = ZReviewSupplementaryRequest.extend({
  note: z.string().trim().min(1, "Say what the customer should fix; they see this note and are mailed it.").max(2000),
});
