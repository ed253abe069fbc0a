/**
 * Ferry's application database (drizzle, SQLite). The sandbox has its own database and never
 * imports this file.
 */
import { relations, sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
// The domain owns its unions; the schema stores them (imports point down from db to nothing else).
import { ROLES } from "../server/accounts/roles";
import { ENGAGEMENT_STATUSES, STEP_STATES } from "../server/engagements/states";
import { SERVICE_TARGET_KINDS } from "../server/targets/kinds";
import type { StepEvidence } from "../server/engagements/evidence";
import { MAIL_TRANSPORTS } from "../server/mail/transports";

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
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("organizations_name_unique").on(sql`lower(${t.name})`)],
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
    /**
     * Carried in every session token; a token with another version is refused. Bumped on sign-out,
     * "sign out everywhere", password change and deactivation, so those end every session at once.
     */
    sessionVersion: integer("session_version").notNull().default(0),
    lastSignInAt: integer("last_sign_in_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_unique").on(t.email), index("users_org_idx").on(t.organizationId)],
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
  (t) => [uniqueIndex("invitations_token_unique").on(t.tokenHash), index("invitations_email_idx").on(t.email)],
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
  (t) => [index("sign_in_throttle_expires_idx").on(t.expiresAt)],
);

/**
 * Outgoing mail. In the embedded default this is the only delivery; with SMTP it is also a log.
 * `text` never holds a one-time link: links are replaced by a note before the row is written.
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
    transport: text("transport", { enum: MAIL_TRANSPORTS }).notNull(),
    sentAt: integer("sent_at", { mode: "timestamp_ms" }),
    error: text("error"),
    createdAt: createdAt(),
  },
  (t) => [index("mail_outbox_created_idx").on(t.createdAt)],
);

/** Where migrations go: the built-in sandbox or a real service (base URL + encrypted API key). */
export const serviceTargets = sqliteTable("service_targets", {
  id: id(),
  name: text("name").notNull(),
  baseUrl: text("base_url").notNull(),
  /** Encrypted API key envelope (see server/security/secrets.ts). */
  apiKeyCipher: text("api_key_cipher").notNull(),
  /** The masked key (last four characters at most), made at encryption time so lists never decrypt. */
  apiKeyMask: text("api_key_mask"),
  kind: text("kind", { enum: SERVICE_TARGET_KINDS }).notNull(),
  createdAt: createdAt(),
});

export const engagements = sqliteTable(
  "engagements",
  {
    id: id(),
    /** Human reference shown and quoted everywhere, e.g. FER-1042. */
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
    /** The first step not done (7 when all six are done); kept in step with the steps for filtering. */
    currentStep: integer("current_step").notNull().default(1),
    windowStartsAt: integer("window_starts_at", { mode: "timestamp_ms" }),
    windowEndsAt: integer("window_ends_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" })
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

export const engagementSteps = sqliteTable(
  "engagement_steps",
  {
    engagementId: text("engagement_id")
      .notNull()
      .references(() => engagements.id, { onDelete: "cascade" }),
    step: integer("step").notNull(),
    state: text("state", { enum: STEP_STATES }).notNull().default("pending"),
    completedById: text("completed_by_id").references(() => users.id),
    completedAt: integer("completed_at", { mode: "timestamp_ms" }),
    /** What shows the step is done: a note, and later structured evidence (JSON). */
    evidence: text("evidence", { mode: "json" }).$type<StepEvidence>(),
    reopenedReason: text("reopened_reason"),
    reopenedById: text("reopened_by_id").references(() => users.id),
    reopenedAt: integer("reopened_at", { mode: "timestamp_ms" }),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
  },
  (t) => [primaryKey({ columns: [t.engagementId, t.step] })],
);

export const auditEvents = sqliteTable(
  "audit_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    at: integer("at", { mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
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

export const engagementStepsRelations = relations(engagementSteps, ({ one }) => ({
  engagement: one(engagements, { fields: [engagementSteps.engagementId], references: [engagements.id] }),
}));
