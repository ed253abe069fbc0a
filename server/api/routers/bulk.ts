/**
 * Thin routers for the bulk migration (step 6): support starts, pauses, resumes, cancels, retries
 * and sets companies aside, and follows the run live; customers follow it through the same reads,
 * which offer them no controls.
 * A worker process carries the run out (server/migration/engine/worker.ts).
 */
import {
  cancelBulkRun,
  pauseBulkRun,
  resumeBulkRun,
  retryFailedItems,
  retryItemControl,
  setItemAsideControl,
  startBulkRun,
} from "@/server/migration/bulk/bulk-controls";
import { getBulkOverview, listBulkItems } from "@/server/migration/bulk/bulk-view";
import { getCompanyTimeline } from "@/server/migration/bulk/company-timeline";
import { createTRPCRouter, engagementProcedure, staffEngagementProcedure } from "../trpc";
import {
  ZBulkItemsRequest,
  ZBulkItemsResponse,
  ZBulkOverviewResponse,
  ZCancelBulkRequest,
  ZCompanyTimelineRequest,
  ZCompanyTimelineResponse,
  ZPauseBulkRequest,
  ZRetryFailedResponse,
  ZRetryItemRequest,
  ZSetAsideRequest,
  ZStartBulkRequest,
  ZStartBulkResponse,
} from "./bulk.types";
import { OK, ZOk } from "./shared.types";

export const bulkRouter = createTRPCRouter({
  /** The latest bulk run with its progress, pace and ETA, the companies per state, the controls on offer (none to a customer). */
  overview: engagementProcedure.output(ZBulkOverviewResponse).query(({ ctx, input }) => getBulkOverview(ctx.database, ctx.actor, input.engagementId)),
  /** A page of the engagement's companies: state, ids, attempts, last error (filter, search); row actions only for staff. */
  items: engagementProcedure
    .input(ZBulkItemsRequest)
    .output(ZBulkItemsResponse)
    .query(({ ctx, input }) => listBulkItems(ctx.database, ctx.actor, input)),
  /** One company's timeline: its calls to the service, what people and the watch did, its fresh tokens (staff, or its customer). */
  timeline: engagementProcedure
    .input(ZCompanyTimelineRequest)
    .output(ZCompanyTimelineResponse)
    .query(({ ctx, input }) => getCompanyTimeline(ctx.database, ctx.actor, input)),
  /**
   * Starts the bulk migration of every company not yet final (step 5 passed); starts step 6.
   * Outside the agreed window only with a reason, which the customer is mailed.
   */
  start: staffEngagementProcedure
    .input(ZStartBulkRequest)
    .output(ZStartBulkResponse)
    .mutation(async ({ ctx, input }) => {
      const { runId } = await startBulkRun(ctx.database, { notify: ctx.config }, ctx.actor, { engagementId: input.engagementId, reason: input.reason });
      return { runId };
    }),
  pause: staffEngagementProcedure
    .input(ZPauseBulkRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await pauseBulkRun(ctx.database, ctx.actor, input);
      return OK;
    }),
  /** Resumes a paused run, or one the worker stopped (401, 403, a 402) once its cause is fixed. */
  resume: staffEngagementProcedure.output(ZOk).mutation(async ({ ctx, input }) => {
    await resumeBulkRun(ctx.database, ctx.actor, input);
    return OK;
  }),
  cancel: staffEngagementProcedure
    .input(ZCancelBulkRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await cancelBulkRun(ctx.database, ctx.actor, input);
      return OK;
    }),
  /** Puts every failed company back into the run. */
  retryFailed: staffEngagementProcedure.output(ZRetryFailedResponse).mutation(({ ctx, input }) => retryFailedItems(ctx.database, ctx.actor, input)),
  setAside: staffEngagementProcedure
    .input(ZSetAsideRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await setItemAsideControl(ctx.database, ctx.actor, input);
      return OK;
    }),
  retryItem: staffEngagementProcedure
    .input(ZRetryItemRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await retryItemControl(ctx.database, ctx.actor, input);
      return OK;
    }),
});
