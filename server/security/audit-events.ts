/**
 * Every audit event Ferry records, as data: the action, what it is about, and a schema for its
 * before/after payloads. `writeAudit` accepts only these actions with their payloads, and the
 * timeline reads events back through the same schemas, so wording and storage cannot drift apart.
 * A new feature adds its actions here; the exhaustive switch in the timeline wording then asks
 * for their words.
 */
import { STATUS_REASONS } from "@/core/engagements/status-reasons";
import { z } from "zod";
import { ROLES } from "@/core/accounts/roles";
import { ENGAGEMENT_STATUSES, STEP_NUMBERS, STEP_STATES } from "@/core/engagements/states";
import { SERVICE_TARGET_KINDS } from "@/core/targets/kinds";
import { PURGE_TRIGGERS } from "@/core/migration/handover-states";
import { TEST_RUN_KINDS } from "@/core/migration/states";
import { ZReconciliation } from "@/core/migration/reconciliation";

export const AUDIT_TARGET_TYPES = ["engagement", "step", "service_target", "user", "invitation", "organization", "mail", "submission", "window", "migration_run", "migration_item", "supplementary_file", "engagement_request"] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

const ZStep = z.literal(STEP_NUMBERS);
/** Step states by step number (as JSON keys). */
const ZStepStates = z.record(z.string(), z.enum(STEP_STATES));
const ZStatus = z.enum(ENGAGEMENT_STATUSES);
/** No payload on this side of the event. */
const NONE = z.null().optional();
const ZTestRunKind = z.enum(TEST_RUN_KINDS);

type EventDefinition = { target: AuditTargetType; before: z.ZodType; after: z.ZodType };

/** The audit events, by action. */
export const AUDIT_EVENTS = {
  "engagement.created": {
    target: "engagement",
    before: NONE,
    after: z.object({
      reference: z.string(),
      organization: z.string(),
      /** The platform's key (events before typed audit stored its name under `platform`). */
      platformKey: z.string().optional(),
      platform: z.string().optional(),
      owner: z.string(),
    }),
  },
  // A customer's request for an engagement, and support's answer (accepted into one, or declined).
  "engagement_request.created": {
    target: "engagement_request",
    before: NONE,
    after: z.object({ platformKey: z.string(), companies: z.number().int(), preferredFrom: z.string(), preferredTo: z.string().nullable(), note: z.string().nullable() }),
  },
  "engagement_request.accepted": {
    target: "engagement_request",
    before: NONE,
    after: z.object({ reference: z.string(), owner: z.string() }),
  },
  "engagement_request.declined": {
    target: "engagement_request",
    before: NONE,
    after: z.object({ reason: z.string() }),
  },
  "engagement.status_changed": {
    target: "engagement",
    before: z.object({ status: ZStatus }),
    after: z.object({ status: ZStatus, reasonCode: z.enum(STATUS_REASONS).optional(), reason: z.string().optional() }),
  },
  "engagement.owner_changed": {
    target: "engagement",
    before: z.object({ owner: z.string().nullable() }),
    after: z.object({ owner: z.string() }),
  },
  "engagement.target_changed": {
    target: "engagement",
    before: z.object({ serviceTarget: z.string().nullable() }),
    after: z.object({ serviceTarget: z.string(), baseUrl: z.string(), startedOver: z.number().int().optional() }),
  },
  "step.started": {
    target: "step",
    before: z.object({ step: ZStep, states: ZStepStates.optional() }),
    after: z.object({ step: ZStep, states: ZStepStates.optional() }),
  },
  "step.completed": {
    target: "step",
    before: z.object({ step: ZStep, states: ZStepStates.optional() }).nullish(),
    after: z.object({ step: ZStep, states: ZStepStates.optional(), note: z.string().optional() }),
  },
  "step.reopened": {
    target: "step",
    before: z.object({ step: ZStep, states: ZStepStates.optional() }).nullish(),
    after: z.object({ step: ZStep, states: ZStepStates.optional(), reason: z.string(), cascade: z.array(ZStep) }),
  },
  "engagement.target_key_replaced": {
    target: "engagement",
    before: NONE,
    after: z.object({ serviceTarget: z.string(), keyMask: z.string() }),
  },
  "service_target.created": {
    target: "service_target",
    before: NONE,
    after: z.object({
      name: z.string(),
      baseUrl: z.string(),
      kind: z.enum(SERVICE_TARGET_KINDS),
      // Recorded since targets belong to organisations (events before have none of these).
      organization: z.string().nullable().optional(),
      builtIn: z.boolean().optional(),
      requestsPerMinute: z.number().int().nullable().optional(),
      dailyQuota: z.number().int().nullable().optional(),
    }),
  },
  "service_target.marked_built_in": {
    target: "service_target",
    before: z.object({ organization: z.string().nullable() }),
    after: z.object({ name: z.string(), baseUrl: z.string() }),
  },
  "service_target.renamed": {
    target: "service_target",
    before: z.object({ name: z.string() }),
    after: z.object({ name: z.string() }),
  },
  "service_target.limits_changed": {
    target: "service_target",
    before: z.object({ requestsPerMinute: z.number().int().nullable(), dailyQuota: z.number().int().nullable() }),
    after: z.object({ requestsPerMinute: z.number().int().nullable(), dailyQuota: z.number().int().nullable() }),
  },
  /** Masks only (at most the last four characters), never the key. */
  "service_target.key_replaced": {
    target: "service_target",
    before: z.object({ keyMask: z.string().nullable() }),
    after: z.object({ keyMask: z.string() }),
  },
  "service_target.archived": {
    target: "service_target",
    before: NONE,
    after: z.object({ name: z.string() }),
  },
  "service_target.organization_assigned": {
    target: "service_target",
    before: NONE,
    after: z.object({ organization: z.string() }),
  },
  "secret.decrypted": {
    target: "service_target",
    before: NONE,
    after: z.object({ purpose: z.string() }),
  },
  "organization.created": {
    target: "organization",
    before: NONE,
    after: z.object({ name: z.string() }),
  },
  "organization.clock_targets_changed": {
    target: "organization",
    before: z.object({ targets: z.unknown() }),
    after: z.object({ name: z.string(), targets: z.unknown() }),
  },
  "user.deactivated": {
    target: "user",
    before: z.object({ active: z.boolean() }),
    after: z.object({ active: z.boolean() }),
  },
  "user.reactivated": {
    target: "user",
    before: z.object({ active: z.boolean() }),
    after: z.object({ active: z.boolean() }),
  },
  "invitation.created": {
    target: "invitation",
    before: NONE,
    after: z.object({
      email: z.string(),
      name: z.string(),
      role: z.enum(ROLES),
      organization: z.string().nullable(),
      supersedes: z.array(z.string()),
    }),
  },
  "invitation.revoked": { target: "invitation", before: NONE, after: NONE },
  "user.sessions_ended": {
    target: "user",
    before: NONE,
    after: z.object({ by: z.enum(["self", "admin"]) }),
  },
  "user.password_changed": { target: "user", before: NONE, after: NONE },
  /** A new secret calendar feed URL (the old one stops working). */
  "user.calendar_feed_reset": { target: "user", before: z.object({ hadFeed: z.boolean() }), after: NONE },
  "outbox.link_revealed": {
    target: "mail",
    before: NONE,
    after: z.object({ purpose: z.string(), invitation: z.string(), to: z.string() }),
  },
  "invitation.accepted": {
    target: "user",
    before: NONE,
    after: z.object({ email: z.string(), name: z.string(), role: z.enum(ROLES) }),
  },
  // Steps 1 and 2 as flows (submissions and windows). No secret ever: counts and names.
  "intake.submitted": {
    target: "submission",
    before: z.object({ submission: z.string().nullable(), companies: z.number().int() }),
    after: z.object({
      fileName: z.string(),
      fileKind: z.enum(["csv", "xlsx"]),
      companies: z.number().int(),
      warnings: z.number().int(),
    }),
  },
  "intake.accepted": {
    target: "submission",
    before: NONE,
    after: z.object({ fileName: z.string(), companies: z.number().int(), warnings: z.number().int() }),
  },
  "intake.returned": {
    target: "submission",
    before: z.object({ status: z.enum(["submitted", "accepted"]) }),
    after: z.object({ note: z.string() }),
  },
  "window.proposed": {
    target: "window",
    before: NONE,
    after: z.object({ startsAt: z.string(), endsAt: z.string(), estimateSeconds: z.number().int(), shorterThanEstimate: z.boolean() }),
  },
  "window.withdrawn": { target: "window", before: NONE, after: z.object({ startsAt: z.string(), endsAt: z.string() }) },
  "window.accepted": { target: "window", before: NONE, after: z.object({ startsAt: z.string(), endsAt: z.string() }) },
  "window.declined": {
    target: "window",
    before: NONE,
    after: z.object({ reason: z.string(), windows: z.number().int(), suggested: z.array(z.object({ startsAt: z.string(), endsAt: z.string() })) }),
  },
  "window.rescheduled": {
    target: "window",
    before: NONE,
    after: z.object({ startsAt: z.string(), endsAt: z.string(), reason: z.string() }),
  },
  // Handover: the report produced, acknowledged, and the engagement's credentials purged.
  "handover.confirmed": {
    target: "engagement",
    before: NONE,
    after: z.object({
      total: z.number().int(),
      counts: z.record(z.string(), z.number().int()),
      /** The engagement's reconciliation when the report was produced (absent in older events). */
      reconciliation: ZReconciliation.optional(),
    }),
  },
  "handover.acknowledged": {
    target: "engagement",
    before: NONE,
    after: z.object({ onBehalfOfCustomer: z.boolean(), note: z.string().optional() }),
  },
  "credentials.purged": {
    target: "engagement",
    before: NONE,
    after: z.object({
      trigger: z.enum(PURGE_TRIGGERS),
      /** Real companies whose credentials were deleted, rehearsal companies', and submissions' client secrets. */
      items: z.number().int(),
      rehearsalItems: z.number().int(),
      submissions: z.number().int(),
      /** API keys of the sandbox clients the engagement's rehearsals made (absent in older events). */
      rehearsalKeys: z.number().int().optional(),
      /** Companies' fresh tokens in supplementary files not yet used (absent in older events). */
      supplementaryRows: z.number().int().optional(),
      /** The configured wait, for the automatic purge. */
      afterDays: z.number().int().optional(),
    }),
  },
  // --- The migration engine ---
  "migration.test_requested": {
    target: "migration_run",
    before: NONE,
    after: z.object({ kind: ZTestRunKind, company: z.string(), pickedBy: z.enum(["support", "smallest"]) }),
  },
  "migration.test_finished": {
    target: "migration_run",
    before: NONE,
    after: z.object({ kind: ZTestRunKind, company: z.string(), result: z.enum(["passed", "failed"]), advice: z.string().optional() }),
  },
  "migration.test_cancelled": {
    target: "migration_run",
    before: NONE,
    after: z.object({ kind: ZTestRunKind, company: z.string(), reason: z.string() }),
  },
  "migration.bulk_started": {
    target: "migration_run",
    before: NONE,
    after: z.object({
      /** The companies the run covers. */
      companies: z.number().int(),
      target: z.string(),
      /** Every company supplied, and the single-company test's company among them (absent in older events). */
      supplied: z.number().int().optional(),
      pilot: z.string().nullable().optional(),
      /** Started outside the agreed window: where, by how much, and support's reason. */
      outsideWindow: z
        .object({ position: z.enum(["before", "after"]), startsAt: z.string(), endsAt: z.string(), bySeconds: z.number().int(), reason: z.string() })
        .optional(),
    }),
  },
  "migration.bulk_paused": {
    target: "migration_run",
    before: NONE,
    after: z.object({ reason: z.string().optional() }),
  },
  "migration.bulk_resumed": {
    target: "migration_run",
    before: z.object({ status: z.string(), reason: z.string().nullable() }),
    after: NONE,
  },
  "migration.bulk_cancelled": {
    target: "migration_run",
    before: NONE,
    after: z.object({ reason: z.string(), unfinished: z.number().int() }),
  },
  /** The worker stopped the whole run (401, 403, a 402): nothing more is sent until support resumes. */
  "migration.bulk_stopped": {
    target: "migration_run",
    before: NONE,
    after: z.object({ reason: z.string(), status: z.number().nullable(), correlationId: z.string().nullable() }),
  },
  "migration.bulk_finished": {
    target: "migration_run",
    before: NONE,
    after: z.object({
      /** The run's companies per state. */
      counts: z.record(z.string(), z.number().int()),
      /** The engagement's reconciliation when the run finished (absent in older events). */
      reconciliation: ZReconciliation.optional(),
    }),
  },
  "migration.bulk_retry_failed": {
    target: "migration_run",
    before: NONE,
    after: z.object({ companies: z.number().int() }),
  },
  "migration_item.set_aside": {
    target: "migration_item",
    before: z.object({ state: z.string() }),
    after: z.object({ company: z.string(), reason: z.string() }),
  },
  /** The engagement's target changed and support started the company over on the new one: its ids on the old target kept here. */
  "migration_item.started_over": {
    target: "migration_item",
    before: z.object({ serviceTarget: z.string(), companyId: z.string().nullable(), connectionId: z.string().nullable(), state: z.string() }),
    after: z.object({ company: z.string(), serviceTarget: z.string() }),
  },
  "migration_item.retried": {
    target: "migration_item",
    before: z.object({ state: z.string() }),
    after: z.object({ company: z.string() }),
  },
  /** Step 3's round trip began: a throwaway company and connection on the target for the customer to authorize. */
  "callback_check.started": {
    target: "engagement",
    before: NONE,
    after: z.object({ companyId: z.string(), connectionId: z.string(), callbackUrl: z.string() }),
  },
  /** The platform refused to send the round trip's authorization to the callback URL (not on the customer's app). */
  "callback_check.refused": {
    target: "engagement",
    before: NONE,
    after: z.object({ refusal: z.string() }),
  },
  /** The round trip's connection linked: the callback URL is on the customer's app (step 3 completes with it). */
  "callback_check.proven": {
    target: "engagement",
    before: NONE,
    after: z.object({ companyId: z.string(), connectionId: z.string() }),
  },
  /** The round trip ended without proof: cancelled, or the service refused to make it (status, text, correlationId). */
  "callback_check.ended": {
    target: "engagement",
    before: NONE,
    after: z.object({ outcome: z.enum(["cancelled", "failed"]), reason: z.string(), status: z.number().int().nullable(), correlationId: z.string().nullable() }),
  },
  /** After the bulk run, the companies that failed on their tokens are handed to their end customers (reconnect links). */
  "migration.reconnect_pending": {
    target: "engagement",
    before: NONE,
    after: z.object({ companies: z.number().int() }),
  },
  /** The watch found a company linked again by its end customer; the bulk run carries it on to verified. */
  "migration_item.reconnected": {
    target: "migration_item",
    before: NONE,
    after: z.object({ company: z.string() }),
  },
  /** A waiting company was linked again, but to another platform company than the migrated one (its connection is unlinked). */
  "migration_item.wrong_company": {
    target: "migration_item",
    before: NONE,
    after: z.object({ company: z.string(), expected: z.string(), found: z.string() }),
  },
  /** The watch found a migrated company's connection no longer authorized (the platform's words). */
  "migration_item.dropped": {
    target: "migration_item",
    before: NONE,
    after: z.object({ company: z.string(), reason: z.string() }),
  },
  /** The hypercare days began (the first check after the handover), and until when, on the service's clock. */
  "watch.hypercare_started": {
    target: "engagement",
    before: NONE,
    after: z.object({ days: z.number().int(), endsAt: z.string() }),
  },
  "watch.hypercare_days_changed": {
    target: "engagement",
    before: z.object({ days: z.number().int() }),
    after: z.object({ days: z.number().int() }),
  },
  /** Support looked at the connections the watch found dropped (how many were unseen). */
  "watch.drops_seen": {
    target: "engagement",
    before: NONE,
    after: z.object({ drops: z.number().int() }),
  },
  /** The watch ended, with its final report. */
  "watch.ended": {
    target: "engagement",
    before: NONE,
    after: z.object({
      checks: z.number().int(),
      requests: z.number().int(),
      drops: z.number().int(),
      reconnections: z.number().int(),
      stillPending: z.number().int(),
      verified: z.number().int(),
    }),
  },
  "migration_item.credentials_decrypted": {
    target: "migration_item",
    before: NONE,
    after: z.object({ purpose: z.string(), company: z.string(), rehearsal: z.boolean() }),
  },
  "migration.sandbox_key_decrypted": {
    target: "migration_run",
    before: NONE,
    after: z.object({ purpose: z.string() }),
  },
  // --- The supplementary token file: fresh tokens for the companies that failed on theirs ---
  "supplementary.submitted": {
    target: "supplementary_file",
    /** The file awaiting review that this one replaced, if any, and its companies. */
    before: z.object({ replaced: z.string().nullable(), companies: z.number().int() }),
    after: z.object({ fileName: z.string(), companies: z.number().int(), warnings: z.number().int() }),
  },
  "supplementary.accepted": {
    target: "supplementary_file",
    before: NONE,
    /** Companies retried with their fresh tokens, and those skipped (no longer waiting for tokens by then). */
    after: z.object({ fileName: z.string(), companies: z.number().int(), skipped: z.number().int() }),
  },
  "supplementary.sent_back": {
    target: "supplementary_file",
    before: NONE,
    after: z.object({ fileName: z.string(), note: z.string() }),
  },
  /** A file of fresh tokens still awaiting review when the hypercare watch ended: its tokens deleted unused. */
  "supplementary.expired": {
    target: "supplementary_file",
    before: NONE,
    after: z.object({ fileName: z.string(), companies: z.number().int() }),
  },
  /** A company's fresh tokens deleted once used: its retry reached a final state. */
  "supplementary.tokens_purged": {
    target: "migration_item",
    before: NONE,
    after: z.object({ company: z.string(), state: z.string() }),
  },
} as const satisfies Record<string, EventDefinition>;

export type AuditAction = keyof typeof AUDIT_EVENTS;
export const AUDIT_ACTIONS = Object.keys(AUDIT_EVENTS) as AuditAction[];

type Def<A extends AuditAction> = (typeof AUDIT_EVENTS)[A];

/** Keys whose value may be undefined become optional (an event without a `before` omits it). */
type OptionalWhenUndefined<T> = { [K in keyof T as undefined extends T[K] ? K : never]?: T[K] } & {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
};

/** What a caller passes for an action: its before/after payloads, typed by the action. */
export type AuditPayload<A extends AuditAction> = OptionalWhenUndefined<{
  before: z.input<Def<A>["before"]>;
  after: z.input<Def<A>["after"]>;
}>;

/** A stored event read back through its action's schema. */
export type AuditEvent = {
  [A in AuditAction]: { action: A; before: z.output<Def<A>["before"]>; after: z.output<Def<A>["after"]> };
}[AuditAction];

/** True for actions Ferry knows (rows may hold older or unknown ones). */
export function isAuditAction(action: string): action is AuditAction {
  return Object.hasOwn(AUDIT_EVENTS, action);
}

/**
 * Actions that record access, not a change: a secret decrypted for use, a link shown again. Every
 * other action about an engagement is a change to it and moves its "last change" (writeAudit).
 */
const ACCESS_ONLY: ReadonlySet<AuditAction> = new Set<AuditAction>(["secret.decrypted", "migration_item.credentials_decrypted", "migration.sandbox_key_decrypted", "outbox.link_revealed"]);

/** Whether an action changes what it is about (so an engagement's "last change" moves with it). */
export function isChange(action: AuditAction): boolean {
  return !ACCESS_ONLY.has(action);
}

/** The kind of thing an action is about. */
export function auditTargetType(action: AuditAction): AuditTargetType {
  return AUDIT_EVENTS[action].target;
}

/** Checks a payload against its action's schemas before it is stored (a wrong shape is a bug). */
export function validateAuditPayload<A extends AuditAction>(
  action: A,
  payload: { before?: unknown; after?: unknown },
): { before: Record<string, unknown> | null; after: Record<string, unknown> | null } {
  const def: EventDefinition = AUDIT_EVENTS[action];
  const before = def.before.parse(payload.before ?? null) as Record<string, unknown> | null | undefined;
  const after = def.after.parse(payload.after ?? null) as Record<string, unknown> | null | undefined;
  return { before: before ?? null, after: after ?? null };
}

/** Reads a stored row as a typed event; null when the action is unknown or its payload does not fit. */
export function parseAuditEvent(row: { action: string; before: unknown; after: unknown }): AuditEvent | null {
  if (!isAuditAction(row.action)) return null;
  const def: EventDefinition = AUDIT_EVENTS[row.action];
  const before = def.before.safeParse(row.before ?? null);
  const after = def.after.safeParse(row.after ?? null);
  if (!before.success || !after.success) return null;
  return { action: row.action, before: before.data ?? null, after: after.data ?? null } as AuditEvent;
}
