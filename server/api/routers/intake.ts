/** Step 1's procedures: the submission as each side sees it, its companies (masked), and support's review. */
import { acceptSubmission, getIntake, listIntakeItems, returnSubmission } from "@/server/engagements/flows";
import { createTRPCRouter, engagementProcedure, staffEngagementProcedure } from "../trpc";
import { ZGetIntakeResponse, ZIntakeItemsRequest, ZIntakeItemsResponse, ZReturnSubmissionRequest, ZReviewSubmissionRequest } from "./intake.types";
import { OK, ZOk } from "./shared.types";

export const intakeRouter = createTRPCRouter({
  /** The current submission, earlier ones, the platform's columns and limits, and what the viewer may do. */
  get: engagementProcedure.output(ZGetIntakeResponse).query(({ ctx, input }) => getIntake(ctx.database, ctx.actor, input.engagementId)),
  /** One page of the submitted companies, credentials masked. */
  items: engagementProcedure
    .input(ZIntakeItemsRequest)
    .output(ZIntakeItemsResponse)
    .query(({ ctx, input }) => listIntakeItems(ctx.database, ctx.actor, input)),
  /** Support accepts the current submission: step 1 is done. */
  accept: staffEngagementProcedure
    .input(ZReviewSubmissionRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await acceptSubmission(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return OK;
    }),
  /** Support sends the current submission back with a note the customer sees and is mailed. */
  return: staffEngagementProcedure
    .input(ZReturnSubmissionRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await returnSubmission(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return OK;
    }),
});
