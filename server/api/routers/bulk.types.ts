/** Request and response schemas of the bulk-run procedures (step 6: staff console, read-only portal). */
import { z } from "zod";
import { ZBulkItemRef, ZBulkItemsFilter, ZBulkItemsPage, ZBulkOptionalReason, ZBulkOverview, ZBulkReason } from "@/core/migration/bulk-schemas";
import { ZCompanyTimeline } from "@/core/migration/company-timeline";
import { engagementInput } from "./shared.types";

export const ZBulkOverviewResponse = ZBulkOverview;
export const ZBulkItemsRequest = engagementInput.extend(ZBulkItemsFilter.shape);
export const ZBulkItemsResponse = ZBulkItemsPage;
/** One company's timeline: the engagement and the company (its migration item). */
export const ZCompanyTimelineRequest = engagementInput.extend({ itemId: z.string().min(1).max(100) });
export const ZCompanyTimelineResponse = ZCompanyTimeline;

/** Starting outside the agreed window must say why (the server's rule: refused on `reason` without one). */
export const ZStartBulkRequest = engagementInput.extend(ZBulkOptionalReason.shape);
export const ZStartBulkResponse = z.object({ runId: z.string() });
/** Pausing may say why (shown on the run); cancelling must. */
export const ZPauseBulkRequest = engagementInput.extend(ZBulkOptionalReason.shape);
export const ZCancelBulkRequest = engagementInput.extend(ZBulkReason.shape);
export const ZRetryFailedResponse = z.object({ count: z.number().int() });
export const ZSetAsideRequest = engagementInput.extend(ZBulkItemRef.shape).extend(ZBulkReason.shape);
export const ZRetryItemRequest = engagementInput.extend(ZBulkItemRef.shape);
