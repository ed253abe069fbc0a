// Generated from db/schema-description.ts by `npm run db:schema`: do not edit.
/**
 * Ferry's application database (drizzle). The sandbox has its own database and never imports this
 * file; domain code imports db/schema.ts, which picks this file or its twin for the other database.
 *
 * This file is for SQLite, written by `npm run db:schema` from db/schema-description.ts:
 * change that, run it, and commit both files it writes (db/schema-drift.test.ts fails while
 * they are out of date).
 */
import { relations, sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
// The domain owns its unions; the schema stores them (imports point down from db to nothing else).
import { ROLES } from "../core/accounts/roles";
import { ENGAGEMENT_STATUSES, STEP_STATES } from "../core/engagements/states";
import { SERVICE_TARGET_KINDS } from "../core/targets/kinds";
import type { StepEvidence } from "../core/engagements/evidence";
import type { IntakeProblem } from "../core/intake/problems";
import { MAIL_TRANSPORTS } from "../core/mail/transports";
import { CALLBACK_CHECK_STATUSES, ENGAGEMENT_REQUEST_STATUSES, SUBMISSION_STATUSES, WAITING_PARTIES, WINDOW_STATUSES } from "../core/engagements/flow-states";
import { IN_FLIGHT_CALLS, MIGRATION_ITEM_STATES, RECONNECT_LINK_OUTCOMES, RUN_KINDS, RUN_STATUSES, SUPPLEMENTARY_STATUSES, WATCH_STATUSES } from "../core/migration/states";
import { PURGE_TRIGGERS } from "../core/migration/handover-states";
import { STATUS_REASONS } from "../core/engagements/status-reasons";
import { MAIL_PREFERENCES, REMINDER_KINDS } from "../core/engagements/reminders";
import type { ClockTargetOverrides } from "../core/engagements/clocks";
import type { IntakeContact, PausedMove, SuggestedWindow } from "./row-types";
export type { IntakeContact, PausedMove, SuggestedWindow } from "./row-types";

const id = () =>
  text("id")
    .primaryKey()
    .$defaultFn(() => crypto.randomUUID());
const createdAt = () =>
  integer("created_at", { mode: "timestamp_ms" })
    .notNull()
    .$defaultFn(() => new Date());

export const organizations = sqliteTable(
  "organizations",
  {
    id: id(),
    name: text("name").notNull(),
    /** The organisation's changes to the default move targets and stale days (core/engagements/clocks.ts); null: the defaults. */
    clockTargets: text("clock_targets", { mode: "json" }).$type<ClockTargetOverrides>(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("organizations_name_unique").on(sql`lower(${t.name})`),
  ],
);

export const users = sqliteTable(
  "users",
  {
    id: id(),
    /** Stored lower-cased; unique. */
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    /** Set for customers only: the one organisation they belong to. */
    organizationId: text("organization_id").references(() => organizations.id),
    /** scrypt hash; null until the invitation is accepted. */
    passwordHash: text("password_hash"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    /** Which mail the person wants: every mail, the daily digest only, or only mail that needs them to act (core/engagements/reminders.ts). */
    mailPreference: text("mail_preference", { enum: MAIL_PREFERENCES }).notNull().default("every"),
    /**
     * Carried in every session token; a token with another version is refused. Bumped on sign-out,
     * "sign out everywhere", password change and deactivation, so those end every session at once.
     */
    sessionVersion: integer("session_version").notNull().default(0),
    lastSignInAt: integer("last_sign_in_at", { mode: "timestamp_ms" }),
    /** SHA-256 of the secret in the person's window calendar feed URL (.ics); null until they make one. Resetting it replaces it. */
    calendarFeedHash: text("calendar_feed_hash"),
    /** The same secret, encrypted at rest, so the person can copy their feed URL again. */
    calendarFeedToken: text("calendar_feed_token"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("users_email_unique").on(t.email),
    index("users_org_idx").on(t.organizationId),
    uniqueIndex("users_calendar_feed_unique").on(t.calendarFeedHash),
  ],
);

export const invitations = sqliteTable(
  "invitations",
  {
    id: id(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    organizationId: text("organization_id").references(() => organizations.id),
    /** SHA-256 of the one-time token; the token itself is only ever in the emailed link. */
    tokenHash: text("token_hash").notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    acceptedAt: integer("accepted_at", { mode: "timestamp_ms" }),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    invitedById: text("invited_by_id").references(() => users.id),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("invitations_token_unique").on(t.tokenHash),
    index("invitations_email_idx").on(t.email),
  ],
);

/**
 * Sign-in attempts, for throttling (one row per email and per client address). `failures` counts
 * the window's attempts that did not succeed, including those still being checked: an attempt is
 * reserved before the password check and released only if it succeeds.
 */
export const signInThrottle = sqliteTable(
  "sign_in_throttle",
  {
    key: text("key").primaryKey(),
    failures: integer("failures").notNull(),
    windowStartedAt: integer("window_started_at", { mode: "timestamp_ms" }).notNull(),
    lockedUntil: integer("locked_until", { mode: "timestamp_ms" }),
    /** When the row stops mattering (window and lock both over); expired rows are deleted. */
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull().default(sql`0`),
  },
  (t) => [
    index("sign_in_throttle_expires_idx").on(t.expiresAt),
  ],
);

/**
 * Outgoing mail, a transactional outbox: each row is written in the transaction of the change that causes it, and
 * the worker's sender claims, delivers and marks it sent (server/mail/sender.ts). In the embedded default the row
 * is the delivery; with SMTP it is also a log. `text` never holds a one-time link: links are replaced by a note.
 */
export const mailOutbox = sqliteTable(
  "mail_outbox",
  {
    id: id(),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    /** The message with its one-time links replaced (safe to show and log). */
    text: text("text").notNull(),
    /**
     * The whole message, encrypted (secrets key ring), kept only in the embedded default (no SMTP)
     * so an admin can pass an invitation link on; cleared once the invitation is used or withdrawn.
     */
    sealedText: text("sealed_text"),
    /** The invitation this message carries, if any (its link is shown only while it is pending). */
    invitationId: text("invitation_id").references(() => invitations.id),
    /** How it goes (or went): queued with the web app's setting, set by the sender that delivered it. */
    transport: text("transport", { enum: MAIL_TRANSPORTS }).notNull(),
    /** Set once, by the sender whose claim delivered it (the update names its claim token). */
    sentAt: integer("sent_at", { mode: "timestamp_ms" }),
    /** The last delivery attempt's error (kept while it is retried, and after the sender gave up). */
    error: text("error"),
    /** Delivery attempts so far. */
    attempts: integer("attempts").notNull().default(0),
    /** Not before this is it tried again (null: due now); backs off exponentially after each failure. */
    nextAttemptAt: integer("next_attempt_at", { mode: "timestamp_ms" }),
    /** When the sender gave up on it (its attempts used up): never tried again. */
    failedAt: integer("failed_at", { mode: "timestamp_ms" }),
    /** The fencing token of the sender's claim that holds it: new for every claim, named by the write that marks it sent. */
    claimToken: text("claim_token"),
    /** The claim's lease: after it another sender may claim the message (the first one died mid-send). */
    claimExpiresAt: integer("claim_expires_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("mail_outbox_created_idx").on(t.createdAt),
    // The sender's look for messages due.
    index("mail_outbox_due_idx").on(t.sentAt, t.failedAt, t.nextAttemptAt),
  ],
);

/**
 * Where migrations go: one customer's own account on the service (base URL + encrypted API key),
 * so it belongs to that customer's organisation, or the built-in sandbox, which serves every
 * organisation and belongs to none.
 */
export const serviceTargets = sqliteTable(
  "service_targets",
  {
    id: id(),
    name: text("name").notNull(),
    baseUrl: text("base_url").notNull(),
    /** Encrypted API key envelope (see server/security/secrets.ts). */
    apiKeyCipher: text("api_key_cipher").notNull(),
    /** The masked key (last four characters at most), made at encryption time so lists never decrypt. */
    apiKeyMask: text("api_key_mask"),
    /** What the admin said it is (a label and the sync timing model); it never relaxes the limits. */
    kind: text("kind", { enum: SERVICE_TARGET_KINDS }).notNull(),
    /** The organisation whose account this is; null for the built-in sandbox and for targets an admin has yet to assign. */
    organizationId: text("organization_id").references(() => organizations.id),
    /** Set only by Ferry's start for its own sandbox at SANDBOX_URL, never through the API: the one target not held to the real service's limits. */
    builtIn: integer("built_in", { mode: "boolean" }).notNull().default(false),
    /** Known limits an admin set on the target, replacing the service's documented ones (null: the documented one). */
    requestsPerMinute: integer("requests_per_minute"),
    dailyQuota: integer("daily_quota"),
    /** Archived targets are kept for the record (runs name them) but offered nowhere. */
    archivedAt: integer("archived_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("service_targets_org_idx").on(t.organizationId),
    // At most one built-in sandbox.
    uniqueIndex("service_targets_built_in_unique").on(t.builtIn).where(sql`${t.builtIn} = 1`),
  ],
);

export const engagements = sqliteTable(
  "engagements",
  {
    id: id(),
    /** Human reference shown and quoted everywhere, e.g. FER-1042. */
    reference: text("reference").notNull(),
    organizationId: text("organization_id").notNull().references(() => organizations.id),
    platformKey: text("platform_key").notNull(),
    ownerId: text("owner_id").notNull().references(() => users.id),
    serviceTargetId: text("service_target_id").references(() => serviceTargets.id),
    status: text("status", { enum: ENGAGEMENT_STATUSES }).notNull().default("active"),
    /** The first step not done (7 when all six are done); kept in step with the steps for filtering. */
    currentStep: integer("current_step").notNull().default(1),
    windowStartsAt: integer("window_starts_at", { mode: "timestamp_ms" }),
    windowEndsAt: integer("window_ends_at", { mode: "timestamp_ms" }),
    /** Whose move it is (customer or support), and since when; null while nobody's (on hold, done). */
    waitingOn: text("waiting_on", { enum: WAITING_PARTIES }),
    waitingSince: integer("waiting_since", { mode: "timestamp_ms" }),
    /** How long the current move had already run before a hold (its clock pauses on hold and resumes here). */
    moveCreditMs: integer("move_credit_ms").notNull().default(0),
    /** While on hold: whose move was paused and how long it had run; cleared on resume. */
    pausedMove: text("paused_move", { mode: "json" }).$type<PausedMove>(),
    /**
     * When the current move is due under the organisation's targets (core/engagements/clocks.ts), kept with every change
     * of whose move it is, so the portfolio finds the late in the database; null while nobody's move or on hold.
     */
    dueAt: integer("due_at", { mode: "timestamp_ms" }),
    /** When the current move becomes at risk (a quarter of its target left); null with due_at. */
    atRiskAt: integer("at_risk_at", { mode: "timestamp_ms" }),
    /** Why it went on hold or was cancelled (the short list); cleared on resume. */
    statusReason: text("status_reason", { enum: STATUS_REASONS }),
    /** The free text given with the reason. */
    statusNote: text("status_note"),
    // Handover and purge: when the status last changed (null: not since this column
    // exists; updatedAt stands in), so a cancelled engagement's credentials are purged a set time
    // after its cancellation.
    statusChangedAt: integer("status_changed_at", { mode: "timestamp_ms" }),
    /** Days after the handover during which the migrated connections are checked daily (the hypercare watch). */
    hypercareDays: integer("hypercare_days").notNull().default(7),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().$defaultFn(() => new Date()),
  },
  (t) => [
    uniqueIndex("engagements_reference_unique").on(t.reference),
    index("engagements_org_idx").on(t.organizationId, t.updatedAt),
    index("engagements_status_step_idx").on(t.status, t.currentStep),
    index("engagements_step_idx").on(t.currentStep),
    index("engagements_owner_idx").on(t.ownerId),
    index("engagements_platform_idx").on(t.platformKey),
    index("engagements_updated_idx").on(t.updatedAt, t.reference),
    index("engagements_due_idx").on(t.status, t.dueAt),
  ],
);

export const engagementSteps = sqliteTable(
  "engagement_steps",
  {
    engagementId: text("engagement_id").notNull().references(() => engagements.id, { onDelete: "cascade" }),
    step: integer("step").notNull(),
    state: text("state", { enum: STEP_STATES }).notNull().default("pending"),
    completedById: text("completed_by_id").references(() => users.id),
    completedAt: integer("completed_at", { mode: "timestamp_ms" }),
    /** What shows the step is done: a note, and later structured evidence (JSON). */
    evidence: text("evidence", { mode: "json" }).$type<StepEvidence>(),
    reopenedReason: text("reopened_reason"),
    reopenedById: text("reopened_by_id").references(() => users.id),
    reopenedAt: integer("reopened_at", { mode: "timestamp_ms" }),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().$defaultFn(() => new Date()),
  },
  (t) => [
    primaryKey({ columns: [t.engagementId, t.step] }),
  ],
);

/**
 * Step 1: a customer's platform details and token file. The OAuth client secret is encrypted
 * (key ring, associated data naming the engagement and submission); the file itself is not kept,
 * only its counts and a masked preview. One submission is current; a new one replaces it.
 */
export const intakeSubmissions = sqliteTable(
  "intake_submissions",
  {
    id: id(),
    engagementId: text("engagement_id").notNull().references(() => engagements.id, { onDelete: "cascade" }),
    status: text("status", { enum: SUBMISSION_STATUSES }).notNull(),
    clientId: text("client_id").notNull(),
    /** Encrypted client secret; null once purged. */
    clientSecretCipher: text("client_secret_cipher"),
    clientSecretMask: text("client_secret_mask").notNull(),
    contacts: text("contacts", { mode: "json" }).$type<IntakeContact[]>().notNull(),
    fileName: text("file_name").notNull(),
    fileKind: text("file_kind", { enum: ["csv", "xlsx"] }).notNull(),
    rowCount: integer("row_count").notNull(),
    warningCount: integer("warning_count").notNull(),
    /** Warnings per kind (a submission has no blocking errors). */
    countsByKind: text("counts_by_kind", { mode: "json" }).$type<Record<string, number>>().notNull(),
    /** The first rows with every secret masked, for support's review. */
    preview: text("preview", { mode: "json" }).$type<Record<string, string>[]>().notNull(),
    submittedById: text("submitted_by_id").references(() => users.id),
    submittedAt: integer("submitted_at", { mode: "timestamp_ms" }).notNull(),
    reviewedById: text("reviewed_by_id").references(() => users.id),
    reviewedAt: integer("reviewed_at", { mode: "timestamp_ms" }),
    /** Why support sent it back (the customer sees it and is mailed). */
    returnNote: text("return_note"),
    /** Items of the previous submission this one replaced (audited counts before/after). */
    replacedItemCount: integer("replaced_item_count"),
    credentialsPurgedAt: integer("credentials_purged_at", { mode: "timestamp_ms" }),
    // The intake flow: the file's warnings as the customer saw them, for support's review.
    /**
     * The warnings by line or cell (at most MAX_STORED_WARNINGS; `countsByKind` counts them all).
     * Never a secret: a problem's value is masked when its column is secret.
     */
    warnings: text("warnings", { mode: "json" }).$type<IntakeProblem[]>().notNull().default(sql`'[]'`),
  },
  (t) => [
    index("intake_submissions_engagement_idx").on(t.engagementId, t.submittedAt),
  ],
);

/**
 * One company to migrate, from one row of the accepted token file: the table the migration
 * engine works from. Credentials are one encrypted envelope (associated data: engagement and item
 * id, so a ciphertext cannot move to another row), decrypted only in memory for the
 * authorization call. Each call's result is stored before the next call.
 */
export const migrationItems = sqliteTable(
  "migration_items",
  {
    id: id(),
    engagementId: text("engagement_id").notNull().references(() => engagements.id, { onDelete: "cascade" }),
    submissionId: text("submission_id").notNull().references(() => intakeSubmissions.id, { onDelete: "cascade" }),
    /** Row order in the file (0-based), and where the row was (line, or cell for XLSX). */
    position: integer("position").notNull(),
    sourceRef: text("source_ref").notNull(),
    /** The company's name as the file gives it (kept in the company's description on the service). */
    name: text("name").notNull(),
    /**
     * The name sent to the service: accents folded, the characters it drops removed, or a stand-in
     * when nothing is left (server/platforms/company-name.ts). Null on items stored before it was
     * recorded: the same rule gives it from `name`.
     */
    serviceName: text("service_name"),
    externalRef: text("external_ref"),
    recordsHint: integer("records_hint"),
    /**
     * The record count per data type the old app holds, from the token file's `count_<dataType>` columns
     * (`{ invoices: 1040 }`); null when the row gives none. Read back counts below these are flagged.
     */
    oldCounts: text("old_counts", { mode: "json" }).$type<Record<string, number>>(),
    /** Encrypted credential map; null once purged. */
    credentialsCipher: text("credentials_cipher"),
    /** Each credential field masked (last four characters at most), for screens. */
    credentialsMask: text("credentials_mask", { mode: "json" }).$type<Record<string, string>>().notNull(),
    /** The access token's expiry from the file (`expiresAt`, not a secret), for step 4's risk. */
    accessTokenExpiresAt: integer("access_token_expires_at", { mode: "timestamp_ms" }),
    state: text("state", { enum: MIGRATION_ITEM_STATES }).notNull().default("pending"),
    companyId: text("company_id"),
    connectionId: text("connection_id"),
    attempts: integer("attempts").notNull().default(0),
    /** The last failure: kind, status, error text, correlationId, validation (never a secret). */
    lastError: text("last_error", { mode: "json" }).$type<Record<string, unknown>>(),
    lastErrorAt: integer("last_error_at", { mode: "timestamp_ms" }),
    /** Why the item ended where it is (reauth reason, set-aside reason), in words. */
    outcomeReason: text("outcome_reason"),
    /** Check results once verified or failed (connection, data types with counts). */
    checks: text("checks", { mode: "json" }).$type<Record<string, unknown>>(),
    /** The run that holds the item, and the worker lease on it. */
    runId: text("run_id"),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: integer("lease_expires_at", { mode: "timestamp_ms" }),
    /** The fencing token of the claim that holds the lease: new for every claim, checked by every write and renewal. */
    leaseToken: text("lease_token"),
    /** Not before this time (backoff, polling). */
    nextAttemptAt: integer("next_attempt_at", { mode: "timestamp_ms" }),
    startedAt: integer("started_at", { mode: "timestamp_ms" }),
    finishedAt: integer("finished_at", { mode: "timestamp_ms" }),
    credentialsPurgedAt: integer("credentials_purged_at", { mode: "timestamp_ms" }),
    /**
     * Set on the simulated companies of a rehearsal (the run that made them); null on the
     * customer's real companies. Everything about the real migration (counts, bulk run, handover,
     * purge) reads real items only: see `realItems()` in server/items/item-scope.ts.
     */
    rehearsalRunId: text("rehearsal_run_id"),
    // --- The pipeline's bookkeeping ---
    /**
     * A create call (createCompany, createConnection) sent whose answer is not stored yet. Set
     * before the call and cleared with its stored result: when a worker resumes an item that still
     * names one, the company tag or the connection list is looked up before creating again.
     */
    inFlightCall: text("in_flight_call", { enum: IN_FLIGHT_CALLS }),
    // --- The last mile ---
    /** The service's Link URL for the company (its `redirect`), where its end customer can authorize again. */
    linkUrl: text("link_url"),
    /**
     * The platform company the migrated connection was authorized for: the service's `connectionInfo` (realmId,
     * organisation id, shop domain…) when the migrated tokens linked it. A reconnection must land on the same one.
     */
    platformTenant: text("platform_tenant", { mode: "json" }).$type<Record<string, string>>(),
    /**
     * The platform company a reconnection landed on when it was not the migrated one (Ferry unlinked that
     * connection, so nothing of the other company is read); null otherwise, and again once the right one reconnects.
     */
    wrongTenant: text("wrong_tenant", { mode: "json" }).$type<Record<string, string>>(),
    /** Since when the company waits for its end customer to reconnect (reconnect_pending). */
    reconnectSince: integer("reconnect_since", { mode: "timestamp_ms" }),
    /** When the company was verified again after a reconnection through the Link flow. */
    reconnectedAt: integer("reconnected_at", { mode: "timestamp_ms" }),
    /** When the watch found its connection dropped (Deauthorized) after it had been verified. */
    droppedAt: integer("dropped_at", { mode: "timestamp_ms" }),
    /** The service's time (`generatedDate`) of the latest connection event applied to it: an older one arriving late never moves it back. */
    connectionEventAt: integer("connection_event_at", { mode: "timestamp_ms" }),
    /** The supplementary file whose fresh tokens the company was last retried with. */
    supplementaryFileId: text("supplementary_file_id"),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().$defaultFn(() => new Date()),
    // --- Computed by the database ---
    /**
     * How far the company got, for the reconciliation (server/migration/reconciliation-repository.ts):
     * 1 if created, 2^17 if linked, 2^34 if synced, added up, so that one sum over up to 131,071
     * companies counts all three at once. Computed from what the engine stored, not only the state
     * now: a company that ended failed or set aside may have linked or synced on the way, and one the
     * watch found dropped (or reconnected) was verified before. Linked: authorized or further on, or its
     * stored connection check says Linked. Synced: verified, or its sync finished and did not fail it
     * (a data type in error fails it at getDataStatus). Kept in `migration_items_real_state_idx`, so
     * the bulk panel's poll counts 100,000 companies from the index alone.
     */
    reached: integer("reached").generatedAlwaysAs(sql`(case when company_id is not null then 1 else 0 end) + (case when state in ('authorized', 'sync_requested', 'verified') or dropped_at is not null or reconnected_at is not null or checks -> 'connection' ->> 'status' = 'Linked' then 131072 else 0 end) + (case when state = 'verified' or dropped_at is not null or reconnected_at is not null or (checks -> 'sync' ->> 'finishedAt' is not null and not (state in ('failed', 'reauth_required', 'reconnect_pending') and last_error ->> 'operation' = 'getDataStatus')) then 17179869184 else 0 end)`, { mode: "virtual" }),
  },
  (t) => [
    // Partial, like the claim and lease indexes below: a company enters them only once it belongs to a
    // rehearsal, a run or a lease, so storing a token file's 100,000 fresh companies writes three fewer
    // indexes (every query they serve names a value, which rules out null).
    index("migration_items_rehearsal_idx").on(t.rehearsalRunId).where(sql`${t.rehearsalRunId} IS NOT NULL`),
    index("migration_items_engagement_idx").on(t.engagementId, t.position),
    index("migration_items_state_idx").on(t.engagementId, t.state, t.position),
    index("migration_items_claim_idx").on(t.runId, t.state, t.nextAttemptAt).where(sql`${t.runId} IS NOT NULL`),
    index("migration_items_lease_idx").on(t.leaseExpiresAt).where(sql`${t.leaseExpiresAt} IS NOT NULL`),
    // Handover and the bulk panel: counts per state, how far the companies got (`reached`) and pages of one
    // state over the real items only (rehearsal_run_id null), read from the index alone — 100,000 items
    // counted in milliseconds.
    index("migration_items_real_state_idx").on(t.engagementId, t.rehearsalRunId, t.state, t.position, t.reached),
  ],
);

/** Step 2: migration windows support proposes, with the estimate beside each; the customer accepts one. */
export const windowProposals = sqliteTable(
  "window_proposals",
  {
    id: id(),
    engagementId: text("engagement_id").notNull().references(() => engagements.id, { onDelete: "cascade" }),
    status: text("status", { enum: WINDOW_STATUSES }).notNull(),
    startsAt: integer("starts_at", { mode: "timestamp_ms" }).notNull(),
    endsAt: integer("ends_at", { mode: "timestamp_ms" }).notNull(),
    /** The duration estimate when it was proposed (seconds), and its inputs and formula. */
    estimateSeconds: integer("estimate_seconds").notNull(),
    estimate: text("estimate", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** Service requests the migration was estimated to make when proposed (the estimate's total calls), for the calendar's quota check. */
    estimateRequests: integer("estimate_requests"),
    /** Companies the estimate counted when proposed. */
    estimateCompanies: integer("estimate_companies"),
    note: text("note"),
    proposedById: text("proposed_by_id").references(() => users.id),
    proposedAt: integer("proposed_at", { mode: "timestamp_ms" }).notNull(),
    decidedById: text("decided_by_id").references(() => users.id),
    decidedAt: integer("decided_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    index("window_proposals_engagement_idx").on(t.engagementId, t.proposedAt),
    // The calendar: windows that meet a week or month.
    index("window_proposals_time_idx").on(t.startsAt, t.endsAt),
  ],
);

/**
 * Step 2: the customer declines the windows support proposed, with a reason and (optionally) times
 * that would suit; support answers with new proposals (a proposal after it answers it).
 */
export const windowDeclines = sqliteTable(
  "window_declines",
  {
    id: id(),
    engagementId: text("engagement_id").notNull().references(() => engagements.id, { onDelete: "cascade" }),
    reason: text("reason").notNull(),
    suggested: text("suggested", { mode: "json" }).$type<SuggestedWindow[]>().notNull(),
    /** The proposed windows this declined. */
    windowIds: text("window_ids", { mode: "json" }).$type<string[]>().notNull(),
    declinedById: text("declined_by_id").notNull().references(() => users.id),
    declinedAt: integer("declined_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    index("window_declines_engagement_idx").on(t.engagementId, t.declinedAt),
  ],
);

/**
 * Work the migration worker runs: a single-company test (pilot), a rehearsal on the sandbox, or
 * the bulk migration. A worker claims a run with a lease it renews while it works; an expired
 * lease (the worker died) is claimed again.
 */
export const migrationRuns = sqliteTable(
  "migration_runs",
  {
    id: id(),
    engagementId: text("engagement_id").notNull().references(() => engagements.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: RUN_KINDS }).notNull(),
    status: text("status", { enum: RUN_STATUSES }).notNull(),
    serviceTargetId: text("service_target_id").references(() => serviceTargets.id),
    /** The company a pilot or rehearsal tests. */
    itemId: text("item_id"),
    requestedById: text("requested_by_id").references(() => users.id),
    requestedAt: integer("requested_at", { mode: "timestamp_ms" }).notNull(),
    startedAt: integer("started_at", { mode: "timestamp_ms" }),
    finishedAt: integer("finished_at", { mode: "timestamp_ms" }),
    /** Why the run paused or stopped, in words (e.g. the free-trial company limit). */
    statusReason: text("status_reason"),
    /** Checks, advice, counters (requests, 429s, …): what the screens show of the run. */
    outcome: text("outcome", { mode: "json" }).$type<Record<string, unknown>>(),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: integer("lease_expires_at", { mode: "timestamp_ms" }),
    /** The fencing token of the claim (or takeover) that holds the lease: new for every one, checked by every write and renewal. */
    leaseToken: text("lease_token"),
    // --- Rehearsals ---
    /**
     * A rehearsal's own client on the built-in sandbox: its API key, encrypted (associated data
     * names the run), so a worker that resumes the rehearsal reaches the same simulated companies.
     */
    sandboxClientId: text("sandbox_client_id"),
    sandboxApiKeyCipher: text("sandbox_api_key_cipher"),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull().$defaultFn(() => new Date()),
  },
  (t) => [
    index("migration_runs_engagement_idx").on(t.engagementId, t.requestedAt),
    index("migration_runs_claim_idx").on(t.status, t.leaseExpiresAt),
  ],
);

/** Every call a run made to the service: what, when, how it ended, its correlationId (never a secret). */
export const serviceCalls = sqliteTable(
  "service_calls",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runId: text("run_id").notNull(),
    itemId: text("item_id"),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
    operation: text("operation").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    status: integer("status"),
    ok: integer("ok", { mode: "boolean" }).notNull(),
    errorKind: text("error_kind"),
    errorText: text("error_text"),
    correlationId: text("correlation_id"),
    durationMs: integer("duration_ms").notNull(),
    attempts: integer("attempts").notNull().default(1),
    // --- What the answer said ---
    /** The ids and statuses the call returned (companyId, connection status, data types…); never a secret. */
    detail: text("detail", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [
    index("service_calls_run_idx").on(t.runId, t.id),
    index("service_calls_item_idx").on(t.itemId, t.id),
  ],
);

export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    at: integer("at", { mode: "timestamp_ms" }).notNull().$defaultFn(() => new Date()),
    actorId: text("actor_id"),
    /** Name and role at the time, so the timeline reads right after a user changes. */
    actorLabel: text("actor_label").notNull(),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    engagementId: text("engagement_id"),
    organizationId: text("organization_id"),
    before: text("before", { mode: "json" }).$type<Record<string, unknown> | null>(),
    after: text("after", { mode: "json" }).$type<Record<string, unknown> | null>(),
  },
  (t) => [
    index("audit_engagement_idx").on(t.engagementId, t.id),
    index("audit_target_idx").on(t.targetType, t.targetId),
  ],
);

// Handover (step 6's ending)
/**
 * An engagement's handover: the report support produced once every real migration item was final
 * (the counts per final state as they were), the customer's acknowledgement, and when the
 * engagement's credentials were purged and why. One per engagement; the report's rows are the
 * items themselves (final, so they no longer change).
 */
export const handovers = sqliteTable(
  "handovers",
  {
    id: id(),
    engagementId: text("engagement_id").notNull().references(() => engagements.id, { onDelete: "cascade" }),
    confirmedById: text("confirmed_by_id").references(() => users.id),
    confirmedAt: integer("confirmed_at", { mode: "timestamp_ms" }).notNull(),
    /** Real items per final state when the report was produced, and their total. */
    counts: text("counts", { mode: "json" }).$type<Record<string, number>>().notNull(),
    total: integer("total").notNull(),
    acknowledgedById: text("acknowledged_by_id").references(() => users.id),
    acknowledgedAt: integer("acknowledged_at", { mode: "timestamp_ms" }),
    /** Set when staff recorded the acknowledgement for the customer: how the customer acknowledged. */
    acknowledgementNote: text("acknowledgement_note"),
    /** When the engagement's credentials were first purged, and what set it off. */
    purgedAt: integer("purged_at", { mode: "timestamp_ms" }),
    purgeTrigger: text("purge_trigger", { enum: PURGE_TRIGGERS }),
  },
  (t) => [
    uniqueIndex("handovers_engagement_unique").on(t.engagementId),
    index("handovers_confirmed_idx").on(t.confirmedAt),
  ],
);

/**
 * The reminders sent of each move (core/engagements/reminders.ts), written in the transaction that queues
 * their mail: the key makes each one once however many workers tick, and a move that changes hands has a new key.
 */
export const remindersSent = sqliteTable(
  "reminders_sent",
  {
    engagementId: text("engagement_id").notNull().references(() => engagements.id, { onDelete: "cascade" }),
    /** When the move began (engagements.waiting_since then). */
    moveSince: integer("move_since", { mode: "timestamp_ms" }).notNull(),
    kind: text("kind", { enum: REMINDER_KINDS }).notNull(),
    /** Which day of lateness (0 the first); 0 for the one before due. */
    seq: integer("seq").notNull(),
    sentAt: integer("sent_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.engagementId, t.moveSince, t.kind, t.seq] }),
  ],
);

/** Each person's daily digest, once a day (UTC), written in the transaction that queues its mail. */
export const digestsSent = sqliteTable(
  "digests_sent",
  {
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    /** The UTC day, YYYY-MM-DD. */
    day: text("day").notNull(),
    sentAt: integer("sent_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.day] }),
  ],
);

/**
 * Scheduled work that one worker at a time does (the reminder-and-digest tick): the worker holding
 * a name's lease ticks it and renews it with each tick; another takes it over once it lapses (its
 * holder stopped or died). Keys written with each mail still make each one once, whoever ticks.
 */
export const periodicLeases = sqliteTable(
  "periodic_leases",
  {
    name: text("name").primaryKey(),
    /** The worker holding it (its worker id). */
    owner: text("owner").notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    /** When its holder last took or renewed it to tick. */
    tickedAt: integer("ticked_at", { mode: "timestamp_ms" }).notNull(),
  },
);

/** Each customer's weekly digest of their organisation's engagements, once a week (the UTC Monday), written in the transaction that queues its mail. */
export const weeklyDigestsSent = sqliteTable(
  "weekly_digests_sent",
  {
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    /** The week's UTC Monday, YYYY-MM-DD. */
    week: text("week").notNull(),
    sentAt: integer("sent_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.week] }),
  ],
);

/**
 * What is watched on an engagement after its bulk run: companies waiting for their end customers
 * to reconnect, and for `hypercareDays` after the handover every migrated connection, once a day.
 * Claimed by a worker under a lease, as runs are.
 */
export const watches = sqliteTable(
  "watches",
  {
    engagementId: text("engagement_id").primaryKey().references(() => engagements.id, { onDelete: "cascade" }),
    status: text("status", { enum: WATCH_STATUSES }).notNull().default("watching"),
    startedAt: integer("started_at", { mode: "timestamp_ms" }).notNull(),
    /** When the hypercare days end (set at the handover); null before it. On the target's clock. */
    hypercareEndsAt: integer("hypercare_ends_at", { mode: "timestamp_ms" }),
    /** The next check is due at this time, on the target's clock (the built-in sandbox's may be moved). */
    nextCheckAt: integer("next_check_at", { mode: "timestamp_ms" }).notNull(),
    lastCheckAt: integer("last_check_at", { mode: "timestamp_ms" }),
    checks: integer("checks").notNull().default(0),
    /** Requests the watch made, to hold it within its share of the daily quota. */
    requests: integer("requests").notNull().default(0),
    /** Requests since the start of the current day on the target's clock, and that day's start. */
    requestsToday: integer("requests_today").notNull().default(0),
    dayStartedAt: integer("day_started_at", { mode: "timestamp_ms" }),
    drops: integer("drops").notNull().default(0),
    reconnections: integer("reconnections").notNull().default(0),
    /** The last check that could not be made (the service's status, text and correlationId). */
    lastFailure: text("last_failure", { mode: "json" }).$type<Record<string, unknown>>(),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: integer("lease_expires_at", { mode: "timestamp_ms" }),
    endedAt: integer("ended_at", { mode: "timestamp_ms" }),
    /** When support last marked the drops the watch found as seen: connections dropped after it are support's to look at. */
    dropsSeenAt: integer("drops_seen_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    index("watches_due_idx").on(t.status, t.nextCheckAt),
  ],
);

/** Fresh tokens after the bulk run for companies that failed on theirs; support reviews them as in step 1. */
export const supplementaryFiles = sqliteTable(
  "supplementary_files",
  {
    id: id(),
    engagementId: text("engagement_id").notNull().references(() => engagements.id, { onDelete: "cascade" }),
    status: text("status", { enum: SUPPLEMENTARY_STATUSES }).notNull().default("submitted"),
    fileName: text("file_name").notNull(),
    rowCount: integer("row_count").notNull(),
    /** The file's warnings as the customer saw them. */
    warnings: text("warnings", { mode: "json" }).$type<IntakeProblem[]>().notNull(),
    submittedById: text("submitted_by_id").notNull().references(() => users.id),
    submittedAt: integer("submitted_at", { mode: "timestamp_ms" }).notNull(),
    decidedById: text("decided_by_id").references(() => users.id),
    decidedAt: integer("decided_at", { mode: "timestamp_ms" }),
    /** Support's note when sending it back. */
    note: text("note"),
  },
  (t) => [
    index("supplementary_files_engagement_idx").on(t.engagementId, t.submittedAt),
  ],
);

/** One company's fresh credentials in a supplementary file, encrypted and bound to the row; purged once used. */
export const supplementaryRows = sqliteTable(
  "supplementary_rows",
  {
    id: id(),
    fileId: text("file_id").notNull().references(() => supplementaryFiles.id, { onDelete: "cascade" }),
    itemId: text("item_id").notNull().references(() => migrationItems.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    sourceRef: text("source_ref").notNull(),
    credentialsCipher: text("credentials_cipher"),
    credentialsMask: text("credentials_mask", { mode: "json" }).$type<Record<string, string>>().notNull(),
    accessTokenExpiresAt: integer("access_token_expires_at", { mode: "timestamp_ms" }),
    credentialsPurgedAt: integer("credentials_purged_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    index("supplementary_rows_file_idx").on(t.fileId, t.position),
    index("supplementary_rows_item_idx").on(t.itemId),
  ],
);

/**
 * A customer asks for an engagement (the platform, roughly how many companies, when it would suit);
 * support accepts it into a real engagement or declines it with a reason.
 */
export const engagementRequests = sqliteTable(
  "engagement_requests",
  {
    id: id(),
    organizationId: text("organization_id").notNull().references(() => organizations.id),
    platformKey: text("platform_key").notNull(),
    /** Roughly how many companies the customer expects to migrate. */
    companies: integer("companies").notNull(),
    /** The dates that would suit (days, at midnight UTC): from, and until when given. */
    preferredFrom: integer("preferred_from", { mode: "timestamp_ms" }).notNull(),
    preferredTo: integer("preferred_to", { mode: "timestamp_ms" }),
    note: text("note"),
    status: text("status", { enum: ENGAGEMENT_REQUEST_STATUSES }).notNull().default("open"),
    requestedById: text("requested_by_id").notNull().references(() => users.id),
    requestedAt: integer("requested_at", { mode: "timestamp_ms" }).notNull(),
    decidedById: text("decided_by_id").references(() => users.id),
    decidedAt: integer("decided_at", { mode: "timestamp_ms" }),
    /** Support's reason when declining. */
    declineReason: text("decline_reason"),
    /** The engagement it was accepted into. */
    engagementId: text("engagement_id").references(() => engagements.id),
  },
  (t) => [
    index("engagement_requests_status_idx").on(t.status, t.requestedAt),
    index("engagement_requests_org_idx").on(t.organizationId, t.requestedAt),
  ],
);

/**
 * One rate budget per service target across worker processes (server/service-client/shared-budget.ts).
 * A row per pacer that sends to the target: the machine it runs on (its per-address share of the
 * target's window is the window divided among the machine's live rows), its heartbeat (a row
 * older than the stale limit is dead: its share is freed and its unused quota handed back), and
 * the daily-quota blocks it holds.
 */
export const rateBudgetMembers = sqliteTable(
  "rate_budget_members",
  {
    id: text("id").primaryKey(),
    targetId: text("target_id").notNull().references(() => serviceTargets.id, { onDelete: "cascade" }),
    /** FERRY_MACHINE_ID, else the host name: the members of one machine share its address's limit. */
    machineId: text("machine_id").notNull(),
    /** Whether it takes a share of the per-address window (the watch's trickle does not). */
    sharesWindow: integer("shares_window", { mode: "boolean" }).notNull().default(true),
    joinedAt: integer("joined_at", { mode: "timestamp_ms" }).notNull(),
    heartbeatAt: integer("heartbeat_at", { mode: "timestamp_ms" }).notNull(),
    /** The quota period its blocks were taken from (null: none held). */
    quotaPeriod: text("quota_period"),
    /** Requests of that period's quota granted to it in blocks, sent as of its last heartbeat, and how many more it may send before its next one. */
    quotaTaken: integer("quota_taken").notNull().default(0),
    quotaUsed: integer("quota_used").notNull().default(0),
    quotaAhead: integer("quota_ahead").notNull().default(0),
  },
  (t) => [
    index("rate_budget_members_target_idx").on(t.targetId, t.machineId),
    index("rate_budget_members_heartbeat_idx").on(t.heartbeatAt),
  ],
);

/**
 * The worker processes that may hold leases (server/migration/engine/liveness.ts): each registers
 * as it starts (its lease owner id, host, process id, and on PostgreSQL that it holds a
 * session-level advisory lock on its id) and leaves as it stops. A worker that finds another one
 * dead where that can be known (on its own host, its process gone; on PostgreSQL, its advisory
 * lock free because its connection dropped) takes its leases over at once instead of waiting them out.
 */
export const workerProcesses = sqliteTable(
  "worker_processes",
  {
    owner: text("owner").primaryKey(),
    /** The host name (and process namespace) the process runs in: a process id means something only there. */
    host: text("host").notNull(),
    pid: integer("pid").notNull(),
    /** It holds the session-level advisory lock on its owner id while it lives (PostgreSQL). */
    holdsLock: integer("holds_lock", { mode: "boolean" }).notNull().default(false),
    startedAt: integer("started_at", { mode: "timestamp_ms" }).notNull(),
  },
);

/**
 * Each open of a company's reconnect link: Ferry's own stable URL (server/migration/watch/reconnect-link.ts) that asks
 * the service for a fresh Link URL and sends the end customer there, or says why it cannot.
 */
export const reconnectLinkOpens = sqliteTable(
  "reconnect_link_opens",
  {
    id: id(),
    engagementId: text("engagement_id").notNull().references(() => engagements.id, { onDelete: "cascade" }),
    itemId: text("item_id").notNull().references(() => migrationItems.id, { onDelete: "cascade" }),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
    /**
     * `redirected` to a fresh Link URL; `closed` (the engagement's watch has ended, or it was cancelled);
     * `service_error` (the service did not give a Link URL: its status, error text and correlationId are kept).
     */
    outcome: text("outcome", { enum: RECONNECT_LINK_OUTCOMES }).notNull(),
    /** Why it was closed, or the service's error text. */
    detail: text("detail"),
    /** The service's HTTP status when it refused. */
    status: integer("status"),
    correlationId: text("correlation_id"),
  },
  (t) => [
    index("reconnect_link_opens_item_idx").on(t.itemId, t.at),
    index("reconnect_link_opens_engagement_idx").on(t.engagementId, t.at),
  ],
);

/**
 * Step 3 proven by a round trip (server/migration/callback-check): a throwaway company and connection Ferry made on
 * the engagement's target for the platform; the customer authorizes it, and a Linked connection proves the platform
 * sent the authorization to the service's callback URL. The company is deleted once the check ends.
 */
export const callbackChecks = sqliteTable(
  "callback_checks",
  {
    id: id(),
    engagementId: text("engagement_id").notNull().references(() => engagements.id, { onDelete: "cascade" }),
    serviceTargetId: text("service_target_id").notNull().references(() => serviceTargets.id, { onDelete: "cascade" }),
    platformKey: text("platform_key").notNull(),
    status: text("status", { enum: CALLBACK_CHECK_STATUSES }).notNull(),
    /** The throwaway company on the service, once made. */
    companyId: text("company_id"),
    connectionId: text("connection_id"),
    /** The platform's words when it refused the redirect (the connection's dataConnectionErrors). */
    refusal: text("refusal"),
    /** The service's HTTP status when it refused a call of the check. */
    errorStatus: integer("error_status"),
    errorText: text("error_text"),
    correlationId: text("correlation_id"),
    startedById: text("started_by_id").notNull().references(() => users.id),
    startedAt: integer("started_at", { mode: "timestamp_ms" }).notNull(),
    /** When Ferry last asked the service for the connection. */
    checkedAt: integer("checked_at", { mode: "timestamp_ms" }),
    finishedAt: integer("finished_at", { mode: "timestamp_ms" }),
    /** When the throwaway company was deleted from the service. */
    companyDeletedAt: integer("company_deleted_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    index("callback_checks_engagement_idx").on(t.engagementId, t.startedAt),
  ],
);

/**
 * What a service target's webhooks are doing (server/targets/events): where the service sends them,
 * whether they arrive (the last event, the last delivery refused), and a pause of every run on the
 * target that the service's `client.rateLimit.reached` announced, until its reset.
 */
export const targetEvents = sqliteTable(
  "target_events",
  {
    targetId: text("target_id").primaryKey().references(() => serviceTargets.id, { onDelete: "cascade" }),
    /** Ferry's public base URL as the service reaches it for this target (null: FERRY_PUBLIC_URL, else no webhooks: the watch polls). */
    publicUrl: text("public_url"),
    /** When the last good delivery arrived (this machine's clock), and its event type. */
    lastEventAt: integer("last_event_at", { mode: "timestamp_ms" }),
    lastEventType: text("last_event_type"),
    /** When a delivery was last refused (bad signature, old timestamp), why, and how many in all. */
    lastFailureAt: integer("last_failure_at", { mode: "timestamp_ms" }),
    lastFailure: text("last_failure"),
    failures: integer("failures").notNull().default(0),
    /** Every run on the target waits until then: the service said its daily quota is spent (the announced reset). */
    pausedUntil: integer("paused_until", { mode: "timestamp_ms" }),
    pauseReason: text("pause_reason"),
  },
);

/**
 * Ferry's webhook consumers at the service: one per engagement (its company tag) from the bulk run's start to
 * the watch's end, and one untagged per target for the client's rate-limit events. Each has its own signing secret.
 */
export const webhookConsumers = sqliteTable(
  "webhook_consumers",
  {
    id: id(),
    targetId: text("target_id").notNull().references(() => serviceTargets.id, { onDelete: "cascade" }),
    /** The engagement whose companies it is filtered on; null: the target's rate-limit consumer. */
    engagementId: text("engagement_id").references(() => engagements.id, { onDelete: "cascade" }),
    /** Its id at the service (DELETE /webhooks/{id}). */
    consumerId: text("consumer_id").notNull(),
    /** The signing secret (`whsec_…`), encrypted (server/security/secrets.ts), bound to the row. */
    secretCipher: text("secret_cipher").notNull(),
    /** The endpoint the service posts to (Ferry's public URL + /api/targets/{id}/events). */
    url: text("url").notNull(),
    createdAt: createdAt(),
    /** When it was deleted at the service (the watch ended): its secret verifies nothing after it. */
    removedAt: integer("removed_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    index("webhook_consumers_target_idx").on(t.targetId, t.removedAt),
    index("webhook_consumers_engagement_idx").on(t.engagementId),
  ],
);

/**
 * Webhook deliveries received, one row per message (the `webhook-id`) per target, written by the receiver in one
 * statement before it answers; the worker's inbox work claims each row under a lease and marks it processed.
 */
export const webhookInbox = sqliteTable(
  "webhook_inbox",
  {
    id: id(),
    targetId: text("target_id").notNull().references(() => serviceTargets.id, { onDelete: "cascade" }),
    /** The `webhook-id` header: the same on every attempt and replay, so a duplicate is ignored. */
    messageId: text("message_id").notNull(),
    eventType: text("event_type").notNull(),
    /** The envelope's `generatedDate` (the service's clock). */
    generatedAt: integer("generated_at", { mode: "timestamp_ms" }),
    receivedAt: integer("received_at", { mode: "timestamp_ms" }).notNull(),
    /** The envelope's payload as received (no secret: company and connection references). */
    payload: text("payload", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** The payload's `referenceCompany.id` (null for events of no company): a company's timeline reads its events by it. */
    companyId: text("company_id"),
    processedAt: integer("processed_at", { mode: "timestamp_ms" }),
    attempts: integer("attempts").notNull().default(0),
    /** The last processing attempt's error. */
    error: text("error"),
    /** Not tried again before then (null: due now). */
    nextAttemptAt: integer("next_attempt_at", { mode: "timestamp_ms" }),
    /** The claim of the worker processing it; its write names it. */
    claimToken: text("claim_token"),
    claimExpiresAt: integer("claim_expires_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    uniqueIndex("webhook_inbox_message_unique").on(t.targetId, t.messageId),
    index("webhook_inbox_due_idx").on(t.processedAt, t.receivedAt),
    index("webhook_inbox_company_idx").on(t.companyId, t.receivedAt),
  ],
);

/**
 * A target's daily quota for one period (a UTC day, or the period whose reset the service
 * announced), shared out in blocks: `granted` only grows by an atomic conditional update that
 * never passes `quota`, and shrinks by what a member hands back unused.
 */
export const rateBudgetQuotas = sqliteTable(
  "rate_budget_quotas",
  {
    targetId: text("target_id").notNull().references(() => serviceTargets.id, { onDelete: "cascade" }),
    period: text("period").notNull(),
    quota: integer("quota").notNull(),
    granted: integer("granted").notNull().default(0),
    /** When the period ends (rows of ended periods are deleted). */
    resetsAt: integer("resets_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.targetId, t.period] }),
    index("rate_budget_quotas_resets_idx").on(t.resetsAt),
  ],
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
