/** Request and response schemas of step 1's procedures (the file itself goes through /api/engagements/[id]/token-file). */
import { z } from "zod";
import { ZIntakeItemsPage, ZIntakeView } from "@/core/engagements/intake-schemas";
import { engagementInput, ZPageRequest } from "./shared.types";

export const ZGetIntakeResponse = ZIntakeView;
export const ZIntakeItemsRequest = engagementInput.extend(ZPageRequest.shape);
export const ZIntakeItemsResponse = ZIntakeItemsPage;

export const ZReviewSubmissionRequest = z.object({ submissionId: z.string().min(1).max(64) });
export const ZReturnSubmissionRequest = ZReviewSubmissionRequest.extend({
  note: z.string().trim().min(1, "Say what the customer should fix; they see this note and are mailed it.").max(2000),
});
