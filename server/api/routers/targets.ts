/** Service targets: the sandbox and real services that engagements migrate into. */
import { changeTarget } from "@/server/engagements/change-target";
import { createServiceTarget, listServiceTargets } from "@/server/targets/targets";
import { adminProcedure, createTRPCRouter, staffEngagementProcedure, staffProcedure } from "../trpc";
import { OK, ZOk } from "./shared.types";
import { ZAssignTargetRequest, ZCreateTargetRequest, ZCreateTargetResponse, ZListTargetsResponse } from "./targets.types";

export const targetsRouter = createTRPCRouter({
  /** Every target; API keys only masked. */
  list: staffProcedure.output(ZListTargetsResponse).query(({ ctx }) => listServiceTargets(ctx.db)),
  /** Adds a real service (or another sandbox) with its base URL and API key. */
  create: adminProcedure
    .input(ZCreateTargetRequest)
    .output(ZCreateTargetResponse)
    .mutation(({ ctx, input }) => createServiceTarget(ctx.db, ctx.config.keyRing, ctx.actor, input)),
  /** Points an engagement at a target (through the engagement module, which owns the rule). */
  assign: staffEngagementProcedure
    .input(ZAssignTargetRequest)
    .output(ZOk)
    .mutation(({ ctx, input }) => {
      changeTarget(ctx.db, ctx.actor, input);
      return OK;
    }),
});
