/** Step 2's procedures: the estimate and windows, support's proposals, the customer's acceptance, rescheduling. */
import { acceptWindow, declineWindows, getWindowPlan, proposeWindow, rescheduleWindow, withdrawWindow } from "@/server/engagements/flows";
import { createTRPCRouter, customerEngagementProcedure, engagementProcedure, staffEngagementProcedure } from "../trpc";
import { OK, ZOk } from "./shared.types";
import {
  ZProposeWindowsRequest,
  ZProposeWindowsResponse,
  ZRescheduleRequest,
  ZRescheduleResponse,
  ZDeclineWindowsRequest,
  ZDeclineWindowsResponse,
  ZWindowPlanResponse,
  ZWindowRequest,
  ZCheckOverlapsRequest,
  ZCheckOverlapsResponse,
} from "./windows.types";
import { checkProposalOverlaps } from "@/server/engagements/calendar/check-proposal";

export const windowsRouter = createTRPCRouter({
  /** The duration estimate with its formula and inputs, every window, and what the viewer may do. */
  plan: engagementProcedure
    .output(ZWindowPlanResponse)
    .query(({ ctx, input }) => getWindowPlan(ctx.database, { sandbox: ctx.config.sandbox }, ctx.actor, input.engagementId)),
  /** Support proposes one or more windows; the customer is mailed. */
  propose: staffEngagementProcedure
    .input(ZProposeWindowsRequest)
    .output(ZProposeWindowsResponse)
    .mutation(async ({ ctx, input }) => {
      const result = await proposeWindow(ctx.database, { sandbox: ctx.config.sandbox, notify: ctx.config }, ctx.actor, input);
      return { windowIds: result.windowIds };
    }),
  /** Before proposing: would these windows overfill the target with other engagements' windows there? */
  checkOverlaps: staffEngagementProcedure
    .input(ZCheckOverlapsRequest)
    .output(ZCheckOverlapsResponse)
    .query(({ ctx, input }) => checkProposalOverlaps(ctx.database, { sandbox: ctx.config.sandbox }, ctx.actor, input)),
  /** Support withdraws a proposed window. */
  withdraw: staffEngagementProcedure
    .input(ZWindowRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await withdrawWindow(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return OK;
    }),
  /** The customer accepts a proposed window: step 2 is done. */
  accept: customerEngagementProcedure
    .input(ZWindowRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await acceptWindow(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return OK;
    }),
  /** The customer declines the proposed windows with a reason and times that would suit; support is mailed. */
  decline: customerEngagementProcedure
    .input(ZDeclineWindowsRequest)
    .output(ZDeclineWindowsResponse)
    .mutation(async ({ ctx, input }) => {
      const result = await declineWindows(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return { declineId: result.declineId };
    }),
  /** Support reschedules the agreed window: step 2 reopens with the reason (the cascade applies). */
  reschedule: staffEngagementProcedure
    .input(ZRescheduleRequest)
    .output(ZRescheduleResponse)
    .mutation(async ({ ctx, input }) => {
      const result = await rescheduleWindow(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return { changed: result.changed };
    }),
});
