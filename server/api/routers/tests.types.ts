/** Request and response schemas of the single-company test procedures (step 5 and its rehearsal). */
import { z } from "zod";
import { ZTestableItem, ZTestControls, ZTestRunDetail, ZTestRunKind, ZTestRunSummary } from "@/core/migration/test-run-schemas";

export const ZTestableItemsRequest = z.object({ search: z.string().trim().max(200).optional() });
/** The companies listed (the smallest matching first), how many the engagement has, how many match the search. */
export const ZTestableItemsResponse = z.object({ companies: z.array(ZTestableItem), total: z.number().int(), matching: z.number().int() });

/** The test form: which kind, and the company (empty: Ferry picks the smallest by records). */
export const ZStartTestRequest = z.object({
  kind: ZTestRunKind,
  itemId: z.string().max(64).nullish(),
});
export const ZStartTestResponse = z.object({ runId: z.string() });

export const ZTestRunsResponse = z.array(ZTestRunSummary);

export const ZTestRunRequest = z.object({ runId: z.string().min(1).max(64) });
export const ZTestRunResponse = ZTestRunDetail;

export const ZCancelTestRequest = ZTestRunRequest.extend({ reason: z.string().trim().max(2000).optional() });

export const ZTestControlsResponse = ZTestControls;
