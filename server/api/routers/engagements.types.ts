/** Request and response schemas of the engagement procedures (staff console and portal). */
import { z } from "zod";
import { STATUS_REASONS } from "@/core/engagements/status-reasons";
import {
  ZEngagementDetail,
  ZEngagementList,
  ZEngagementListFilter,
  ZEngagementStatus,
  ZStepAction,
  ZStepNumber,
  ZTimelineEntry,
  ZTimelineOptions,
} from "@/core/engagements/schemas";
import { engagementInput, ZPageRequest } from "./shared.types";

export const ZListEngagementsRequest = ZEngagementListFilter.omit({ page: true, pageSize: true }).extend(ZPageRequest.shape);
export const ZListEngagementsResponse = ZEngagementList;

export const ZGetEngagementResponse = ZEngagementDetail;
export const ZTimelineRequest = engagementInput.extend(ZTimelineOptions.shape);
export const ZTimelineResponse = z.array(ZTimelineEntry);

export const ZCreateEngagementRequest = z.object({
  organizationId: z.string().min(1, "Choose the customer organisation."),
  platformKey: z.string().min(1, "Choose the platform.").max(64),
  ownerId: z.string().min(1).nullish(),
});
export const ZCreateEngagementResponse = z.object({ id: z.string(), reference: z.string() });

export const ZStepActionRequest = engagementInput.extend({
  step: ZStepNumber,
  action: ZStepAction,
  note: z.string().trim().max(2000).optional(),
  reason: z.string().trim().max(2000).optional(),
});
export const ZStepActionResponse = z.object({ changed: z.array(ZStepNumber), status: ZEngagementStatus });

export const ZSetStatusRequest = engagementInput.extend({
  status: ZEngagementStatus,
  /** Why it goes on hold or is cancelled (required then: core/engagements/status-reasons.ts). */
  reasonCode: z.enum(STATUS_REASONS).optional(),
  /** Words with the reason (required with "other"). */
  reason: z.string().trim().max(2000).optional(),
});

export const ZSetOwnerRequest = engagementInput.extend({ ownerId: z.string().min(1, "Choose the new owner.") });
