/**
 * Thin router for the handover (step 6's ending). The reads serve both sides (the domain offers
 * each viewer their own actions and shows a customer the report only once it is produced); support
 * produces the report; the customer acknowledges it, or support records an acknowledgement given
 * another way, with a note.
 */
import { acknowledgeHandover } from "@/server/migration/handover/acknowledge-handover";
import { confirmHandover } from "@/server/migration/handover/confirm-handover";
import { getHandover } from "@/server/migration/handover/get-handover";
import { listHandoverItems } from "@/server/migration/handover/list-handover-items";
import { createTRPCRouter, customerEngagementProcedure, engagementProcedure, staffEngagementProcedure } from "../trpc";
import {
  ZAcknowledgeOnBehalfRequest,
  ZAcknowledgeResponse,
  ZConfirmHandoverResponse,
  ZHandoverItemsRequest,
  ZHandoverItemsResponse,
  ZHandoverResponse,
} from "./handover.types";

export const handoverRouter = createTRPCRouter({
  /** Where the handover stands: live counts, the report's record, what the viewer may do. */
  get: engagementProcedure.output(ZHandoverResponse).query(({ ctx, input }) => getHandover(ctx.database, ctx.actor, ctx.config, input.engagementId)),
  /** A page of the report's companies (for staff also a preview before the report is produced). */
  items: engagementProcedure
    .input(ZHandoverItemsRequest)
    .output(ZHandoverItemsResponse)
    .query(({ ctx, input }) => listHandoverItems(ctx.database, { appUrl: ctx.config.appUrl, ring: ctx.config.keyRing }, ctx.actor, input)),
  /** Produces the report once every company is final and no bulk run is active; mails the customer. */
  confirm: staffEngagementProcedure
    .output(ZConfirmHandoverResponse)
    .mutation(({ ctx, input }) => confirmHandover(ctx.database, ctx.actor, ctx.config, input)),
  /** The customer acknowledges the report: the credentials are purged and step 6 completes. */
  acknowledge: customerEngagementProcedure
    .output(ZAcknowledgeResponse)
    .mutation(({ ctx, input }) => acknowledgeHandover(ctx.database, ctx.actor, ctx.config, { engagementId: input.engagementId })),
  /** Records the customer's acknowledgement (with how it was given): purges the credentials, completes step 6. */
  acknowledgeOnBehalf: staffEngagementProcedure
    .input(ZAcknowledgeOnBehalfRequest)
    .output(ZAcknowledgeResponse)
    .mutation(({ ctx, input }) => acknowledgeHandover(ctx.database, ctx.actor, ctx.config, input)),
});
