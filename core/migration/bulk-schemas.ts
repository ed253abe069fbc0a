/**
 * What the screens get of the bulk run (step 6's migration of every remaining company), as zod
 * schemas: the run with its progress and pace, what support may do now, and a page of its companies.
 * The console and the portal read the same shapes (the portal with every action refused).
 */
import { z } from "zod";
import { ZFailure } from "./failure";
import { ZReconciliation } from "./reconciliation";
import { ZCompanyRowBase } from "./company-row";
import { ZCompleteness } from "./completeness";
import { ZHandoverItemsFilter } from "./handover-schemas";
import { MIGRATION_ITEM_STATES, RUN_STATUSES } from "./states";

/** Whether a control is offered now, and if not why (in words, for the button's description). */
export const ZControl = z.object({ allowed: z.boolean(), reason: z.string().nullable() });
export type ControlView = z.infer<typeof ZControl>;

/** Why the run waits by itself, without anyone pausing it. */
export const BULK_HOLD_KINDS = ["maintenance", "daily_quota", "rate_limit"] as const;
export type BulkHoldKind = (typeof BULK_HOLD_KINDS)[number];

export const ZBulkHold = z.object({
  kind: z.enum(BULK_HOLD_KINDS),
  /** In words: "The service is in maintenance (503): the run waits and carries on by itself." */
  text: z.string(),
  /** When sending resumes, when known. */
  until: z.date().nullable(),
});

/** Companies per state (every state present, zero when none). */
export const ZStateCounts = z.record(z.enum(MIGRATION_ITEM_STATES), z.number().int());

export const ZBulkRun = z.object({
  id: z.string(),
  status: z.enum(RUN_STATUSES),
  /**
   * The run still has something to follow (queued, running, paused, stopped): the screens poll
   * while it does.
   */
  active: z.boolean(),
  /** Why it is paused, stopped or cancelled, in words (e.g. the free-trial company limit). */
  statusReason: z.string().nullable(),
  /** It waits by itself (maintenance, a spent daily quota): shown beside a running status. */
  hold: ZBulkHold.nullable(),
  /**
   * What a queued or running run is doing now, in words ("Migrating: 9 companies syncing, 3 being
   * connected, 8 still to start."); null when it is not moving on its own (paused, stopped, held,
   * ended), which its own notice says.
   */
  activity: z.string().nullable(),
  requestedBy: z.string().nullable(),
  requestedAt: z.date(),
  startedAt: z.date().nullable(),
  finishedAt: z.date().nullable(),
  target: z.object({ name: z.string(), baseUrl: z.string() }).nullable(),
  progress: z.object({
    /** Companies the run covers, and how many of them reached a final state. */
    total: z.number().int(),
    finished: z.number().int(),
    counts: ZStateCounts,
  }),
  pace: z.object({
    /** HTTP requests sent so far (every attempt), and those answered 429. */
    requests: z.number().int(),
    rateLimited: z.number().int(),
    /** Requests per second over the last few seconds, and the service's limit as last reported. */
    perSecond: z.number(),
    limit: z.object({ requests: z.number().int(), perSeconds: z.number() }).nullable(),
    /** Seconds until every company is final at the recent pace, when it can be told. */
    etaSeconds: z.number().nullable(),
  }),
});
export type BulkRunView = z.infer<typeof ZBulkRun>;

/**
 * The window agreed in step 2, as the bulk run sees it now: where the present stands against it,
 * whether starting now asks for a reason, and whether the run's pace says it will overrun.
 */
export const ZBulkWindow = z.object({
  startsAt: z.date(),
  endsAt: z.date(),
  position: z.enum(["before", "inside", "after"]),
  /** Seconds until it starts (before), until it ends (inside: the time left), since it ended (after). */
  seconds: z.number().int(),
  /** Why starting the bulk migration now needs a reason, in words; null inside the window. */
  startNeedsReason: z.string().nullable(),
  /**
   * An active run the recent pace says will not be done in time: seconds beyond the window's end
   * (inside it, from the ETA), or the window has ended with companies unfinished (after it: since
   * when). Null when the run keeps to the window, or the pace is not known yet.
   */
  overrun: z.object({ kind: z.enum(["pace", "ended"]), seconds: z.number().int() }).nullable(),
});
export type BulkWindowView = z.infer<typeof ZBulkWindow>;

/** Step 6's bulk migration as a screen shows it. */
export const ZBulkOverview = z.object({
  /** The latest bulk run, or null before the first. */
  run: ZBulkRun.nullable(),
  /** Every real company of the engagement per state (the pilot's company included). */
  counts: ZStateCounts,
  total: z.number().int(),
  /** The company the single-company test migrated (counts as migrated). */
  pilot: z.object({ name: z.string(), state: z.enum(MIGRATION_ITEM_STATES) }).nullable(),
  /** The engagement's reconciliation: what the panel shows, as every other surface does. */
  reconciliation: ZReconciliation,
  /** The service's limit the run plans around (step 2's model), in words. */
  limitText: z.string().nullable(),
  /** The agreed window, or null when none is agreed. */
  window: ZBulkWindow.nullable(),
  controls: z.object({
    start: ZControl,
    pause: ZControl,
    resume: ZControl,
    cancel: ZControl,
    retryFailed: ZControl,
    /** Setting a company aside and retrying one are offered per row (and only to staff). */
    itemActions: ZControl,
  }),
});
export type BulkOverviewView = z.infer<typeof ZBulkOverview>;

export const BULK_ITEMS_MAX_PAGE_SIZE = 100;

/** The handover table's filter, over every state (a run's companies may be anywhere on their way) and screen-sized pages. */
export const ZBulkItemsFilter = ZHandoverItemsFilter.extend({
  state: z.enum(MIGRATION_ITEM_STATES).optional(),
  pageSize: z.number().int().min(1).max(BULK_ITEMS_MAX_PAGE_SIZE).default(25),
});

export const ZBulkItem = ZCompanyRowBase.extend({
  /** Its last failure: the service's status, text and correlationId, intact. */
  lastError: ZFailure.nullable(),
  /**
   * Why it ended where it is (a set-aside's reason, the engine's account of a failure), when it
   * says more than the last error does: null where it would repeat the error's words.
   */
  outcomeReason: z.string().nullable(),
  /**
   * The whole story, for the row that opens: why it ended there (Ferry's words), the family of the
   * platform's refusal of its tokens, and what to do next (support's step in the console, the
   * customer's in the portal).
   */
  story: z.object({
    why: z.string().nullable(),
    refusal: z.object({ family: z.enum(["never_valid", "rotated", "revoked"]), words: z.string(), case: z.string() }).nullable(),
    whatToDo: z.string().nullable(),
  }),
  /** Whether its data arrived complete (counts beside the old app's, caveats, validation); null before its data was read back. */
  completeness: ZCompleteness.nullable(),
  /** The pilot's company (migrated by the single-company test). */
  pilot: z.boolean(),
  canSetAside: z.boolean(),
  canRetry: z.boolean(),
});
export type BulkItemView = z.infer<typeof ZBulkItem>;

export const ZBulkItemsPage = z.object({
  rows: z.array(ZBulkItem),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type BulkItemsPageView = z.infer<typeof ZBulkItemsPage>;

export const ZBulkReason = z.object({ reason: z.string().trim().min(1, "Say why.").max(2000) });
export const ZBulkOptionalReason = z.object({ reason: z.string().trim().max(2000).optional() });
export const ZBulkItemRef = z.object({ itemId: z.string().min(1).max(64) });
