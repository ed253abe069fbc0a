/** Request and response schemas of the handover procedures (staff console and portal). */
import { z } from "zod";
import { ZEngagementStatus } from "@/core/engagements/schemas";
import { ZAcknowledgeInput, ZHandoverItemsFilter, ZHandoverItemsPage, ZHandoverView } from "@/core/migration/handover-schemas";
import { engagementInput } from "./shared.types";

export const ZHandoverRequest = engagementInput;
export const ZHandoverResponse = ZHandoverView;

export const ZHandoverItemsRequest = engagementInput.extend(ZHandoverItemsFilter.shape);
export const ZHandoverItemsResponse = ZHandoverItemsPage;

export const ZConfirmHandoverResponse = z.object({ handoverId: z.string() });

/** Staff record the customer's acknowledgement: the note says how it was given (required for them). */
export const ZAcknowledgeOnBehalfRequest = engagementInput.extend(ZAcknowledgeInput.shape);
export const ZAcknowledgeResponse = z.object({
  status: ZEngagementStatus,
  /** What was deleted: real companies' credentials, rehearsal companies', submissions' client secrets. */
  purged: z.object({ items: z.number().int(), rehearsalItems: z.number().int(), submissions: z.number().int(), rehearsalKeys: z.number().int(), supplementaryRows: z.number().int() }),
});
