/**
 * Thin router for the last mile: the companies waiting for their end customers with their
 * reconnect links and the watch (both sides read it), support's hypercare days and "check now".
 */
import { checkWatchNow, getLastMile, markDropsSeen, setHypercareDays } from "@/server/migration/watch/last-mile";
import { createTRPCRouter, engagementProcedure, staffEngagementProcedure } from "../trpc";
import { ZLastMileResponse, ZSetHypercareDaysRequest } from "./last-mile.types";
import { OK, ZOk } from "./shared.types";

export const lastMileRouter = createTRPCRouter({
  /** The companies waiting for their end customers (with their links), the watch, what the viewer may do. */
  get: engagementProcedure.output(ZLastMileResponse).query(({ ctx, input }) => getLastMile(ctx.database, { appUrl: ctx.config.appUrl, ring: ctx.config.keyRing }, ctx.actor, input.engagementId)),
  /** How many days after the handover the migrated connections are checked daily. */
  setHypercareDays: staffEngagementProcedure
    .input(ZSetHypercareDaysRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await setHypercareDays(ctx.database, ctx.actor, input);
      return OK;
    }),
  /** Support has looked at the connections the watch found dropped: no longer support's move until another drops. */
  markDropsSeen: staffEngagementProcedure.output(ZOk).mutation(async ({ ctx, input }) => {
    await markDropsSeen(ctx.database, { notify: ctx.config }, ctx.actor, input);
    return OK;
  }),
  /** A check at the next worker's look, instead of at its time. */
  checkNow: staffEngagementProcedure.output(ZOk).mutation(async ({ ctx, input }) => {
    await checkWatchNow(ctx.database, ctx.actor, input);
    return OK;
  }),
});
