/** Request and response schemas of the procedures for customers' requests for engagements. */
import { z } from "zod";
import { ZAcceptEngagementRequest, ZCreateEngagementRequestInput, ZDeclineEngagementRequest, ZEngagementRequestList } from "@/core/engagements/request-schemas";

export const ZListRequestsResponse = ZEngagementRequestList;
export const ZCreateRequestRequest = ZCreateEngagementRequestInput;
export const ZCreateRequestResponse = z.object({ requestId: z.string() });
export const ZAcceptRequestRequest = ZAcceptEngagementRequest;
export const ZAcceptRequestResponse = z.object({ engagementId: z.string(), reference: z.string() });
export const ZDeclineRequestRequest = ZDeclineEngagementRequest;
