/** Steps 3 and 4: the callback URL and step 4's risk, and the confirmations (the customer's, or staff's on their behalf with a note). */
import { confirmCallbackUrl, confirmSyncingDisabled, getConfirmations } from "@/server/engagements/flows";
import { createTRPCRouter, engagementProcedure } from "../trpc";
import { ZConfirmationsResponse, ZConfirmRequest, ZConfirmResponse } from "./confirmations.types";

export const confirmationsRouter = createTRPCRouter({
  /** The platform's callback URL with instructions, and step 4's risk from the file. */
  get: engagementProcedure.output(ZConfirmationsResponse).query(({ ctx, input }) => getConfirmations(ctx.database, ctx.actor, input.engagementId)),
  /** Step 3: the callback URL is on the customer's app. */
  callbackUrl: engagementProcedure
    .input(ZConfirmRequest)
    .output(ZConfirmResponse)
    .mutation(async ({ ctx, input }) => {
      const result = await confirmCallbackUrl(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return result;
    }),
  /** Step 4: old-app syncing is off for every company in the file. */
  syncingDisabled: engagementProcedure
    .input(ZConfirmRequest)
    .output(ZConfirmResponse)
    .mutation(async ({ ctx, input }) => {
      const result = await confirmSyncingDisabled(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return result;
    }),
});
