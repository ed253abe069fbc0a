/**
 * The supplementary token file's procedures: after the bulk run, the customer's fresh tokens for
 * the companies that failed on theirs, as each side sees them, and support's review. The file is
 * checked and sent through /api/engagements/[id]/supplementary-file (files go up to 20 MB).
 */
import { acceptSupplementaryFile } from "@/server/migration/supplementary/accept-supplementary-file";
import { getSupplementary } from "@/server/migration/supplementary/get-supplementary";
import { sendBackSupplementaryFile } from "@/server/migration/supplementary/send-back-supplementary-file";
import { createTRPCRouter, engagementProcedure, staffEngagementProcedure } from "../trpc";
import { ZAcceptSupplementaryResponse, ZGetSupplementaryResponse, ZReviewSupplementaryRequest, ZSendBackSupplementaryRequest } from "./supplementary.types";
import { OK, ZOk } from "./shared.types";

export const supplementaryRouter = createTRPCRouter({
  /** The companies waiting for fresh tokens, the current file (masked) and earlier ones, and what the viewer may do. */
  get: engagementProcedure.output(ZGetSupplementaryResponse).query(({ ctx, input }) => getSupplementary(ctx.database, ctx.actor, input.engagementId)),
  /** Support accepts the current file: its companies get the fresh tokens and are retried in the bulk run. */
  accept: staffEngagementProcedure
    .input(ZReviewSupplementaryRequest)
    .output(ZAcceptSupplementaryResponse)
    .mutation(async ({ ctx, input }) => {
      const { companies, skipped } = await acceptSupplementaryFile(ctx.database, { ring: ctx.config.keyRing, notify: ctx.config }, ctx.actor, input);
      return { companies, skipped };
    }),
  /** Support sends the current file back with a note the customer sees and is mailed; its tokens are deleted. */
  sendBack: staffEngagementProcedure
    .input(ZSendBackSupplementaryRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await sendBackSupplementaryFile(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return OK;
    }),
});
