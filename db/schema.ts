/**
 * The app database's tables as domain code imports them: those of the dialect the environment
 * selects when this module loads (db/dialect.ts: PostgreSQL with DATABASE_URL=postgres://…, else
 * SQLite), typed as that dialect's in each of the two type checks (db/app-db.ts: SQLite's in
 * `tsc -p .`, PostgreSQL's in `tsc -p tsconfig.pg.json`). The two schema files give every column
 * the same JavaScript type (db/schema-drift.test.ts holds them together), so code written against
 * these tables reads and writes the same values on either database, and no import names a dialect.
 */
import type { AppTables } from "@/db/app-db";
import { databaseDialect } from "./dialect";
import * as pgSchema from "./schema.pg";
import * as sqliteSchema from "./schema.sqlite";

// The assumption of this type check (db/app-db.ts): a cast from both dialects' union to one of its members.
const chosen = (databaseDialect() === "postgresql" ? pgSchema : sqliteSchema) as AppTables;

export const organizations = chosen.organizations;
export const users = chosen.users;
export const invitations = chosen.invitations;
export const signInThrottle = chosen.signInThrottle;
export const mailOutbox = chosen.mailOutbox;
export const serviceTargets = chosen.serviceTargets;
export const engagements = chosen.engagements;
export const engagementSteps = chosen.engagementSteps;
export const intakeSubmissions = chosen.intakeSubmissions;
export const migrationItems = chosen.migrationItems;
export const windowProposals = chosen.windowProposals;
export const windowDeclines = chosen.windowDeclines;
export const remindersSent = chosen.remindersSent;
export const digestsSent = chosen.digestsSent;
export const weeklyDigestsSent = chosen.weeklyDigestsSent;
export const periodicLeases = chosen.periodicLeases;
export const engagementRequests = chosen.engagementRequests;
export const migrationRuns = chosen.migrationRuns;
export const serviceCalls = chosen.serviceCalls;
export const auditEvents = chosen.auditEvents;
export const handovers = chosen.handovers;
export const watches = chosen.watches;
export const supplementaryFiles = chosen.supplementaryFiles;
export const supplementaryRows = chosen.supplementaryRows;
export const rateBudgetMembers = chosen.rateBudgetMembers;
export const rateBudgetQuotas = chosen.rateBudgetQuotas;
export const workerProcesses = chosen.workerProcesses;
export const reconnectLinkOpens = chosen.reconnectLinkOpens;
export const callbackChecks = chosen.callbackChecks;
export const targetEvents = chosen.targetEvents;
export const webhookConsumers = chosen.webhookConsumers;
export const webhookInbox = chosen.webhookInbox;
export const organizationsRelations = chosen.organizationsRelations;
export const usersRelations = chosen.usersRelations;
export const engagementsRelations = chosen.engagementsRelations;
export const serviceTargetsRelations = chosen.serviceTargetsRelations;
export const engagementStepsRelations = chosen.engagementStepsRelations;

export type { IntakeContact } from "./schema.sqlite";
