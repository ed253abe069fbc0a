/** Thin routers for engagements: the staff console's and the customer portal's. */
import { z } from "zod";
import {
  actOnStep,
  changeOwner,
  changeStatus,
  createEngagement,
  engagementTimeline,
  getEngagement,
  listEngagements,
} from "@/server/engagements/engagements";
import {
  createTRPCRouter,
  customerEngagementProcedure,
  customerProcedure,
  staffEngagementProcedure,
  staffProcedure,
} from "../trpc";
import {
  ZCreateEngagementRequest,
  ZEngagementDetail,
  ZListEngagementsRequest,
  ZListEngagementsResponse,
  ZSetOwnerRequest,
  ZSetStatusRequest,
  ZStepActionRequest,
  ZStepActionResponse,
  ZTimelineEntry,
} from "./engagements.types";

const ok = z.object({ ok: z.literal(true) });

export const engagementsRouter = createTRPCRouter({
  /** A filtered, searched page of engagements with counts per step. */
  list: staffProcedure
    .input(ZListEngagementsRequest)
    .output(ZListEngagementsResponse)
    .query(({ ctx, input }) => listEngagements(ctx.db, ctx.actor, input)),
  /** One engagement with its checklist as the viewer may act on it. */
  get: staffEngagementProcedure.output(ZEngagementDetail).query(({ ctx, input }) => getEngagement(ctx.db, ctx.actor, input.engagementId)),
  /** The engagement's audit timeline, newest first. */
  timeline: staffEngagementProcedure
    .output(z.array(ZTimelineEntry))
    .query(({ ctx, input }) => engagementTimeline(ctx.db, ctx.actor, input.engagementId)),
  /** Opens an engagement for an organisation on one of the six managed platforms. */
  create: staffProcedure
    .input(ZCreateEngagementRequest)
    .output(z.object({ id: z.string(), reference: z.string() }))
    .mutation(({ ctx, input }) => createEngagement(ctx.db, ctx.actor, input)),
  /** Starts, completes or reopens a step (gates and roles enforced by the checklist). */
  step: staffProcedure
    .input(ZStepActionRequest)
    .output(ZStepActionResponse)
    .mutation(({ ctx, input }) => actOnStep(ctx.db, ctx.actor, input)),
  /** Puts on hold, resumes or cancels. */
  setStatus: staffEngagementProcedure
    .input(ZSetStatusRequest)
    .output(ok)
    .mutation(({ ctx, input }) => {
      changeStatus(ctx.db, ctx.actor, input);
      return { ok: true as const };
    }),
  /** Hands the engagement to another support user. */
  setOwner: staffEngagementProcedure
    .input(ZSetOwnerRequest)
    .output(ok)
    .mutation(({ ctx, input }) => {
      changeOwner(ctx.db, ctx.actor, input);
      return { ok: true as const };
    }),
});

export const portalRouter = createTRPCRouter({
  /** The customer's own organisation's engagements. */
  engagements: customerProcedure
    .input(ZListEngagementsRequest.pick({ page: true, pageSize: true, search: true, status: true }))
    .output(ZListEngagementsResponse)
    .query(({ ctx, input }) => listEngagements(ctx.db, ctx.actor, { ...input, organizationId: ctx.organizationId })),
  /** One of the customer's engagements, read only for now. */
  engagement: customerEngagementProcedure
    .output(ZEngagementDetail)
    .query(({ ctx, input }) => getEngagement(ctx.db, ctx.actor, input.engagementId)),
  /** The engagement's timeline as the customer sees it. */
  timeline: customerEngagementProcedure
    .output(z.array(ZTimelineEntry))
    .query(({ ctx, input }) => engagementTimeline(ctx.db, ctx.actor, input.engagementId)),
});
