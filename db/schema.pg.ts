/**
 * Ferry's application database on PostgreSQL: the same tables, columns, indexes and constraints as
 * db/schema.sqlite.ts (where each column is described), with the same JavaScript types (timestamps
 * read as Date, booleans as boolean, JSON as objects, words as their unions), so one piece of domain
 * code works on either. db/schema-drift.test.ts fails when the two differ; domain code imports
 * neither file but db/schema.ts, which picks one.
 */
import { relations, sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { ROLES } from "../core/accounts/roles";
import { ENGAGEMENT_STATUSES, STEP_STATES } from "../core/engagements/states";
import { SERVICE_TARGET_KINDS } from "../core/targets/kinds";
import type { StepEvidence } from "../core/engagements/evidence";
import type { IntakeProblem } from "../core/intake/problems";
import { MAIL_TRANSPORTS } from "../core/mail/transports";
import { ENGAGEMENT_REQUEST_STATUSES, SUBMISSION_STATUSES, WAITING_PARTIES, WINDOW_STATUSES } from "../core/engagements/flow-states";
import { IN_FLIGHT_CALLS, MIGRATION_ITEM_STATES, RUN_KINDS, RUN_STATUSES, SUPPLEMENTARY_STATUSES, WATCH_STATUSES } from "../core/migration/states";
import { PURGE_TRIGGERS } from "../core/migration/handover-states";
import type { IntakeContact, SuggestedWindow } from "./schema.sqlite";

const id = () =>
  text("id")
    .primaryKey()
    .$defaultFn(() => crypto.randomUUID());
/**
 * SQLite keeps timestamps as epoch milliseconds; here they are `timestamptz` to the millisecond, so
 * both read back as the same Date.
 */
const timestampMs = (name: string) => timestamp(name, { mode: "date", withTimezone: true, precision: 3 });
const createdAt = () =>
  timestampMs("created_at")
    .notNull()
    .$defaultFn(() => new Date());

export const organizations = pgTable(
  "organizations",
  {
    id: id(),
    name: text("name").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("organizations_name_unique").on(sql`lower(${t.name})`)],
);

export const users = pgTable(
  "users",
  {
    id: id(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    organizationId: text("organization_id").references(() => organizations.id),
    passwordHash: text("password_hash"),
    active: boolean("active").notNull().default(true),
    sessionVersion: integer("session_version").notNull().default(0),
    lastSignInAt: timestampMs("last_sign_in_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_unique").on(t.email), index("users_org_idx").on(t.organizationId)],
);

export const invitations = pgTable(
  "invitations",
  {
    id: id(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    organizationId: text("organization_id").references(() => organizations.id),
    tokenHash: text("token_hash").notNull(),
    expiresAt: timestampMs("expires_at").notNull(),
    acceptedAt: timestampMs("accepted_at"),
    revokedAt: timestampMs("revoked_at"),
    invitedById: text("invited_by_id").references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("invitations_token_unique").on(t.tokenHash), index("invitations_email_idx").on(t.email)],
);
export const signInThrottle = pgTable(
  "sign_in_throttle",
  {
    key: text("key").primaryKey(),
    failures: integer("failures").notNull(),
    windowStartedAt: timestampMs("window_started_at").notNull(),
    lockedUntil: timestampMs("locked_until"),
    expiresAt: timestampMs("expires_at").notNull().default(sql`to_timestamp(0)`),
  },
  (t) => [index("sign_in_throttle_expires_idx").on(t.expiresAt)],
);
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: id(),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    sealedText: text("sealed_text"),
    invitationId: text("invitation_id").references(() => invitations.id),
    transport: text("transport", { enum: MAIL_TRANSPORTS }).notNull(),
    sentAt: timestampMs("sent_at"),
    error: text("error"),
    createdAt: createdAt(),
  },
  (t) => [index("mail_outbox_created_idx").on(t.createdAt)],
);
export const serviceTargets = pgTable(
  "service_targets",
  {
    id: id(),
    name: text("name").notNull(),
    baseUrl: text("base_url").notNull(),
    apiKeyCipher: text("api_key_cipher").notNull(),
    apiKeyMask: text("api_key_mask"),
    kind: text("kind", { enum: SERVICE_TARGET_KINDS }).notNull(),
    organizationId: text("organization_id").references(() => organizations.id),
    builtIn: boolean("built_in").notNull().default(false),
    requestsPerMinute: integer("requests_per_minute"),
    dailyQuota: integer("daily_quota"),
    archivedAt: timestampMs("archived_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("service_targets_org_idx").on(t.organizationId),
    uniqueIndex("service_targets_built_in_unique").on(t.builtIn).where(sql`${t.builtIn} = true`),
  ],
);

export const engagements = pgTable(
  "engagements",
  {
    id: id(),
    reference: text("reference").notNull(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    platformKey: text("platform_key").notNull(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id),
    serviceTargetId: text("service_target_id").references(() => serviceTargets.id),
    status: text("status", { enum: ENGAGEMENT_STATUSES }).notNull().default("active"),
    currentStep: integer("current_step").notNull().default(1),
    windowStartsAt: timestampMs("window_starts_at"),
    windowEndsAt: timestampMs("window_ends_at"),
    waitingOn: text("waiting_on", { enum: WAITING_PARTIES }),
    waitingSince: timestampMs("waiting_since"),
    statusChangedAt: timestampMs("status_changed_at"),
    hypercareDays: integer("hypercare_days").notNull().default(7),
    createdAt: createdAt(),
    updatedAt: timestampMs("updated_at")
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [
    uniqueIndex("engagements_reference_unique").on(t.reference),
    index("engagements_org_idx").on(t.organizationId, t.updatedAt),
    index("engagements_status_step_idx").on(t.status, t.currentStep),
    index("engagements_step_idx").on(t.currentStep),
    index("engagements_owner_idx").on(t.ownerId),
    index("engagements_platform_idx").on(t.platformKey),
    index("engagements_updated_idx").on(t.updatedAt, t.reference),
  ],
);

export const engagementSteps = pgTable(
  "engagement_steps",
  {
    engagementId: text("engagement_id")
      .notNull()
      .references(() => engagements.id, { onDelete: "cascade" }),
    step: integer("step").notNull(),
    state: text("state", { enum: STEP_STATES }).notNull().default("pending"),
    completedById: text("completed_by_id").references(() => users.id),
    completedAt: timestampMs("completed_at"),
    evidence: jsonb("evidence").$type<StepEvidence>(),
    reopenedReason: text("reopened_reason"),
    reopenedById: text("reopened_by_id").references(() => users.id),
    reopenedAt: timestampMs("reopened_at"),
    updatedAt: timestampMs("updated_at")
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [primaryKey({ columns: [t.engagementId, t.step] })],
);
export const intakeSubmissions = pgTable(
  "intake_submissions",
  {
    id: id(),
    engagementId: text("engagement_id")
      .notNull()
      .references(() => engagements.id, { onDelete: "cascade" }),
    status: text("status", { enum: SUBMISSION_STATUSES }).notNull(),
    clientId: text("client_id").notNull(),
    clientSecretCipher: text("client_secret_cipher"),
    clientSecretMask: text("client_secret_mask").notNull(),
    contacts: jsonb("contacts").$type<IntakeContact[]>().notNull(),
    fileName: text("file_name").notNull(),
    fileKind: text("file_kind", { enum: ["csv", "xlsx"] }).notNull(),
    rowCount: integer("row_count").notNull(),
    warningCount: integer("warning_count").notNull(),
    countsByKind: jsonb("counts_by_kind").$type<Record<string, number>>().notNull(),
    preview: jsonb("preview").$type<Record<string, string>[]>().notNull(),
    submittedById: text("submitted_by_id").references(() => users.id),
    submittedAt: timestampMs("submitted_at").notNull(),
    reviewedById: text("reviewed_by_id").references(() => users.id),
    reviewedAt: timestampMs("reviewed_at"),
    returnNote: text("return_note"),
    replacedItemCount: integer("replaced_item_count"),
    credentialsPurgedAt: timestampMs("credentials_purged_at"),
    warnings: jsonb("warnings").$type<IntakeProblem[]>().notNull().default(sql`'[]'::jsonb`),
  },
  (t) => [index("intake_submissions_engagement_idx").on(t.engagementId, t.submittedAt)],
);
export const migrationItems = pgTable(
  "migration_items",
  {
    id: id(),
    engagementId: text("engagement_id")
      .notNull()
      .references(() => engagements.id, { onDelete: "cascade" }),
    submissionId: text("submission_id")
      .notNull()
      .references(() => intakeSubmissions.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    sourceRef: text("source_ref").notNull(),
    name: text("name").notNull(),
    serviceName: text("service_name"),
    externalRef: text("external_ref"),
    recordsHint: integer("records_hint"),
    credentialsCipher: text("credentials_cipher"),
    credentialsMask: jsonb("credentials_mask").$type<Record<string, string>>().notNull(),
    accessTokenExpiresAt: timestampMs("access_token_expires_at"),
    state: text("state", { enum: MIGRATION_ITEM_STATES }).notNull().default("pending"),
    companyId: text("company_id"),
    connectionId: text("connection_id"),
    attempts: integer("attempts").notNull().default(0),
    lastError: jsonb("last_error").$type<Record<string, unknown>>(),
    lastErrorAt: timestampMs("last_error_at"),
    outcomeReason: text("outcome_reason"),
    checks: jsonb("checks").$type<Record<string, unknown>>(),
    runId: text("run_id"),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestampMs("lease_expires_at"),
    leaseToken: text("lease_token"),
    nextAttemptAt: timestampMs("next_attempt_at"),
    startedAt: timestampMs("started_at"),
    finishedAt: timestampMs("finished_at"),
    credentialsPurgedAt: timestampMs("credentials_purged_at"),
    rehearsalRunId: text("rehearsal_run_id"),
    inFlightCall: text("in_flight_call", { enum: IN_FLIGHT_CALLS }),
    linkUrl: text("link_url"),
    reconnectSince: timestampMs("reconnect_since"),
    reconnectedAt: timestampMs("reconnected_at"),
    droppedAt: timestampMs("dropped_at"),
    supplementaryFileId: text("supplementary_file_id"),
    updatedAt: timestampMs("updated_at")
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [
    index("migration_items_rehearsal_idx").on(t.rehearsalRunId),
    index("migration_items_engagement_idx").on(t.engagementId, t.position),
    index("migration_items_state_idx").on(t.engagementId, t.state, t.position),
    index("migration_items_claim_idx").on(t.runId, t.state, t.nextAttemptAt),
    index("migration_items_lease_idx").on(t.leaseExpiresAt),
    index("migration_items_real_state_idx").on(t.engagementId, t.rehearsalRunId, t.state, t.position),
  ],
);
export const windowProposals = pgTable(
  "window_proposals",
  {
    id: id(),
    engagementId: text("engagement_id")
      .notNull()
      .references(() => engagements.id, { onDelete: "cascade" }),
    status: text("status", { enum: WINDOW_STATUSES }).notNull(),
    startsAt: timestampMs("starts_at").notNull(),
    endsAt: timestampMs("ends_at").notNull(),
    estimateSeconds: integer("estimate_seconds").notNull(),
    estimate: jsonb("estimate").$type<Record<string, unknown>>().notNull(),
    note: text("note"),
    proposedById: text("proposed_by_id").references(() => users.id),
    proposedAt: timestampMs("proposed_at").notNull(),
    decidedById: text("decided_by_id").references(() => users.id),
    decidedAt: timestampMs("decided_at"),
  },
  (t) => [index("window_proposals_engagement_idx").on(t.engagementId, t.proposedAt)],
);
export const windowDeclines = pgTable(
  "window_declines",
  {
    id: id(),
    engagementId: text("engagement_id")
      .notNull()
      .references(() => engagements.id, { onDelete: "cascade" }),
    reason: text("reason").notNull(),
    suggested: jsonb("suggested").$type<SuggestedWindow[]>().notNull(),
    windowIds: jsonb("window_ids").$type<string[]>().notNull(),
    declinedById: text("declined_by_id")
      .notNull()
      .references(() => users.id),
    declinedAt: timestampMs("declined_at").notNull(),
  },
  (t) => [index("window_declines_engagement_idx").on(t.engagementId, t.declinedAt)],
);
export const migrationRuns = pgTable(
  "migration_runs",
  {
    id: id(),
    engagementId: text("engagement_id")
      .notNull()
      .references(() => engagements.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: RUN_KINDS }).notNull(),
    status: text("status", { enum: RUN_STATUSES }).notNull(),
    serviceTargetId: text("service_target_id").references(() => serviceTargets.id),
    itemId: text("item_id"),
    requestedById: text("requested_by_id").references(() => users.id),
    requestedAt: timestampMs("requested_at").notNull(),
    startedAt: timestampMs("started_at"),
    finishedAt: timestampMs("finished_at"),
    statusReason: text("status_reason"),
    outcome: jsonb("outcome").$type<Record<string, unknown>>(),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestampMs("lease_expires_at"),
    leaseToken: text("lease_token"),
    sandboxClientId: text("sandbox_client_id"),
    sandboxApiKeyCipher: text("sandbox_api_key_cipher"),
    updatedAt: timestampMs("updated_at")
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [index("migration_runs_engagement_idx").on(t.engagementId, t.requestedAt), index("migration_runs_claim_idx").on(t.status, t.leaseExpiresAt)],
);
export const serviceCalls = pgTable(
  "service_calls",
  {
    // SQLite's INTEGER PRIMARY KEY is 64-bit: a bigint identity, read as a JS number as there.
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    runId: text("run_id").notNull(),
    itemId: text("item_id"),
    at: timestampMs("at").notNull(),
    operation: text("operation").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    status: integer("status"),
    ok: boolean("ok").notNull(),
    errorKind: text("error_kind"),
    errorText: text("error_text"),
    correlationId: text("correlation_id"),
    durationMs: integer("duration_ms").notNull(),
    attempts: integer("attempts").notNull().default(1),
    detail: jsonb("detail").$type<Record<string, unknown>>(),
  },
  (t) => [index("service_calls_run_idx").on(t.runId, t.id), index("service_calls_item_idx").on(t.itemId, t.id)],
);

export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    at: timestampMs("at")
      .notNull()
      .$defaultFn(() => new Date()),
    actorId: text("actor_id"),
    actorLabel: text("actor_label").notNull(),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    engagementId: text("engagement_id"),
    organizationId: text("organization_id"),
    before: jsonb("before").$type<Record<string, unknown> | null>(),
    after: jsonb("after").$type<Record<string, unknown> | null>(),
  },
  (t) => [
    index("audit_engagement_idx").on(t.engagementId, t.id),
    index("audit_target_idx").on(t.targetType, t.targetId),
  ],
);
export const handovers = pgTable(
  "handovers",
  {
    id: id(),
    engagementId: text("engagement_id")
      .notNull()
      .references(() => engagements.id, { onDelete: "cascade" }),
    confirmedById: text("confirmed_by_id").references(() => users.id),
    confirmedAt: timestampMs("confirmed_at").notNull(),
    counts: jsonb("counts").$type<Record<string, number>>().notNull(),
    total: integer("total").notNull(),
    acknowledgedById: text("acknowledged_by_id").references(() => users.id),
    acknowledgedAt: timestampMs("acknowledged_at"),
    acknowledgementNote: text("acknowledgement_note"),
    purgedAt: timestampMs("purged_at"),
    purgeTrigger: text("purge_trigger", { enum: PURGE_TRIGGERS }),
  },
  (t) => [uniqueIndex("handovers_engagement_unique").on(t.engagementId), index("handovers_confirmed_idx").on(t.confirmedAt)],
);
export const watches = pgTable(
  "watches",
  {
    engagementId: text("engagement_id")
      .primaryKey()
      .references(() => engagements.id, { onDelete: "cascade" }),
    status: text("status", { enum: WATCH_STATUSES }).notNull().default("watching"),
    startedAt: timestampMs("started_at").notNull(),
    hypercareEndsAt: timestampMs("hypercare_ends_at"),
    nextCheckAt: timestampMs("next_check_at").notNull(),
    lastCheckAt: timestampMs("last_check_at"),
    checks: integer("checks").notNull().default(0),
    requests: integer("requests").notNull().default(0),
    requestsToday: integer("requests_today").notNull().default(0),
    dayStartedAt: timestampMs("day_started_at"),
    drops: integer("drops").notNull().default(0),
    reconnections: integer("reconnections").notNull().default(0),
    lastFailure: jsonb("last_failure").$type<Record<string, unknown>>(),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: timestampMs("lease_expires_at"),
    endedAt: timestampMs("ended_at"),
  },
  (t) => [index("watches_due_idx").on(t.status, t.nextCheckAt)],
);
export const supplementaryFiles = pgTable(
  "supplementary_files",
  {
    id: id(),
    engagementId: text("engagement_id")
      .notNull()
      .references(() => engagements.id, { onDelete: "cascade" }),
    status: text("status", { enum: SUPPLEMENTARY_STATUSES }).notNull().default("submitted"),
    fileName: text("file_name").notNull(),
    rowCount: integer("row_count").notNull(),
    warnings: jsonb("warnings").$type<IntakeProblem[]>().notNull(),
    submittedById: text("submitted_by_id")
      .notNull()
      .references(() => users.id),
    submittedAt: timestampMs("submitted_at").notNull(),
    decidedById: text("decided_by_id").references(() => users.id),
    decidedAt: timestampMs("decided_at"),
    note: text("note"),
  },
  (t) => [index("supplementary_files_engagement_idx").on(t.engagementId, t.submittedAt)],
);
export const supplementaryRows = pgTable(
  "supplementary_rows",
  {
    id: id(),
    fileId: text("file_id")
      .notNull()
      .references(() => supplementaryFiles.id, { onDelete: "cascade" }),
    itemId: text("item_id")
      .notNull()
      .references(() => migrationItems.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    sourceRef: text("source_ref").notNull(),
    credentialsCipher: text("credentials_cipher"),
    credentialsMask: jsonb("credentials_mask").$type<Record<string, string>>().notNull(),
    accessTokenExpiresAt: timestampMs("access_token_expires_at"),
    credentialsPurgedAt: timestampMs("credentials_purged_at"),
  },
  (t) => [index("supplementary_rows_file_idx").on(t.fileId, t.position), index("supplementary_rows_item_idx").on(t.itemId)],
);

export const engagementRequests = pgTable(
  "engagement_requests",
  {
    id: id(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    platformKey: text("platform_key").notNull(),
    companies: integer("companies").notNull(),
    preferredFrom: timestampMs("preferred_from").notNull(),
    preferredTo: timestampMs("preferred_to"),
    note: text("note"),
    status: text("status", { enum: ENGAGEMENT_REQUEST_STATUSES }).notNull().default("open"),
    requestedById: text("requested_by_id")
      .notNull()
      .references(() => users.id),
    requestedAt: timestampMs("requested_at").notNull(),
    decidedById: text("decided_by_id").references(() => users.id),
    decidedAt: timestampMs("decided_at"),
    declineReason: text("decline_reason"),
    engagementId: text("engagement_id").references(() => engagements.id),
  },
  (t) => [index("engagement_requests_status_idx").on(t.status, t.requestedAt), index("engagement_requests_org_idx").on(t.organizationId, t.requestedAt)],
);

/**
 * One rate budget per service target across worker processes (server/service-client/shared-budget.ts).
 * A row per pacer that sends to the target: the machine it runs on (its per-address share of the
 * target's window is the window divided among the machine's live rows), its heartbeat (a row
 * older than the stale limit is dead: its share is freed and its unused quota handed back), and
 * the daily-quota blocks it holds.
 */
export const rateBudgetMembers = pgTable(
  "rate_budget_members",
  {
    id: text("id").primaryKey(),
    targetId: text("target_id")
      .notNull()
      .references(() => serviceTargets.id, { onDelete: "cascade" }),
    /** FERRY_MACHINE_ID, else the host name: the members of one machine share its address's limit. */
    machineId: text("machine_id").notNull(),
    /** Whether it takes a share of the per-address window (the watch's trickle does not). */
    sharesWindow: boolean("shares_window").notNull().default(true),
    joinedAt: timestampMs("joined_at").notNull(),
    heartbeatAt: timestampMs("heartbeat_at").notNull(),
    /** The quota period its blocks were taken from (null: none held). */
    quotaPeriod: text("quota_period"),
    /** Requests of that period's quota granted to it in blocks, sent as of its last heartbeat, and how many more it may send before its next one. */
    quotaTaken: integer("quota_taken").notNull().default(0),
    quotaUsed: integer("quota_used").notNull().default(0),
    quotaAhead: integer("quota_ahead").notNull().default(0),
  },
  (t) => [index("rate_budget_members_target_idx").on(t.targetId, t.machineId), index("rate_budget_members_heartbeat_idx").on(t.heartbeatAt)],
);

/** The worker processes that may hold leases (see db/schema.sqlite.ts). */
export const workerProcesses = pgTable("worker_processes", {
  owner: text("owner").primaryKey(),
  host: text("host").notNull(),
  pid: integer("pid").notNull(),
  holdsLock: boolean("holds_lock").notNull().default(false),
  startedAt: timestampMs("started_at").notNull(),
});

/**
 * A target's daily quota for one period (a UTC day, or the period whose reset the service
 * announced), shared out in blocks: `granted` only grows by an atomic conditional update that
 * never passes `quota`, and shrinks by what a member hands back unused.
 */
export const rateBudgetQuotas = pgTable(
  "rate_budget_quotas",
  {
    targetId: text("target_id")
      .notNull()
      .references(() => serviceTargets.id, { onDelete: "cascade" }),
    period: text("period").notNull(),
    quota: integer("quota").notNull(),
    granted: integer("granted").notNull().default(0),
    /** When the period ends (rows of ended periods are deleted). */
    resetsAt: timestampMs("resets_at").notNull(),
    updatedAt: timestampMs("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.targetId, t.period] }), index("rate_budget_quotas_resets_idx").on(t.resetsAt)],
);

export const organizationsRelations = relations(organizations, ({ many }) => ({
  users: many(users),
  engagements: many(engagements),
}));

export const usersRelations = relations(users, ({ one }) => ({
  organization: one(organizations, { fields: [users.organizationId], references: [organizations.id] }),
}));

export const engagementsRelations = relations(engagements, ({ one, many }) => ({
  organization: one(organizations, { fields: [engagements.organizationId], references: [organizations.id] }),
  owner: one(users, { fields: [engagements.ownerId], references: [users.id] }),
  serviceTarget: one(serviceTargets, { fields: [engagements.serviceTargetId], references: [serviceTargets.id] }),
  steps: many(engagementSteps),
}));

export const serviceTargetsRelations = relations(serviceTargets, ({ one }) => ({
  organization: one(organizations, { fields: [serviceTargets.organizationId], references: [organizations.id] }),
}));

export const engagementStepsRelations = relations(engagementSteps, ({ one }) => ({
  engagement: one(engagements, { fields: [engagementSteps.engagementId], references: [engagements.id] }),
}));
