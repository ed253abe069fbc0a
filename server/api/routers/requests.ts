/**
 * Thin router for customers' requests for engagements: a customer asks (the platform, roughly how
 * many companies, when), support sees every open request in the console and accepts it into a
 * real engagement or declines it with a reason. The domain decides who may do what.
 */
import { acceptEngagementRequest, createEngagementRequest, declineEngagementRequest, listEngagementRequests } from "@/server/engagements/requests/engagement-requests";
import { createTRPCRouter, customerProcedure, signedInProcedure, staffProcedure } from "../trpc";
import {
  ZAcceptRequestRequest,
  ZAcceptRequestResponse,
  ZCreateRequestRequest,
  ZCreateRequestResponse,
  ZDeclineRequestRequest,
  ZListRequestsResponse,
} from "./requests.types";
import { OK, ZOk } from "./shared.types";

export const requestsRouter = createTRPCRouter({
  /** Staff: every open request and the latest answered; a customer: their organisation's. */
  list: signedInProcedure.output(ZListRequestsResponse).query(({ ctx }) => listEngagementRequests(ctx.database, ctx.actor)),
  /** A customer asks for an engagement; support is mailed. */
  create: customerProcedure
    .input(ZCreateRequestRequest)
    .output(ZCreateRequestResponse)
    .mutation(({ ctx, input }) => createEngagementRequest(ctx.database, { notify: ctx.config }, ctx.actor, input)),
  /** Support accepts a request: the engagement is opened; the customer is mailed and has the first move. */
  accept: staffProcedure
    .input(ZAcceptRequestRequest)
    .output(ZAcceptRequestResponse)
    .mutation(async ({ ctx, input }) => {
      const { engagementId, reference } = await acceptEngagementRequest(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return { engagementId, reference };
    }),
  /** Support declines a request with a reason; the customer is mailed it. */
  decline: staffProcedure
    .input(ZDeclineRequestRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await declineEngagementRequest(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return OK;
    }),
});
