/** Request and response schemas of step 2's procedures. */
import { z } from "zod";
import { MAX_WINDOWS_PER_PROPOSAL, ZDeclineWindows, ZProposeWindows, ZWindowPlan } from "@/core/engagements/window-schemas";
import { ZProposalOverlaps } from "@/core/engagements/calendar-schemas";
import { ZStepNumber } from "@/core/engagements/schemas";

export const ZWindowPlanResponse = ZWindowPlan;
export const ZProposeWindowsRequest = ZProposeWindows;
export const ZProposeWindowsResponse = z.object({ windowIds: z.array(z.string()) });
export const ZWindowRequest = z.object({ windowId: z.string().min(1).max(64) });
export const ZRescheduleRequest = z.object({ reason: z.string().trim().min(1, "Give a reason for rescheduling; the customer sees it.").max(2000) });
export const ZRescheduleResponse = z.object({ changed: z.array(ZStepNumber) });
export const ZDeclineWindowsRequest = ZDeclineWindows;
export const ZDeclineWindowsResponse = z.object({ declineId: z.string() });
export const ZCheckOverlapsRequest = z.object({ windows: z.array(z.object({ startsAt: z.date(), endsAt: z.date() })).min(1).max(MAX_WINDOWS_PER_PROPOSAL) });
export const ZCheckOverlapsResponse = ZProposalOverlaps;
