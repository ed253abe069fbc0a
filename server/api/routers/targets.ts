/**
 * Service targets: each customer's own account on the service (and the built-in sandbox) that
 * engagements migrate into. Admins manage them; staff point an engagement at one of its
 * organisation's.
 */
import { changeTarget, getTargetChoices } from "@/server/engagements/change-target";
import {
  archiveServiceTarget,
  assignTargetOrganization,
  createServiceTarget,
  listServiceTargets,
  renameServiceTarget,
  replaceTargetApiKey,
  setTargetLimits,
} from "@/server/targets/targets";
import { testTargetConnection } from "@/server/targets/test-connection";
import { adminProcedure, createTRPCRouter, staffEngagementProcedure } from "../trpc";
import { OK, ZOk } from "./shared.types";
import {
  ZAssignOrganizationRequest,
  ZAssignTargetRequest,
  ZCreateTargetRequest,
  ZCreateTargetResponse,
  ZListTargetsResponse,
  ZRenameTargetRequest,
  ZReplaceTargetKeyRequest,
  ZReplaceTargetKeyResponse,
  ZSetTargetLimitsRequest,
  ZTargetChoicesResponse,
  ZTargetRequest,
  ZTestConnectionResponse,
} from "./targets.types";

export const targetsRouter = createTRPCRouter({
  /** Every target with its organisation, limits and use; API keys only masked. */
  list: adminProcedure.output(ZListTargetsResponse).query(({ ctx }) => listServiceTargets(ctx.database)),
  /** Adds a customer's account on the service (or another sandbox) with its base URL and API key. */
  create: adminProcedure
    .input(ZCreateTargetRequest)
    .output(ZCreateTargetResponse)
    .mutation(({ ctx, input }) => createServiceTarget(ctx.database, ctx.config.keyRing, ctx.actor, input)),
  /** Renames a target. */
  rename: adminProcedure
    .input(ZRenameTargetRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await renameServiceTarget(ctx.database, ctx.actor, input);
      return OK;
    }),
  /** Sets or clears the target's known limits (empty: the service's published ones). */
  setLimits: adminProcedure
    .input(ZSetTargetLimitsRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await setTargetLimits(ctx.database, ctx.actor, input);
      return OK;
    }),
  /** Replaces the target's API key (the old ciphertext is overwritten); answers the new mask only. */
  replaceKey: adminProcedure
    .input(ZReplaceTargetKeyRequest)
    .output(ZReplaceTargetKeyResponse)
    .mutation(({ ctx, input }) => replaceTargetApiKey(ctx.database, ctx.config.keyRing, ctx.actor, input)),
  /** Archives a target no unfinished engagement uses. */
  archive: adminProcedure
    .input(ZTargetRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await archiveServiceTarget(ctx.database, ctx.actor, input);
      return OK;
    }),
  /** Assigns an unassigned target to the organisation whose account it is. */
  assignOrganization: adminProcedure
    .input(ZAssignOrganizationRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await assignTargetOrganization(ctx.database, ctx.actor, input);
      return OK;
    }),
  /** One cheap read of the service with the target's key; the answer in words. */
  testConnection: adminProcedure
    .input(ZTargetRequest)
    .output(ZTestConnectionResponse)
    .mutation(({ ctx, input }) => testTargetConnection(ctx.database, ctx.config.keyRing, ctx.actor, input)),
  /** The targets this engagement may use (its organisation's and the built-in sandbox) and its current one. */
  choices: staffEngagementProcedure.output(ZTargetChoicesResponse).query(({ ctx, input }) => getTargetChoices(ctx.database, ctx.actor, input.engagementId)),
  /** Points an engagement at a target (through the engagement module, which owns the rule). */
  assign: staffEngagementProcedure
    .input(ZAssignTargetRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await changeTarget(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return OK;
    }),
});
