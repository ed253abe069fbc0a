/**
 * Thin router for engagements. The reads serve the staff console and the customer portal alike:
 * the domain scopes them by the actor (a customer's list holds only their organisation's
 * engagements, another organisation's engagement is NOT_FOUND) and offers each viewer their own
 * actions; the changes are support's.
 */
import { actOnStep } from "@/server/engagements/act-on-step";
import { changeOwner } from "@/server/engagements/change-owner";
import { changeStatus } from "@/server/engagements/change-status";
import { createEngagement } from "@/server/engagements/create-engagement";
import { findEngagements } from "@/server/engagements/find-engagements";
import { getEngagement } from "@/server/engagements/get-engagement";
import { getEngagementTimeline } from "@/server/engagements/get-engagement-timeline";
import { createTRPCRouter, engagementProcedure, signedInProcedure, staffEngagementProcedure, staffProcedure } from "../trpc";
import {
  ZCreateEngagementRequest,
  ZCreateEngagementResponse,
  ZGetEngagementResponse,
  ZListEngagementsRequest,
  ZListEngagementsResponse,
  ZSetOwnerRequest,
  ZSetStatusRequest,
  ZStepActionRequest,
  ZStepActionResponse,
  ZTimelineRequest,
  ZTimelineResponse,
} from "./engagements.types";
import { OK, ZOk } from "./shared.types";

export const engagementsRouter = createTRPCRouter({
  /** A filtered, searched page of engagements with counts per step (a customer's: their organisation's, whatever the filter says). */
  list: signedInProcedure
    .input(ZListEngagementsRequest)
    .output(ZListEngagementsResponse)
    .query(({ ctx, input }) => findEngagements(ctx.database, ctx.actor, input)),
  /** One engagement with its checklist as the viewer may act on it. */
  get: engagementProcedure.output(ZGetEngagementResponse).query(({ ctx, input }) => getEngagement(ctx.database, ctx.actor, input.engagementId)),
  /** The engagement's audit timeline, newest first. */
  timeline: engagementProcedure
    .input(ZTimelineRequest)
    .output(ZTimelineResponse)
    .query(({ ctx, input }) => getEngagementTimeline(ctx.database, ctx.actor, input.engagementId, { who: input.who, every: input.every })),
  /** Opens an engagement for an organisation on one of the six managed platforms. */
  create: staffProcedure
    .input(ZCreateEngagementRequest)
    .output(ZCreateEngagementResponse)
    .mutation(async ({ ctx, input }) => {
      const { id, reference } = await createEngagement(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return { id, reference };
    }),
  /** Starts, completes or reopens a step (gates and roles enforced by the checklist). */
  step: staffProcedure
    .input(ZStepActionRequest)
    .output(ZStepActionResponse)
    .mutation(async ({ ctx, input }) => {
      const result = await actOnStep(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return result;
    }),
  /** Puts on hold, resumes or cancels. */
  setStatus: staffEngagementProcedure
    .input(ZSetStatusRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await changeStatus(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return OK;
    }),
  /** Hands the engagement to another support user. */
  setOwner: staffEngagementProcedure
    .input(ZSetOwnerRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await changeOwner(ctx.database, ctx.actor, input);
      return OK;
    }),
});
