/**
 * The handover's shapes as the screens receive them, defined once as zod schemas (routers declare
 * them as `.output()`; the browser imports them for its forms). Nothing secret is in any of them.
 */
import { ZCompleteness } from "./completeness";
import { z } from "zod";
import { FINAL_ITEM_STATES } from "./states";
import { ZCompanyRowBase } from "./company-row";
import { ZFailure } from "./failure";
import { ZItemChecks } from "./item-results";
import { PURGE_TRIGGERS } from "./handover-states";
import { ZReconciliation } from "./reconciliation";

const ZPerson = z.object({ id: z.string(), name: z.string() });
const ZCounts = z.record(z.string(), z.number().int());

/** One company of the report: where it ended, its ids, its checks, and for the rest why and what to do. */
export const ZHandoverRow = ZCompanyRowBase.extend({
  /** Whether its data arrived complete (counts beside the old app's, caveats, validation); null before its data was read back. */
  completeness: ZCompleteness.nullable(),
  /** Row order in the accepted token file (0-based), and where the row was ("line 12", "cell A12"). */
  position: z.number().int(),
  sourceRef: z.string(),
  checks: ZItemChecks.nullable(),
  /** The checks in one line ("Linked; 24 of 26 data types complete, 2 not supported; 1,300 records"). */
  checksSummary: z.string(),
  /** The last error as the service gave it: status, text, correlationId. */
  error: ZFailure.nullable(),
  /**
   * The last error's status in one word: the service's HTTP status, or where the service answered
   * but the platform refused (a reauthorization), the status it left: "Deauthorized", "AuthError".
   */
  errorStatus: z.string().nullable(),
  /** Why the company is not migrated (null when verified). */
  reason: z.string().nullable(),
  /** What the customer must do about it (null when nothing). */
  customerAction: z.string().nullable(),
  /** The service's Link URL where the company's end customer authorizes again (shown for companies waiting for them). */
  linkUrl: z.string().nullable(),
  /** Verified again after its end customer reconnected it, or fresh tokens came for it. */
  reconnectedAt: z.date().nullable(),
  /** Its connection dropped after its migration (found by the watch). */
  droppedAt: z.date().nullable(),
});
export type HandoverRow = z.infer<typeof ZHandoverRow>;

/** Rows of a printed page at most (the CSV holds every row; screens page by 25). */
export const HANDOVER_MAX_PAGE_SIZE = 1000;

export const ZHandoverItemsFilter = z.object({
  /** Only companies that ended in this state. */
  state: z.enum(FINAL_ITEM_STATES).optional(),
  /** Part of a name (the file's or the service's), an external reference, a companyId or a connectionId. */
  search: z.string().trim().max(100).optional(),
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(HANDOVER_MAX_PAGE_SIZE).default(25),
});

export const ZHandoverItemsPage = z.object({
  items: z.array(ZHandoverRow),
  /** Rows under the filter, and the page. */
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type HandoverItemsPage = z.infer<typeof ZHandoverItemsPage>;

/** An action the viewer may take now, or why not. */
const ZOffer = z.object({ allowed: z.boolean(), reason: z.string().nullable() });

/** The handover of one engagement as the viewer sees it. */
export const ZHandoverView = z.object({
  engagementId: z.string(),
  reference: z.string(),
  /** The real companies now, per state (live; rehearsal companies are never counted). */
  total: z.number().int(),
  counts: ZCounts,
  /** The engagement's reconciliation now (live, as the report's rows are). */
  reconciliation: ZReconciliation,
  /** A bulk run still queued, running or paused, in words (null when none). */
  activeBulkRun: z.string().nullable(),
  /** Real companies whose credentials Ferry still holds (encrypted). */
  credentialsHeld: z.number().int(),
  handover: z
    .object({
      confirmedAt: z.date(),
      confirmedBy: ZPerson.nullable(),
      /** The counts per final state when the report was produced. */
      total: z.number().int(),
      counts: ZCounts,
      acknowledgedAt: z.date().nullable(),
      acknowledgedBy: ZPerson.nullable(),
      /** How the customer acknowledged, when staff recorded it for them. */
      acknowledgementNote: z.string().nullable(),
      purgedAt: z.date().nullable(),
      purgeTrigger: z.enum(PURGE_TRIGGERS).nullable(),
      /** When the credentials are purged automatically if nobody acknowledges before. */
      automaticPurgeAt: z.date(),
    })
    .nullable(),
  /** Produce the report (staff), acknowledge it (the customer, or staff with a note). */
  actions: z.object({
    confirm: ZOffer,
    acknowledge: ZOffer.extend({ needsNote: z.boolean() }),
  }),
});
export type HandoverView = z.infer<typeof ZHandoverView>;

/** Staff record the customer's acknowledgement with a note of how it was given. */
export const ZAcknowledgeInput = z.object({ note: z.string().trim().max(2000).optional() });
