/**
 * One company's migration as two pure functions, so every boundary is testable without a network:
 *
 * - `decideNext(item, now)`: from what is stored about an item (its state, ids, a create it may
 *   have in flight, the results of its last calls), the next call to make — or a wait, or the end.
 * - `applyResult(item, decision, result, now)`: from that call's result, what to store next (state,
 *   ids, checks, error, when to try again) and whether the failure concerns the whole run.
 *
 * The runner (runner.ts) executes a decision through the service client and stores the call and
 * the item's new fields in one transaction before deciding again, so a crash anywhere resumes from
 * the stored state. A create is recorded as in flight before it is sent; while one is, the next
 * decision looks up what it may have created (the company's tag, the company's connections)
 * instead of creating a second one.
 *
 *   pending → company_created → connection_created → authorized → sync_requested → verified
 *   (or reauth_required, failed; set_aside is a person's decision)
 */
import type { ConnectionStatus, ManagedPlatform, PlatformCategory, PullStatus } from "@/server/platforms";
import { TERMINAL_PULL_STATUSES } from "@/server/platforms";
import { isListedDataType, type ListedDataType, type ServiceErrorKind, type Validation } from "@/server/service-client";
import { FINAL_ITEM_STATES, type InFlightCall, type MigrationItemState } from "@/core/migration/states";
import { countOf } from "@/core/words";

/** The calls of the pipeline, in the order a company normally needs them. */
export const PIPELINE_CALLS = [
  "findCompanyByTag",
  "createCompany",
  "listConnections",
  "createConnection",
  "authorize",
  "requestSync",
  "getDataStatus",
  "readData",
  "readValidation",
] as const;
export type PipelineCall = (typeof PIPELINE_CALLS)[number];

/** The tag every company Ferry creates carries: its migration item's id (Stripe-style idempotency key). */
export const ITEM_TAG = "ferryItem";
/** And its engagement's id, so the engagement's companies are listed in pages after the migration (the watch). */
export const ENGAGEMENT_TAG = "ferryEngagement";

/** The data type read per platform category to prove that data arrived (reference §4). */
export const READ_DATA_TYPE: Record<PlatformCategory, "chartOfAccounts" | "commerce-orders"> = {
  accounting: "chartOfAccounts",
  invoicing: "chartOfAccounts",
  commerce: "commerce-orders",
};
export type ReadDataType = (typeof READ_DATA_TYPE)[PlatformCategory];

/** Sync statuses that pass the data check; every other final status fails it. */
export const PASSING_PULL_STATUSES: ReadonlySet<string> = new Set<PullStatus>(["Complete", "NotSupported"]);

/** The platform's refusal of the tokens, in its words (a connection's `dataConnectionErrors` item). */
export type PlatformError = { statusCode: string | null; statusText: string | null; errorMessage: string | null };

/** What the item's checks have recorded so far (stored as JSON on the item). */
export type ItemChecks = {
  /** The connection's status after the authorization call, with the platform's errors if refused. */
  connection?: { status: ConnectionStatus; at: string; errors?: PlatformError[] };
  /** The sync: when it was requested, how often its status was read, the last status per data type. */
  sync?: {
    requestedAt: string;
    polls: number;
    dataTypes: Record<string, string>;
    finishedAt?: string;
    /** Each data type's latest successful dataset (sync) id, from the data status: where its validation results are. */
    datasets?: Record<string, string>;
  };
  /** The read that proves data arrived, with the record count the service reported. */
  read?: { dataType: ReadDataType; records: number | null; at: string; skipped?: "not_supported" };
  /**
   * The record count of every other data type the service lists, read after the proof when the
   * policy asks for it (the single-company test, so its result shows each type's records); null
   * where the service would not count it.
   */
  records?: Record<string, number | null>;
  /**
   * The validation results of each counted data type's dataset (read with the counts), summed up
   * by message; null where the service would not give them.
   */
  validation?: Record<string, ValidationSummary | null>;
};

/** One validation message of a dataset and how many of its records it was raised on. */
export type ValidationMessage = { message: string; count: number };

/** A dataset's validation results, by message (most frequent first, at most VALIDATION_MESSAGES_KEPT of each kind). */
export type ValidationSummary = { errors: ValidationMessage[]; warnings: ValidationMessage[]; errorCount: number; warningCount: number };

/** Distinct messages kept per kind and data type: the counts stay whole, the list stays short. */
export const VALIDATION_MESSAGES_KEPT = 10;

/**
 * What went wrong, in Ferry's terms: a service error's kind, or one the pipeline or the worker
 * found — a connection left Deauthorized, tokens refused during the sync, data types that did not
 * sync or not in time, a connection in an unexpected status, a run that could not start.
 */
export type StoredErrorKind =
  | ServiceErrorKind
  | "reauthorization_required"
  | "auth_error_during_sync"
  | "sync_failed"
  | "sync_timeout"
  | "unexpected_status"
  | "no_service_target"
  | "sandbox_unavailable"
  | "internal";

/** A failed call as stored on the item (never a secret: the client's error is built without one). */
export type StoredError = {
  operation: string;
  kind: StoredErrorKind;
  status: number | null;
  service: string | null;
  error: string;
  correlationId: string | null;
  validation?: Validation | null;
  at: string;
};

/** What the pipeline reads of an item. */
export type PipelineItem = {
  id: string;
  platform: Pick<ManagedPlatform, "key" | "name" | "category">;
  state: MigrationItemState;
  companyId: string | null;
  connectionId: string | null;
  inFlightCall: InFlightCall | null;
  checks: ItemChecks | null;
  attempts: number;
  nextAttemptAt: Date | null;
  lastError: StoredError | null;
  /** The file's `records` hint (data volume per data type), when given. */
  records?: number | null;
  /** The record counts the old app holds per data type (the file's `count_<dataType>` columns), when given. */
  oldCounts?: Record<string, number> | null;
};

export type CallDecision =
  | { kind: "call"; call: Exclude<PipelineCall, "readData" | "readValidation"> }
  | { kind: "call"; call: "readData"; dataType: ListedDataType }
  | { kind: "call"; call: "readValidation"; dataType: ListedDataType; datasetId: string };

/** A call after the proof: a data type's count, or its dataset's validation results. */
type ExtraRead = Extract<CallDecision, { call: "readData" | "readValidation" }>;

export type Decision = CallDecision | { kind: "wait"; until: Date } | { kind: "final"; state: MigrationItemState };

const isFinal = (state: MigrationItemState) => (FINAL_ITEM_STATES as readonly MigrationItemState[]).includes(state);

/** Whether every data type has a final status (an empty list is not: the sync has not shown up yet). */
export function syncFinished(dataTypes: Record<string, string>): boolean {
  const statuses = Object.values(dataTypes);
  return statuses.length > 0 && statuses.every((s) => TERMINAL_PULL_STATUSES.has(s as PullStatus));
}

/** The next step for an item: a call, a wait until its next attempt, or its final state. */
export function decideNext(item: PipelineItem, now: Date): Decision {
  if (isFinal(item.state)) return { kind: "final", state: item.state };
  if (item.nextAttemptAt && item.nextAttemptAt.getTime() > now.getTime()) return { kind: "wait", until: item.nextAttemptAt };
  switch (item.state) {
    case "pending":
      return { kind: "call", call: item.inFlightCall === "createCompany" ? "findCompanyByTag" : "createCompany" };
    case "company_created":
      if (!item.companyId) return { kind: "call", call: "findCompanyByTag" };
      return { kind: "call", call: item.inFlightCall === "createConnection" ? "listConnections" : "createConnection" };
    case "connection_created":
      return { kind: "call", call: "authorize" };
    case "authorized":
      return { kind: "call", call: "requestSync" };
    case "sync_requested": {
      const sync = item.checks?.sync;
      if (!sync || !syncFinished(sync.dataTypes)) return { kind: "call", call: "getDataStatus" };
      if (!item.checks?.read) return { kind: "call", call: "readData", dataType: READ_DATA_TYPE[item.platform.category] };
      // The proof is read and the item is still here: the policy counts every data type's records
      // and reads their validation results.
      return nextExtraRead(item.checks) ?? { kind: "call", call: "getDataStatus" };
    }
    case "verified":
    case "reauth_required":
    case "failed":
    case "set_aside":
    case "reconnect_pending":
      return { kind: "final", state: item.state };
    default: {
      const never: never = item.state;
      return never;
    }
  }
}

/** A connection as the lookup sees it. */
export type FoundConnection = { id: string; integrationKey: string | null; platformName: string; status: ConnectionStatus };

/**
 * The result of one call: what the pipeline needs of the answer (with the answer's correlationId,
 * which a failure found in a successful answer keeps: a Deauthorized connection, a failed sync),
 * or the failure.
 */
export type CallResult =
  | ({ ok: true; correlationId?: string | null } & CallAnswer)
  | { ok: false; call: PipelineCall; error: Omit<StoredError, "at"> & { kind: ServiceErrorKind; retryAfterMs: number | null } };

/** What each call's answer says, as the pipeline needs it. */
export type CallAnswer =
  | { call: "findCompanyByTag"; companyIds: string[] }
  | { call: "createCompany"; companyId: string }
  | { call: "listConnections"; connections: FoundConnection[] }
  | { call: "createConnection"; connectionId: string }
  | { call: "authorize"; status: ConnectionStatus; errors: PlatformError[] }
  | { call: "requestSync" }
  | { call: "getDataStatus"; dataTypes: Record<string, string>; datasets?: Record<string, string> }
  | { call: "readData"; dataType: ListedDataType; records: number | null }
  | { call: "readValidation"; dataType: ListedDataType; validation: ValidationSummary };

/**
 * What a failure means beyond the item: `run_stop` — the account or key is at fault and every
 * other company would fail the same way (401, 403, the three 402s); `run_pause` — the service is
 * in maintenance (503) and will come back; `retry` — this call may work later (429, 500, timeout,
 * network); `item` — the answer is about this company alone.
 */
export type FailureScope = "run_stop" | "run_pause" | "retry" | "item";

/** The scope of a failure kind (see FailureScope). */
export function failureScope(kind: ServiceErrorKind): FailureScope {
  switch (kind) {
    case "unauthorized":
    case "forbidden":
    case "company_limit":
    case "sync_schedule_not_allowed":
    case "account_expired":
    // The target's base URL leads elsewhere or nowhere allowed: every company's calls would too.
    case "redirected":
    case "address_refused":
      return "run_stop";
    case "maintenance":
      return "run_pause";
    case "rate_limited":
    case "server_error":
    case "timeout":
    case "network":
      return "retry";
    case "bad_request":
    case "not_found":
    case "data_type_not_supported":
    case "method_not_allowed":
    case "not_ready":
    case "too_many_values":
    case "active_connection_exists":
    case "answer_too_large":
    case "unexpected":
      return "item";
    default: {
      const never: never = kind;
      return never;
    }
  }
}

/** How patient the pipeline is: retries of failed calls, polling of syncs. */
export type PipelinePolicy = {
  /**
   * Failed attempts in a row (429, 500, 503, timeout, network) after which the item fails
   * (default 5); a successful answer starts the count again.
   */
  maxAttempts: number;
  /** Backoff between them: full jitter under min(retryMaxMs, retryBaseMs × 2^attempts). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Sync status polling: the first wait, its growth per poll and its ceiling. */
  pollInitialMs: number;
  pollFactor: number;
  pollMaxMs: number;
  /** How long a sync may take before the item fails (from the request). */
  syncDeadlineMs: number;
  /** In [0, 1); Math.random by default (tests pass a constant). */
  random: () => number;
  /**
   * Whether a 429 or a 503 counts as one of the item's attempts (default true). A bulk run sets
   * false: there the pacer holds every request until the service takes them again, so the wait is
   * the run's, not the company's, and no company fails because the service was busy.
   */
  throttlingCountsAsAttempt?: boolean;
  /**
   * Whether a verified company's record count is read for every data type the service lists and
   * synced Complete, not only for the one read as proof (default false). The single-company test
   * sets it, so its result shows each data type's records; a bulk run spends no calls on it.
   */
  countEveryDataType?: boolean;
  /**
   * Whether a company whose token file row carries the old app's counts (`oldCounts`) has every
   * data type counted, as countEveryDataType does, so its counts can be compared (default false).
   * A bulk run sets it: companies without old counts spend no calls on it.
   */
  countWhenOldCounts?: boolean;
  /**
   * How long a company's sync is expected to take, from its `records` hint (step 2's sync model):
   * the first status poll waits that long, so waiting companies do not spend the request budget.
   */
  expectedSyncMs?: (records: number | null) => number;
};

export const DEFAULT_PIPELINE_POLICY: PipelinePolicy = {
  maxAttempts: 5,
  retryBaseMs: 2_000,
  retryMaxMs: 60_000,
  pollInitialMs: 1_000,
  pollFactor: 1.5,
  pollMaxMs: 15_000,
  syncDeadlineMs: 60 * 60_000,
  random: Math.random,
};

/** The wait before the n-th poll of a sync's status (n = polls so far). */
export function pollDelayMs(polls: number, policy: PipelinePolicy): number {
  return Math.min(policy.pollMaxMs, Math.round(policy.pollInitialMs * policy.pollFactor ** polls));
}

/** What to store after a call: the item's new fields, and whether the run must stop or pause. */
export type Transition = Omit<PipelineItem, "id" | "platform"> & {
  /** Why the item ended where it did, in words (the platform's text for a reauthorization). */
  outcomeReason: string | null;
  /** Set when the failure concerns the whole run (see FailureScope); the item keeps its state. */
  runEffect: { scope: "run_stop" | "run_pause"; error: StoredError } | null;
};

const iso = (d: Date) => d.toISOString();

/** The platform's refusal in one line: "400 Bad Request: … invalid_grant …". */
export function platformErrorText(errors: readonly PlatformError[]): string {
  const e = errors[errors.length - 1];
  if (!e) return "The platform refused the credentials without saying why.";
  const head = [e.statusCode, e.statusText].filter(Boolean).join(" ");
  return [head, e.errorMessage].filter(Boolean).join(": ") || "The platform refused the credentials without saying why.";
}

/** Applies a call's result to an item (see the module comment). */
export function applyResult(
  item: PipelineItem,
  decision: CallDecision,
  result: CallResult,
  now: Date,
  policy: PipelinePolicy = DEFAULT_PIPELINE_POLICY,
): Transition {
  const base: Transition = {
    state: item.state,
    companyId: item.companyId,
    connectionId: item.connectionId,
    inFlightCall: item.inFlightCall,
    checks: item.checks,
    attempts: item.attempts,
    nextAttemptAt: null,
    lastError: item.lastError,
    outcomeReason: null,
    runEffect: null,
  };
  if (result.call !== decision.call) throw new Error(`A ${result.call} result cannot answer a ${decision.call} decision`);
  const checks: ItemChecks = { ...(item.checks ?? {}) };
  const fail = (error: StoredError, reason: string): Transition => ({
    ...base,
    state: "failed",
    inFlightCall: null,
    checks,
    lastError: error,
    outcomeReason: reason,
  });

  const at: ApplyContext = { item, base, checks, now, policy, fail };
  if (!result.ok) return applyFailure(at, result);
  // A successful answer starts the count again: the bound is on failures in a row, so a company
  // of many calls is not failed by scattered 500s that each retry overcame.
  base.attempts = 0;

  switch (result.call) {
    case "findCompanyByTag": {
      // Oldest first: if a create was ever answered twice, the first company is the one kept.
      const companyId = result.companyIds[0];
      return companyId
        ? { ...base, state: "company_created", companyId, inFlightCall: null }
        : { ...base, inFlightCall: null };
    }
    case "createCompany":
      return { ...base, state: "company_created", companyId: result.companyId, inFlightCall: null };
    case "listConnections": {
      const existing = result.connections.find(
        (c) => c.status !== "Unlinked" && (c.integrationKey === item.platform.key || c.platformName === item.platform.name),
      );
      return existing
        ? { ...base, state: "connection_created", connectionId: existing.id, inFlightCall: null }
        : { ...base, inFlightCall: null };
    }
    case "createConnection":
      return { ...base, state: "connection_created", connectionId: result.connectionId, inFlightCall: null };
    case "authorize": {
      checks.connection = { status: result.status, at: iso(now), ...(result.errors.length ? { errors: result.errors } : {}) };
      if (result.status === "Linked") return { ...base, state: "authorized", checks };
      if (result.status === "Deauthorized") {
        const reason = platformErrorText(result.errors);
        const error: StoredError = {
          operation: "authorizeConnection",
          kind: "reauthorization_required",
          status: null,
          service: null,
          error: reason,
          correlationId: result.correlationId ?? null,
          at: iso(now),
        };
        return { ...base, state: "reauth_required", checks, lastError: error, outcomeReason: reason };
      }
      return fail(
        { operation: "authorizeConnection", kind: "unexpected_status", status: null, service: null, error: `The connection is ${result.status} after its authorization.`, correlationId: result.correlationId ?? null, at: iso(now) },
        `The service left the connection ${result.status} after the authorization call; expected Linked.`,
      );
    }
    case "requestSync":
      checks.sync = { requestedAt: iso(now), polls: 0, dataTypes: {} };
      return {
        ...base,
        state: "sync_requested",
        checks,
        nextAttemptAt: new Date(now.getTime() + Math.max(policy.pollInitialMs, policy.expectedSyncMs?.(item.records ?? null) ?? 0)),
      };
    case "getDataStatus":
      return applyDataStatus(at, { dataTypes: result.dataTypes, datasets: result.datasets, correlationId: result.correlationId ?? null });
    case "readData":
      if (!checks.read) checks.read = { dataType: READ_DATA_TYPE[item.platform.category], records: result.records, at: iso(now) };
      else checks.records = { ...checks.records, [result.dataType]: result.records };
      return afterRead(at);
    case "readValidation":
      checks.validation = { ...checks.validation, [result.dataType]: result.validation };
      return afterRead(at);
    default: {
      const never: never = result;
      return never;
    }
  }
}

/** What applying one result works from: the item, the transition so far, its checks (filled in as it goes), the time and the policy. */
type ApplyContext = {
  item: PipelineItem;
  base: Transition;
  checks: ItemChecks;
  now: Date;
  policy: PipelinePolicy;
  fail: (error: StoredError, reason: string) => Transition;
};

function applyDataStatus(at: ApplyContext, answer: { dataTypes: Record<string, string>; datasets?: Record<string, string>; correlationId: string | null }): Transition {
  const { item, base, checks, now, policy, fail } = at;
  const { dataTypes, correlationId } = answer;
  const previous = item.checks?.sync ?? { requestedAt: iso(now), polls: 0, dataTypes: {} };
  const sync: NonNullable<ItemChecks["sync"]> = { ...previous, polls: previous.polls + 1, dataTypes, ...(answer.datasets ? { datasets: answer.datasets } : {}) };
  checks.sync = sync;
  if (!syncFinished(dataTypes)) {
    const waited = now.getTime() - Date.parse(previous.requestedAt);
    if (waited >= policy.syncDeadlineMs) {
      const running = Object.entries(dataTypes).filter(([, s]) => !TERMINAL_PULL_STATUSES.has(s as PullStatus)).map(([t]) => t);
      const minutes = Math.round(policy.syncDeadlineMs / 60_000);
      const what = running.length ? `${countOf(running.length, "data type", "data types")} still syncing (${running.slice(0, 5).join(", ")}${running.length > 5 ? ", …" : ""})` : "no data type queued";
      const text = `The sync did not finish within ${countOf(minutes, "minute", "minutes")}: ${what}.`;
      return fail({ operation: "getDataStatus", kind: "sync_timeout", status: null, service: null, error: text, correlationId, at: iso(now) }, text);
    }
    return { ...base, checks, nextAttemptAt: new Date(now.getTime() + pollDelayMs(previous.polls, policy)) };
  }
  sync.finishedAt = iso(now);
  const authErrors = Object.entries(dataTypes).filter(([, s]) => s === "AuthError").map(([t]) => t);
  if (authErrors.length) {
    const reason = `The platform refused the tokens during the sync (AuthError on ${authErrors.slice(0, 5).join(", ")}${authErrors.length > 5 ? ", …" : ""}): the connection needs reauthorization.`;
    return {
      ...base,
      state: "reauth_required",
      checks,
      lastError: { operation: "getDataStatus", kind: "auth_error_during_sync", status: null, service: null, error: reason, correlationId, at: iso(now) },
      outcomeReason: reason,
    };
  }
  const failed = Object.entries(dataTypes).filter(([, s]) => !PASSING_PULL_STATUSES.has(s));
  if (failed.length) {
    const list = failed.slice(0, 8).map(([t, s]) => `${t} ${s}`).join(", ");
    const reason = `${countOf(failed.length, "data type", "data types")} did not sync: ${list}${failed.length > 8 ? ", …" : ""}.`;
    return fail({ operation: "getDataStatus", kind: "sync_failed", status: null, service: null, error: reason, correlationId, at: iso(now) }, reason);
  }
  const readType = READ_DATA_TYPE[item.platform.category];
  if (dataTypes[readType] !== "Complete") {
    // The platform does not offer the data type read as proof: the statuses are the proof.
    checks.read = { dataType: readType, records: null, at: iso(now), skipped: "not_supported" };
    return afterRead(at);
  }
  return { ...base, checks };
}

/**
 * The data types whose records are still to be counted: every one the service lists that synced
 * Complete, but the proof's and those counted already, in name order.
 */
function typesToCount(checks: ItemChecks): ListedDataType[] {
  const done = new Set([checks.read?.dataType, ...Object.keys(checks.records ?? {})]);
  return Object.entries(checks.sync?.dataTypes ?? {})
    .filter(([type, status]) => status === "Complete" && !done.has(type))
    .map(([type]) => type)
    .filter(isListedDataType)
    .sort((a, b) => a.localeCompare(b));
}

/**
 * The data types whose validation results are still to be read: the proof's and every counted one
 * that synced Complete with a known dataset, in name order.
 */
function typesToValidate(checks: ItemChecks): { dataType: ListedDataType; datasetId: string }[] {
  const datasets = checks.sync?.datasets ?? {};
  const counted = [checks.read && !checks.read.skipped ? checks.read.dataType : undefined, ...Object.keys(checks.records ?? {})];
  return counted
    .filter((type): type is ListedDataType => !!type && isListedDataType(type) && checks.sync?.dataTypes[type] === "Complete")
    .filter((type) => !!datasets[type] && !Object.hasOwn(checks.validation ?? {}, type))
    .sort((a, b) => a.localeCompare(b))
    .map((dataType) => ({ dataType, datasetId: datasets[dataType]! }));
}

/** The next read after the proof: the counts first, then the validation results; null when all are read. */
export function nextExtraRead(checks: ItemChecks): ExtraRead | null {
  const count = typesToCount(checks)[0];
  if (count) return { kind: "call", call: "readData", dataType: count };
  const validate = typesToValidate(checks)[0];
  return validate ? { kind: "call", call: "readValidation", ...validate } : null;
}

/**
 * Whether the policy counts every data type of this company (and reads their validation results):
 * always for the single-company test, in a bulk run only where the token file gave old counts to
 * compare with (the quota is kept for the rest).
 */
export function countsEveryDataType(item: Pick<PipelineItem, "oldCounts">, policy: PipelinePolicy): boolean {
  if (policy.countEveryDataType) return true;
  return !!policy.countWhenOldCounts && Object.keys(item.oldCounts ?? {}).length > 0;
}

/** A read after the proof the service would not answer: unknown, and on to the next. */
function unread(at: ApplyContext, extra: ExtraRead): Transition {
  if (extra.call === "readData") at.checks.records = { ...at.checks.records, [extra.dataType]: null };
  else at.checks.validation = { ...at.checks.validation, [extra.dataType]: null };
  return { ...afterRead(at), attempts: 0 };
}

/** After a read: verified, unless the policy counts every data type and some reads are still to make. */
function afterRead(at: ApplyContext): Transition {
  const { base, checks, policy, item } = at;
  if (countsEveryDataType(item, policy) && nextExtraRead(checks)) return { ...base, inFlightCall: null, checks, lastError: null };
  return { ...base, state: "verified", inFlightCall: null, checks, lastError: null };
}

function applyFailure(at: ApplyContext, result: Extract<CallResult, { ok: false }>): Transition {
  const { item, base, checks, now, policy, fail } = at;
  const { retryAfterMs, ...rest } = result.error;
  const error: StoredError = { ...rest, at: iso(now) };
  const scope = failureScope(result.error.kind);
  // A count or validation read after the proof: the company is migrated and proven, so what the
  // service will not give is left unknown rather than failing it.
  const extraRead = (result.call === "readData" || result.call === "readValidation") && item.checks?.read ? (nextExtraRead(item.checks) ?? undefined) : undefined;
  // A create that got no clear answer may have happened: look it up before creating again.
  const inFlightCall = scope === "retry" || scope === "run_pause" ? item.inFlightCall : null;
  switch (scope) {
    case "run_stop":
      return { ...base, inFlightCall, lastError: error, runEffect: { scope, error } };
    case "run_pause":
    case "retry": {
      const throttled = scope === "run_pause" || result.error.kind === "rate_limited";
      if (throttled && policy.throttlingCountsAsAttempt === false) {
        // The run waits for the service: not the company's fault. The pacer holds every request
        // until the Retry-After (a 503's is 30 s) and lets a probe through before it, so the company
        // itself waits only a moment and goes with the first requests once the service is back.
        const wait = Math.round(policy.random() * policy.retryBaseMs);
        return { ...base, inFlightCall, lastError: error, nextAttemptAt: new Date(now.getTime() + wait), runEffect: scope === "run_pause" ? { scope, error } : null };
      }
      const attempts = item.attempts + 1;
      if (attempts >= policy.maxAttempts) {
        if (extraRead) return unread(at, extraRead);
        return { ...fail(error, `${result.error.operation} kept failing (${attempts} attempts); the last answer: ${result.error.error}`), attempts };
      }
      const backoff = Math.round(policy.random() * Math.min(policy.retryMaxMs, policy.retryBaseMs * 2 ** item.attempts));
      const wait = Math.max(retryAfterMs ?? 0, backoff);
      return {
        ...base,
        inFlightCall,
        attempts,
        lastError: error,
        nextAttemptAt: new Date(now.getTime() + wait),
        runEffect: scope === "run_pause" ? { scope, error } : null,
      };
    }
    case "item":
      break;
    default: {
      const never: never = scope;
      return never;
    }
  }
  if (extraRead) return unread(at, extraRead);
  switch (result.error.kind) {
    case "active_connection_exists":
      // The company already has a connection of this kind (perhaps ours, from an answer lost
      // in a crash): list the connections and carry on with it.
      return { ...base, inFlightCall: "createConnection", lastError: error };
    case "not_ready":
      if (result.call === "readData") {
        const sync = item.checks?.sync;
        if (sync && now.getTime() - Date.parse(sync.requestedAt) < policy.syncDeadlineMs) {
          return { ...base, inFlightCall: null, lastError: error, nextAttemptAt: new Date(now.getTime() + policy.pollInitialMs) };
        }
      }
      return fail(error, `${result.error.operation}: ${result.error.error}`);
    case "data_type_not_supported":
      if (result.call === "readData") {
        checks.read = { dataType: READ_DATA_TYPE[item.platform.category], records: null, at: iso(now), skipped: "not_supported" };
        return { ...base, state: "verified", inFlightCall: null, checks, lastError: null };
      }
      return fail(error, `${result.error.operation}: ${result.error.error}`);
    default:
      return fail(error, `${result.error.operation}: ${result.error.error}`);
  }
}
