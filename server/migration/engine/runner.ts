/**
 * The small runner that drives one company's pipeline: it asks the pure decision function
 * (pipeline.ts) for the next call, makes it through the service client, and stores the call's
 * result with the item's new fields in one transaction before deciding again. A
 * create is recorded as in flight before it is sent, so a crash between a create and its record
 * is healed by a lookup, never by a second create.
 *
 * The item's credentials are decrypted only in memory, for the authorization call, and each
 * decryption is an audit event. Every write is fenced by the worker's lease on the item.
 */
import { linkUrlWithoutToken, tenantOf } from "@/core/migration/link-url";
import { readSteps, type Database } from "@/db/database";
import { companyDescription, serviceNameOf, type ManagedPlatform } from "@/server/platforms";
import { ServiceError, type CallMeta, type ServiceClient, type ValidationResult } from "@/server/service-client";
import { redact } from "@/server/service-client/service-error";
import { writeAudit } from "@/server/security/audit";
import type { KeyRing } from "@/server/security/secrets";
import { openItemCredentials } from "../../items/item-credentials";
import { findItem, LeaseLostError, markInFlight, storeCallResult, toPipelineItem, type CallRecord, type ItemRow } from "./item-repository";
import {
  applyResult,
  decideNext,
  DEFAULT_PIPELINE_POLICY,
  ENGAGEMENT_TAG,
  ITEM_TAG,
  type CallAnswer,
  type CallDecision,
  type CallResult,
  type PipelineCall,
  type PipelineItem,
  type PipelinePolicy,
  type StoredError,
  type Transition,
  type ValidationMessage,
  type ValidationSummary,
  VALIDATION_MESSAGES_KEPT,
} from "./pipeline";
import type { MigrationItemState } from "@/core/migration/states";

export type RunnerContext = {
  database: Database;
  ring: KeyRing;
  client: ServiceClient;
  runId: string;
  /** The worker's lease owner id: every write checks the item is still this worker's. */
  owner: string;
  engagement: { id: string; organizationId: string; reference: string };
  platform: ManagedPlatform;
  /** A rehearsal's simulated company (labelled so in the audit log). */
  rehearsal: boolean;
  policy?: PipelinePolicy;
  now?: () => Date;
  /** Stops the runner (a cancelled run, a lost lease, a worker shutting down). */
  signal?: AbortSignal;
  /**
   * Called with each answer before it is stored. Tests throw here to stop the runner between a
   * call and its record, as a crash would.
   */
  beforeStore?: (call: PipelineCall) => void;
};

/** What one step of the runner did. */
export type StepReport =
  | { kind: "stored"; call: PipelineCall; transition: Transition }
  | { kind: "wait"; until: Date }
  | { kind: "final"; state: MigrationItemState };

/** Where driving an item ended: a final state, or a failure that stops the whole run. */
export type DriveResult = { state: MigrationItemState; runStop: StoredError | null };

const nowOf = (ctx: RunnerContext) => (ctx.now ? ctx.now() : new Date());

/** A stored call record from a successful answer. */
function okRecord(at: Date, meta: CallMeta, detail: Record<string, unknown>): CallRecord {
  return {
    at,
    operation: meta.operation,
    method: meta.method,
    path: meta.path,
    status: meta.status,
    ok: true,
    errorKind: null,
    errorText: null,
    correlationId: meta.correlationId,
    durationMs: meta.durationMs,
    attempts: meta.attempts,
    detail,
  };
}

/**
 * The company as created on the service: the name it keeps (stored with the item at intake;
 * worked out by the same rule for items stored before that), and the description, which keeps
 * the file's name when the service's differs.
 */
function companyFieldsFor(row: ItemRow, reference: string): { name: string; description: string } {
  const name = serviceNameOf(row);
  return { name, description: companyDescription({ reference, fileName: row.name, serviceName: name }) };
}

/** Decrypts an item's credentials in memory for the authorization call, and records that it did. */
async function openCredentials(ctx: RunnerContext, row: ItemRow): Promise<Record<string, string>> {
  if (!row.credentialsCipher) throw new Error(`The credentials of ${row.name} have been purged; nothing can be migrated for it.`);
  const credentials = openItemCredentials(ctx.ring, { engagementId: row.engagementId, itemId: row.id }, row.credentialsCipher);
  // Read committed: one insert, the fact that they were decrypted (whether or not the lease holds).
  await ctx.database.transaction(
    (tx) =>
      writeAudit(tx, {
        actor: null,
        action: "migration_item.credentials_decrypted",
        targetId: row.id,
        engagementId: ctx.engagement.id,
        organizationId: ctx.engagement.organizationId,
        after: { purpose: "authorize its connection on the service", company: row.name, rehearsal: ctx.rehearsal },
      }),
    { isolation: "read committed" },
  );
  return credentials;
}

/** Makes one call of the pipeline; a ServiceError becomes a failed result (anything else is thrown). */
async function execute(ctx: RunnerContext, row: ItemRow, item: PipelineItem, decision: CallDecision): Promise<{ result: CallResult; record: CallRecord; linkUrl?: string | null; platformTenant?: Record<string, string> | null }> {
  const { client } = ctx;
  const options = { signal: ctx.signal };
  const at = nowOf(ctx);
  const companyId = () => {
    if (!item.companyId) throw new Error(`${decision.call} needs the company of item ${item.id}`);
    return item.companyId;
  };
  const connectionId = () => {
    if (!item.connectionId) throw new Error(`${decision.call} needs the connection of item ${item.id}`);
    return item.connectionId;
  };
  let secrets: string[] = [];
  const answered = (meta: CallMeta, answer: CallAnswer, detail: Record<string, unknown>): { result: CallResult; record: CallRecord } => ({
    result: { ok: true, correlationId: meta.correlationId, ...answer },
    record: okRecord(at, meta, detail),
  });
  try {
    switch (decision.call) {
      case "findCompanyByTag": {
        const { data, meta } = await client.findCompaniesByTag({ name: ITEM_TAG, value: item.id }, options);
        const found = [...data].sort((a, b) => (a.created ?? "").localeCompare(b.created ?? ""));
        const companyIds = found.map((c) => c.id);
        return { ...answered(meta, { call: "findCompanyByTag", companyIds }, { found: companyIds.length, companyIds }), linkUrl: found[0]?.redirect ? linkUrlWithoutToken(found[0].redirect) : null };
      }
      case "createCompany": {
        const { data, meta } = await client.createCompany(
          { ...companyFieldsFor(row, ctx.engagement.reference), tags: { [ITEM_TAG]: item.id, [ENGAGEMENT_TAG]: ctx.engagement.id } },
          options,
        );
        // The company's Link URL, where its end customer can authorize again should its tokens fail.
        return { ...answered(meta, { call: "createCompany", companyId: data.id }, { companyId: data.id }), linkUrl: data.redirect ? linkUrlWithoutToken(data.redirect) : null };
      }
      case "listConnections": {
        const { data, meta } = await client.listConnections({ companyId: companyId() }, options);
        const connections = data.map((c) => ({ id: c.id, integrationKey: c.integrationKey ?? null, platformName: c.platformName, status: c.status }));
        return answered(meta, { call: "listConnections", connections }, { connections: connections.map((c) => ({ id: c.id, status: c.status, platform: c.platformName })) });
      }
      case "createConnection": {
        const { data, meta } = await client.createConnection({ companyId: companyId(), platformKey: ctx.platform.key }, options);
        return answered(meta, { call: "createConnection", connectionId: data.id }, { connectionId: data.id, status: data.status });
      }
      case "authorize": {
        const credentials = await openCredentials(ctx, row);
        secrets = Object.values(credentials);
        const { data, meta } = await client.authorizeConnection({ companyId: companyId(), connectionId: connectionId(), credentials }, options);
        // Errors a later authorization resolved are history; the active ones say why it is refused.
        const errors = (data.dataConnectionErrors ?? [])
          .filter((e) => (e.status ?? "").toLowerCase() !== "resolved")
          .map((e) => ({
            statusCode: e.statusCode ?? null,
            statusText: e.statusText ? redact(e.statusText, secrets) : null,
            errorMessage: e.errorMessage ? redact(e.errorMessage, secrets) : null,
          }));
        // The platform company the tokens were for, as the service tells it once they link, else as the
        // token file names it (its identity columns: realmId, shop domain…): a reconnection must land on the same one.
        const platformTenant = (data.status === "Linked" ? tenantOf(data.connectionInfo) : null) ?? identityOf(ctx.platform, credentials);
        return { ...answered(meta, { call: "authorize", status: data.status, errors }, { status: data.status, ...(errors.length ? { errors } : {}) }), platformTenant };
      }
      case "requestSync": {
        const { meta } = await client.refreshAllData({ companyId: companyId() }, options);
        return answered(meta, { call: "requestSync" }, {});
      }
      case "getDataStatus": {
        const { data, meta } = await client.getDataStatus({ companyId: companyId() }, options);
        const dataTypes = Object.fromEntries(Object.values(data).map((s) => [s.dataType, s.currentStatus ?? "Unknown"]));
        // Each data type's latest successful dataset: where its validation results are read.
        const datasets = Object.fromEntries(Object.values(data).flatMap((s) => {
          const id = s.latestSuccessfulSyncId ?? (s.currentStatus === "Complete" ? s.latestSyncId : null);
          return id ? [[s.dataType, id]] : [];
        }));
        const counts: Record<string, number> = {};
        for (const status of Object.values(dataTypes)) counts[status] = (counts[status] ?? 0) + 1;
        return answered(meta, { call: "getDataStatus", dataTypes, datasets }, { counts });
      }
      case "readData": {
        const { data, meta } = await client.listDataRecords({ companyId: companyId(), connectionId: connectionId(), dataType: decision.dataType, page: 1, pageSize: 1 }, options);
        return answered(meta, { call: "readData", dataType: decision.dataType, records: data.totalResults }, { dataType: decision.dataType, records: data.totalResults });
      }
      case "readValidation": {
        const { data, meta } = await client.getValidationResults({ companyId: companyId(), datasetId: decision.datasetId }, options);
        const validation = summariseValidation(data);
        return answered(meta, { call: "readValidation", dataType: decision.dataType, validation }, { dataType: decision.dataType, errors: validation.errorCount, warnings: validation.warningCount });
      }
      default: {
        const never: never = decision;
        return never;
      }
    }
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const failure = {
      operation: error.operation,
      kind: error.kind,
      status: error.status,
      service: error.service,
      error: redact(error.error, secrets),
      correlationId: error.correlationId,
      validation: error.validation,
      retryAfterMs: error.retryAfterMs,
    };
    return {
      result: { ok: false, call: decision.call, error: failure },
      record: {
        at,
        operation: error.operation,
        method: error.method,
        path: error.path,
        status: error.status,
        ok: false,
        errorKind: error.kind,
        errorText: failure.error,
        correlationId: error.correlationId,
        durationMs: error.durationMs,
        attempts: error.attempts,
        detail: error.validation ? { validation: error.validation } : null,
      },
    };
  }
}

/**
 * Takes one step of an item's pipeline: one call and its stored result, or a wait, or its end.
 * `token` is the fencing token of the claim by which this worker holds the item: every write is
 * fenced on it (LeaseLostError once another claim, even this worker's own, holds the item).
 */
export async function stepItem(ctx: RunnerContext, itemId: string, token: string): Promise<StepReport> {
  const row = await readSteps(ctx.database, (tx) => findItem(tx, itemId));
  if (!row) throw new Error(`No migration item ${itemId}`);
  if (row.leaseOwner !== ctx.owner || row.leaseToken !== token) throw new LeaseLostError(`item ${itemId}`);
  const item = toPipelineItem(row, ctx.platform);
  const decision = decideNext(item, nowOf(ctx));
  if (decision.kind !== "call") return decision;
  if (decision.call === "createCompany" || decision.call === "createConnection") {
    const call = decision.call;
    // Fenced by the lease (LeaseLostError, nothing sent, when another worker holds the item).
    await ctx.database.transaction((tx) => markInFlight(tx, { itemId, owner: ctx.owner, token, call, now: nowOf(ctx) }), { isolation: "read committed" });
  }
  const { result, record, linkUrl, platformTenant } = await execute(ctx, row, item, decision);
  ctx.beforeStore?.(decision.call);
  const now = nowOf(ctx);
  const transition = applyResult(item, decision, result, now, ctx.policy ?? DEFAULT_PIPELINE_POLICY);
  await storeCallResult(ctx.database, { itemId, runId: ctx.runId, owner: ctx.owner, token, record, transition, now, linkUrl, platformTenant });
  return { kind: "stored", call: decision.call, transition };
}

/** The token file row's identity columns (not secret: realmId, shop domain…), or null when the platform has none. */
function identityOf(platform: RunnerContext["platform"], credentials: Readonly<Record<string, string>>): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const f of platform.credentialFields) if (f.identity && !f.secret && credentials[f.name]) out[f.name] = credentials[f.name]!;
  return Object.keys(out).length ? out : null;
}

/** A dataset's validation results summed up by message, most frequent first (pipeline.ts, ValidationSummary). */
export function summariseValidation(result: ValidationResult): ValidationSummary {
  const byMessage = (items: ValidationResult["errors"]): ValidationMessage[] => {
    const counts = new Map<string, number>();
    for (const item of items) {
      const message = (item.message ?? item.ruleId ?? "No message given").trim().slice(0, 500);
      counts.set(message, (counts.get(message) ?? 0) + 1);
    }
    return [...counts]
      .map(([message, count]) => ({ message, count }))
      .sort((a, b) => b.count - a.count || a.message.localeCompare(b.message))
      .slice(0, VALIDATION_MESSAGES_KEPT);
  };
  return { errors: byMessage(result.errors), warnings: byMessage(result.warnings), errorCount: result.errors.length, warningCount: result.warnings.length };
}

/** Waits `ms`, or less if the signal fires (then throws its reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Drives an item until it reaches a final state, waiting out polls and backoffs, or until a
 * failure stops the whole run (401, 403, a 402: the item keeps its state for a later resume).
 */
export async function driveItem(ctx: RunnerContext, itemId: string, token: string): Promise<DriveResult> {
  for (;;) {
    ctx.signal?.throwIfAborted();
    const step = await stepItem(ctx, itemId, token);
    switch (step.kind) {
      case "final":
        return { state: step.state, runStop: null };
      case "wait":
        await sleep(step.until.getTime() - nowOf(ctx).getTime(), ctx.signal);
        break;
      case "stored":
        if (step.transition.runEffect?.scope === "run_stop") return { state: step.transition.state, runStop: step.transition.runEffect.error };
        break;
      default: {
        const never: never = step;
        return never;
      }
    }
  }
}
