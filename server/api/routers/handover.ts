/** Thin routers for the handover (step 6's ending): the staff console's and the customer portal's. */
import { acknowledgeHandover } from "@/server/migration/handover/acknowledge-handover";
import { confirmHandover } from "@/server/migration/handover/confirm-handover";
import { getHandover } from "@/server/migration/handover/get-handover";
import { listHandoverItems } from "@/server/migration/handover/list-handover-items";
import { createTRPCRouter, customerEngagementProcedure, staffEngagementProcedure } from "../trpc";
import {
  ZAcknowledgeOnBehalfRequest,
  ZAcknowledgeResponse,
  ZConfirmHandoverResponse,
  ZHandoverItemsRequest,
  ZHandoverItemsResponse,
  ZHandoverResponse,
} from "./handover.types";

export const handoverRouter = createTRPCRouter({
  /** Where the handover stands: live counts, the report's record, what staff may do. */
  get: staffEngagementProcedure.output(ZHandoverResponse).query(({ ctx, input }) => getHandover(ctx.db, ctx.actor, ctx.config, input.engagementId)),
  /** A page of the report's companies (a preview before the report is produced). */
  items: staffEngagementProcedure
    .input(ZHandoverItemsRequest)
    .output(ZHandoverItemsResponse)
    .query(({ ctx, input }) => listHandoverItems(ctx.db, ctx.actor, input)),
  /** Produces the report once every company is final and no bulk run is active; mails the customer. */
  confirm: staffEngagementProcedure
    .output(ZConfirmHandoverResponse)
    .mutation(({ ctx, input }) => confirmHandover(ctx.db, ctx.actor, ctx.config, input)),
  /** Records the customer's acknowledgement (with how it was given): purges the credentials, completes step 6. */
  acknowledgeOnBehalf: staffEngagementProcedure
    .input(ZAcknowledgeOnBehalfRequest)
    .output(ZAcknowledgeResponse)
    .mutation(({ ctx, input }) => acknowledgeHandover(ctx.db, ctx.actor, ctx.config, input)),
});

export const portalHandoverRouter = createTRPCRouter({
  /** Where the handover stands, as the customer sees it. */
  get: customerEngagementProcedure.output(ZHandoverResponse).query(({ ctx, input }) => getHandover(ctx.db, ctx.actor, ctx.config, input.engagementId)),
  /** A page of the report's companies, once the report is produced. */
  items: customerEngagementProcedure
    .input(ZHandoverItemsRequest)
    .output(ZHandoverItemsResponse)
    .query(({ ctx, input }) => listHandoverItems(ctx.db, ctx.actor, input)),
  /** The customer acknowledges the report: the credentials are purged and step 6 completes. */
  acknowledge: customerEngagementProcedure
    .output(ZAcknowledgeResponse)
    .mutation(({ ctx, input }) => acknowledgeHandover(ctx.db, ctx.actor, ctx.config, { engagementId: input.engagementId })),
});
