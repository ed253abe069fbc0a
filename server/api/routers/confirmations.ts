/** Steps 3 and 4: the callback URL and step 4's risk, and the confirmations (the customer's, or staff's on their behalf with a note). */
import { confirmCallbackUrl, confirmSyncingDisabled, getConfirmations } from "@/server/engagements/flows";
import type { Database } from "@/db/database";
import type { AppConfig } from "@/server/config";
import { createCallbackChecks, type CallbackChecks } from "@/server/migration/callback-check/callback-checks";
import { createTRPCRouter, engagementProcedure } from "../trpc";
import { ZCallbackCheckResponse, ZConfirmationsResponse, ZConfirmRequest, ZConfirmResponse } from "./confirmations.types";

/** One set of round trips per database (its sessions and fresh Link URLs held in memory). */
const checksByDatabase = new WeakMap<Database, CallbackChecks>();

function callbackChecks(database: Database, config: AppConfig): CallbackChecks {
  let checks = checksByDatabase.get(database);
  if (!checks) {
    checks = createCallbackChecks({ database, ring: config.keyRing, notify: config, refreshMs: config.callbackCheckRefreshMs, log: (line) => console.error(line) });
    checksByDatabase.set(database, checks);
  }
  return checks;
}

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
  /** Step 3's round trip as it stands (nothing asked of the service). */
  callbackCheck: engagementProcedure.output(ZCallbackCheckResponse).query(({ ctx, input }) => callbackChecks(ctx.database, ctx.config).view(ctx.actor, input.engagementId)),
  /** Starts step 3's round trip: a test company and connection on the target for the customer to authorize. */
  startCallbackCheck: engagementProcedure
    .output(ZCallbackCheckResponse)
    .mutation(({ ctx, input }) => callbackChecks(ctx.database, ctx.config).start(ctx.actor, input.engagementId)),
  /** Asks the service about the open round trip (a Linked connection completes step 3). */
  refreshCallbackCheck: engagementProcedure
    .output(ZCallbackCheckResponse)
    .mutation(({ ctx, input }) => callbackChecks(ctx.database, ctx.config).refresh(ctx.actor, input.engagementId)),
  /** Cancels the open round trip and deletes its test company. */
  cancelCallbackCheck: engagementProcedure
    .output(ZCallbackCheckResponse)
    .mutation(({ ctx, input }) => callbackChecks(ctx.database, ctx.config).cancel(ctx.actor, input.engagementId)),
  /** Step 4: old-app syncing is off for every company in the file. */
  syncingDisabled: engagementProcedure
    .input(ZConfirmRequest)
    .output(ZConfirmResponse)
    .mutation(async ({ ctx, input }) => {
      const result = await confirmSyncingDisabled(ctx.database, { notify: ctx.config }, ctx.actor, input);
      return result;
    }),
});
