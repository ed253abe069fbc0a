/** What the screens get of test runs (step 5 and its rehearsal), as zod schemas: no row leaks out. */
import { z } from "zod";
import { ADVICE_CODES } from "./advice-codes";
import { ZControl } from "./bulk-schemas";
import { ZCompleteness } from "./completeness";
import { ZFailure } from "./failure";
import { MIGRATION_ITEM_STATES, RUN_STATUSES, TEST_RUN_KINDS } from "./states";
import { CHECK_RESULTS, TEST_CHECK_KEYS } from "./test-run-checks";

export const ZTestRunKind = z.enum(TEST_RUN_KINDS);

export const ZTestCheck = z.object({ key: z.enum(TEST_CHECK_KEYS), label: z.string(), result: z.enum(CHECK_RESULTS), detail: z.string() });

export const ZAdvice = z.object({ code: z.enum(ADVICE_CODES), text: z.string(), reopenStep: z.literal(4).nullable() });

export const ZStepEffect = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("completed"), step: z.literal(5) }),
  z.object({ kind: z.literal("reopened"), step: z.literal(4), reason: z.string() }),
  z.object({ kind: z.literal("none"), reason: z.string() }),
]);

/** One run in the engagement's list of tests. */
export const ZTestRunSummary = z.object({
  id: z.string(),
  kind: ZTestRunKind,
  status: z.enum(RUN_STATUSES),
  /** Queued or running: the screen polls it. */
  active: z.boolean(),
  result: z.enum(["passed", "failed"]).nullable(),
  requestedAt: z.date(),
  startedAt: z.date().nullable(),
  finishedAt: z.date().nullable(),
  requestedBy: z.string().nullable(),
  /** The company tested (for a rehearsal: the real company whose simulated twin is tested). */
  company: z.string().nullable(),
  pickedBy: z.enum(["support", "smallest"]).nullable(),
  /** Why it failed or was cancelled, in words. */
  statusReason: z.string().nullable(),
});
export type TestRunSummaryView = z.infer<typeof ZTestRunSummary>;

export const ZTestRunCall = z.object({
  id: z.number(),
  at: z.date(),
  operation: z.string(),
  method: z.string(),
  path: z.string(),
  status: z.number().nullable(),
  ok: z.boolean(),
  errorKind: z.string().nullable(),
  errorText: z.string().nullable(),
  correlationId: z.string().nullable(),
  durationMs: z.number(),
  attempts: z.number(),
});

/** One run in full: progress, the two checks, every data type, every call. */
export const ZTestRunDetail = ZTestRunSummary.extend({
  /** Where the calls went: the engagement's target, or for a rehearsal the built-in sandbox. */
  target: z.object({ name: z.string(), baseUrl: z.string() }).nullable(),
  /** A rehearsal's set-up: simulated companies made so far. */
  preparation: z.object({ total: z.number(), created: z.number(), done: z.boolean() }).nullable(),
  /** How far the company's pipeline got (0–5: created, connected, authorized, syncing, verified). */
  progress: z.object({ done: z.number(), of: z.number(), label: z.string() }),
  item: z
    .object({
      id: z.string(),
      name: z.string(),
      externalRef: z.string().nullable(),
      records: z.number().nullable(),
      state: z.enum(MIGRATION_ITEM_STATES),
      companyId: z.string().nullable(),
      connectionId: z.string().nullable(),
      attempts: z.number(),
      lastError: ZFailure.nullable(),
    })
    .nullable(),
  checks: z.array(ZTestCheck),
  dataTypes: z.array(z.object({ dataType: z.string(), status: z.string(), records: z.number().nullable() })),
  /** Whether the data arrived complete: counts beside the old app's, caveats, validation; null before the read (or on a run stored before it was kept). */
  completeness: ZCompleteness.nullable(),
  /** Why it failed: the failed call as the service answered it. */
  failure: ZFailure.nullable(),
  advice: ZAdvice.nullable(),
  stepEffect: ZStepEffect.nullable(),
  durations: z.object({ waitedMs: z.number().nullable(), runMs: z.number().nullable(), syncMs: z.number().nullable() }),
  calls: z.array(ZTestRunCall),
});
export type TestRunDetailView = z.infer<typeof ZTestRunDetail>;

/** A company support may pick for the test. */
export const ZTestableItem = z.object({
  id: z.string(),
  name: z.string(),
  externalRef: z.string().nullable(),
  records: z.number().nullable(),
  state: z.enum(MIGRATION_ITEM_STATES),
});

/**
 * What step 5 offers the viewer now, each allowed or not with the reason (the words the operation
 * would refuse with): the single-company test, the rehearsal, cancelling the run under way.
 * Customers get every one refused.
 */
export const ZTestControls = z.object({ pilot: ZControl, rehearsal: ZControl, cancel: ZControl });
export type TestControlsView = z.infer<typeof ZTestControls>;
