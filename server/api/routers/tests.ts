/**
 * Thin routers for the single-company test (step 5) and its rehearsal: support asks for one (a
 * worker process carries it out), follows it call by call, cancels it. The reads serve customers
 * too: the runs of their own organisation's engagements, read only.
 */
import { cancelTestRun } from "@/server/migration/test-run/cancel-test-run";
import { getTestControls, getTestRun, listTestableItems, listTestRuns } from "@/server/migration/test-run/get-test-runs";
import { requestTestRun } from "@/server/migration/test-run/request-test-run";
import { createTRPCRouter, engagementProcedure, staffEngagementProcedure } from "../trpc";
import { OK, ZOk } from "./shared.types";
import {
  ZCancelTestRequest,
  ZStartTestRequest,
  ZStartTestResponse,
  ZTestControlsResponse,
  ZTestableItemsRequest,
  ZTestableItemsResponse,
  ZTestRunRequest,
  ZTestRunResponse,
  ZTestRunsResponse,
} from "./tests.types";

export const testsRouter = createTRPCRouter({
  /** Companies of the accepted token file support may pick, smallest first (searchable), and how many there are. */
  items: staffEngagementProcedure
    .input(ZTestableItemsRequest)
    .output(ZTestableItemsResponse)
    .query(({ ctx, input }) => listTestableItems(ctx.database, ctx.actor, input)),
  /** Queues a single-company test (starting step 5) or a rehearsal on the built-in sandbox. */
  start: staffEngagementProcedure
    .input(ZStartTestRequest)
    .output(ZStartTestResponse)
    .mutation(({ ctx, input }) => requestTestRun(ctx.database, ctx.actor, input)),
  /** The engagement's tests and rehearsals, newest first. */
  list: engagementProcedure.output(ZTestRunsResponse).query(({ ctx, input }) => listTestRuns(ctx.database, ctx.actor, input.engagementId)),
  /** One run in full: checks, data types, every call with its correlationId (poll while active). */
  get: engagementProcedure
    .input(ZTestRunRequest)
    .output(ZTestRunResponse)
    .query(({ ctx, input }) => getTestRun(ctx.database, ctx.actor, input)),
  /** What step 5 offers the viewer now (test, rehearsal, cancel), each allowed or why not; customers get every one refused. */
  controls: engagementProcedure.output(ZTestControlsResponse).query(({ ctx, input }) => getTestControls(ctx.database, ctx.actor, input.engagementId)),
  /** Cancels a test or rehearsal that has not ended. */
  cancel: staffEngagementProcedure
    .input(ZCancelTestRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await cancelTestRun(ctx.database, ctx.actor, input);
      return OK;
    }),
});
