/**
 * The pipeline's decision function at every boundary, without a network: each state with and
 * without a create in flight, each call's success and its failures (by scope), polling and its
 * deadline, the ends.
 */
import { describe, expect, it } from "vitest";
import { getManagedPlatform } from "@/server/platforms";
import {
  applyResult,
  countsEveryDataType,
  decideNext,
  DEFAULT_PIPELINE_POLICY,
  failureScope,
  pollDelayMs,
  type CallDecision,
  type CallResult,
  type PipelineItem,
  type PipelinePolicy,
} from "./pipeline";
import { SERVICE_ERROR_KINDS, type ServiceErrorKind } from "@/server/service-client";

const qbo = getManagedPlatform("qhyg")!;
const shopify = getManagedPlatform("fztf")!;
const NOW = new Date("2026-11-22T10:00:00Z");
const later = (ms: number) => new Date(NOW.getTime() + ms);
const policy: PipelinePolicy = { ...DEFAULT_PIPELINE_POLICY, random: () => 0.5 };

const item = (over: Partial<PipelineItem> = {}): PipelineItem => ({
  id: "item-1",
  platform: qbo,
  state: "pending",
  companyId: null,
  connectionId: null,
  inFlightCall: null,
  checks: null,
  attempts: 0,
  nextAttemptAt: null,
  lastError: null,
  ...over,
});

const failure = (call: CallDecision["call"], kind: ServiceErrorKind, extra: Partial<{ status: number; retryAfterMs: number; error: string }> = {}): CallResult => ({
  ok: false,
  call,
  error: { operation: call, kind, status: extra.status ?? 500, service: "PublicApi", error: extra.error ?? `${kind} happened`, correlationId: "corr-1", validation: null, retryAfterMs: extra.retryAfterMs ?? null },
});

const call = (c: Exclude<CallDecision["call"], "readData" | "readValidation">): CallDecision => ({ kind: "call", call: c });

describe("decideNext: the next call for each stored state", () => {
  it.each([
    ["pending", {}, "createCompany"],
    ["pending with a create in flight (crashed before its answer was stored)", { inFlightCall: "createCompany" as const }, "findCompanyByTag"],
    ["company_created", { state: "company_created" as const, companyId: "c1" }, "createConnection"],
    ["company_created with a create in flight", { state: "company_created" as const, companyId: "c1", inFlightCall: "createConnection" as const }, "listConnections"],
    ["company_created without its id (never stored)", { state: "company_created" as const }, "findCompanyByTag"],
    ["connection_created", { state: "connection_created" as const, companyId: "c1", connectionId: "k1" }, "authorize"],
    ["authorized", { state: "authorized" as const, companyId: "c1", connectionId: "k1" }, "requestSync"],
    ["sync_requested, nothing read yet", { state: "sync_requested" as const, companyId: "c1", connectionId: "k1" }, "getDataStatus"],
  ])("%s → %s", (_title, over, expected) => {
    expect(decideNext(item(over), NOW)).toEqual({ kind: "call", call: expected });
  });

  it("sync_requested with types still running → poll again; all final → read one data type per category", () => {
    const base = { state: "sync_requested" as const, companyId: "c1", connectionId: "k1" };
    const sync = (dataTypes: Record<string, string>) => ({ sync: { requestedAt: NOW.toISOString(), polls: 2, dataTypes } });
    expect(decideNext(item({ ...base, checks: sync({ invoices: "Fetching", bills: "Complete" }) }), NOW)).toEqual({ kind: "call", call: "getDataStatus" });
    expect(decideNext(item({ ...base, checks: sync({ chartOfAccounts: "Complete", bills: "NotSupported" }) }), NOW)).toEqual({
      kind: "call",
      call: "readData",
      dataType: "chartOfAccounts",
    });
    expect(decideNext(item({ ...base, platform: shopify, checks: sync({ "commerce-orders": "Complete" }) }), NOW)).toEqual({
      kind: "call",
      call: "readData",
      dataType: "commerce-orders",
    });
  });

  it("waits until the next attempt, and reports final states as they are", () => {
    expect(decideNext(item({ nextAttemptAt: later(5_000) }), NOW)).toEqual({ kind: "wait", until: later(5_000) });
    expect(decideNext(item({ nextAttemptAt: later(-1) }), NOW)).toEqual({ kind: "call", call: "createCompany" });
    for (const state of ["verified", "reauth_required", "failed", "set_aside"] as const) {
      expect(decideNext(item({ state, nextAttemptAt: later(5_000) }), NOW)).toEqual({ kind: "final", state });
    }
  });
});

describe("applyResult: successes move the item on", () => {
  it("a created company is stored with its id and the create is no longer in flight", () => {
    const t = applyResult(item({ inFlightCall: "createCompany" }), call("createCompany"), { ok: true, call: "createCompany", companyId: "c1" }, NOW, policy);
    expect(t).toMatchObject({ state: "company_created", companyId: "c1", inFlightCall: null, runEffect: null });
  });

  it("a tag lookup adopts the oldest company found, or clears the create so it is made", () => {
    const pending = item({ inFlightCall: "createCompany" });
    expect(applyResult(pending, call("findCompanyByTag"), { ok: true, call: "findCompanyByTag", companyIds: ["old", "new"] }, NOW, policy)).toMatchObject({
      state: "company_created",
      companyId: "old",
      inFlightCall: null,
    });
    const none = applyResult(pending, call("findCompanyByTag"), { ok: true, call: "findCompanyByTag", companyIds: [] }, NOW, policy);
    expect(none).toMatchObject({ state: "pending", companyId: null, inFlightCall: null });
    expect(decideNext({ ...pending, ...none }, NOW)).toEqual({ kind: "call", call: "createCompany" });
  });

  it("a connection listing adopts an active connection of the platform, never an unlinked one or another platform's", () => {
    const created = item({ state: "company_created", companyId: "c1", inFlightCall: "createConnection" });
    const listing = (connections: { id: string; integrationKey: string | null; platformName: string; status: "Linked" | "Unlinked" | "PendingAuth" | "Deauthorized" }[]): CallResult => ({
      ok: true,
      call: "listConnections",
      connections,
    });
    expect(
      applyResult(created, call("listConnections"), listing([{ id: "gone", integrationKey: "qhyg", platformName: "QuickBooks Online", status: "Unlinked" }, { id: "k1", integrationKey: "qhyg", platformName: "QuickBooks Online", status: "PendingAuth" }]), NOW, policy),
    ).toMatchObject({ state: "connection_created", connectionId: "k1", inFlightCall: null });
    expect(applyResult(created, call("listConnections"), listing([{ id: "other", integrationKey: "fztf", platformName: "Shopify", status: "Linked" }]), NOW, policy)).toMatchObject({
      state: "company_created",
      connectionId: null,
      inFlightCall: null,
    });
  });

  it("Linked → authorized; Deauthorized → reauth_required keeping the platform's text", () => {
    const connected = item({ state: "connection_created", companyId: "c1", connectionId: "k1" });
    expect(applyResult(connected, call("authorize"), { ok: true, call: "authorize", status: "Linked", errors: [] }, NOW, policy)).toMatchObject({
      state: "authorized",
      checks: { connection: { status: "Linked" } },
    });
    const errors = [{ statusCode: "400", statusText: "Bad Request", errorMessage: "QuickBooks Online rejected the credentials: invalid_grant: the refresh token was already used." }];
    const t = applyResult(connected, call("authorize"), { ok: true, call: "authorize", status: "Deauthorized", errors }, NOW, policy);
    expect(t).toMatchObject({
      state: "reauth_required",
      outcomeReason: "400 Bad Request: QuickBooks Online rejected the credentials: invalid_grant: the refresh token was already used.",
      lastError: { kind: "reauthorization_required" },
      checks: { connection: { status: "Deauthorized", errors } },
    });
    expect(applyResult(connected, call("authorize"), { ok: true, call: "authorize", status: "PendingAuth", errors: [] }, NOW, policy)).toMatchObject({
      state: "failed",
      lastError: { kind: "unexpected_status" },
    });
  });

  it("a requested sync records when, and polls after the first delay", () => {
    const t = applyResult(item({ state: "authorized", companyId: "c1", connectionId: "k1" }), call("requestSync"), { ok: true, call: "requestSync" }, NOW, policy);
    expect(t).toMatchObject({ state: "sync_requested", checks: { sync: { requestedAt: NOW.toISOString(), polls: 0, dataTypes: {} } }, nextAttemptAt: later(policy.pollInitialMs) });
  });

  it("the data read verifies the item and keeps the record count", () => {
    const syncing = item({ state: "sync_requested", companyId: "c1", connectionId: "k1", checks: { sync: { requestedAt: NOW.toISOString(), polls: 3, dataTypes: { chartOfAccounts: "Complete" } } } });
    const t = applyResult(syncing, { kind: "call", call: "readData", dataType: "chartOfAccounts" }, { ok: true, call: "readData", dataType: "chartOfAccounts", records: 50 }, NOW, policy);
    expect(t).toMatchObject({ state: "verified", checks: { read: { dataType: "chartOfAccounts", records: 50 } }, lastError: null });
  });
});

describe("a test counts the records of every data type the service lists", () => {
  const counting: PipelinePolicy = { ...policy, countEveryDataType: true };
  const dataTypes = { chartOfAccounts: "Complete", invoices: "Complete", bills: "Complete", balanceSheet: "Complete", customers: "NotSupported" };
  const synced = (checks: Partial<NonNullable<PipelineItem["checks"]>> = {}) =>
    item({ state: "sync_requested", companyId: "c1", connectionId: "k1", checks: { sync: { requestedAt: NOW.toISOString(), polls: 3, dataTypes }, ...checks } });
  const read = (dataType: "chartOfAccounts" | "invoices" | "bills"): CallDecision => ({ kind: "call", call: "readData", dataType });
  const answer = (dataType: "chartOfAccounts" | "invoices" | "bills", records: number): CallResult => ({ ok: true, call: "readData", dataType, records });

  it("after the proof, reads each other listed type that synced Complete, in name order, then verifies", () => {
    const proven = applyResult(synced(), read("chartOfAccounts"), answer("chartOfAccounts", 50), NOW, counting);
    expect(proven).toMatchObject({ state: "sync_requested", checks: { read: { dataType: "chartOfAccounts", records: 50 } } });
    const afterProof = { ...synced(), ...proven, platform: qbo, id: "item-1" };
    // Listed and Complete: bills and invoices; balanceSheet has no list, customers did not sync.
    expect(decideNext(afterProof, NOW)).toEqual(read("bills"));
    const billed = applyResult(afterProof, read("bills"), answer("bills", 7), NOW, counting);
    expect(billed).toMatchObject({ state: "sync_requested", checks: { records: { bills: 7 } } });
    const afterBills = { ...afterProof, ...billed };
    expect(decideNext(afterBills, NOW)).toEqual(read("invoices"));
    expect(applyResult(afterBills, read("invoices"), answer("invoices", 1_200), NOW, counting)).toMatchObject({ state: "verified", checks: { read: { records: 50 }, records: { bills: 7, invoices: 1_200 } }, lastError: null });
  });

  it("a count the service will not give is left unknown; it never fails a proven company", () => {
    const afterProof = synced({ read: { dataType: "chartOfAccounts", records: 50, at: NOW.toISOString() } });
    expect(applyResult(afterProof, read("bills"), failure("readData", "data_type_not_supported", { status: 404 }), NOW, counting)).toMatchObject({
      state: "sync_requested",
      checks: { records: { bills: null } },
    });
    const retried = item({ ...afterProof, attempts: counting.maxAttempts - 1 });
    expect(applyResult(retried, read("bills"), failure("readData", "server_error"), NOW, counting)).toMatchObject({ state: "sync_requested", attempts: 0, checks: { records: { bills: null } } });
    // The account's refusal still stops the run.
    expect(applyResult(afterProof, read("bills"), failure("readData", "unauthorized", { status: 401 }), NOW, counting).runEffect).toMatchObject({ scope: "run_stop" });
  });

  it("a bulk run reads only the proof", () => {
    expect(applyResult(synced(), read("chartOfAccounts"), answer("chartOfAccounts", 50), NOW, policy)).toMatchObject({ state: "verified" });
  });
});

describe("validation results are read for every data type counted", () => {
  const counting: PipelinePolicy = { ...policy, countEveryDataType: true };
  const dataTypes = { chartOfAccounts: "Complete", invoices: "Complete", balanceSheet: "Complete" };
  const datasets = { chartOfAccounts: "ds-acc", invoices: "ds-inv", balanceSheet: "ds-bs" };
  const synced = (checks: Partial<NonNullable<PipelineItem["checks"]>> = {}, extra: Partial<PipelineItem> = {}) =>
    item({ state: "sync_requested", companyId: "c1", connectionId: "k1", checks: { sync: { requestedAt: NOW.toISOString(), polls: 3, dataTypes, datasets }, ...checks }, ...extra });
  const none = { errors: [], warnings: [], errorCount: 0, warningCount: 0 };
  const proven = { read: { dataType: "chartOfAccounts" as const, records: 50, at: NOW.toISOString() } };

  it("keeps each data type's latest successful dataset from the status", () => {
    const syncing = item({ state: "sync_requested", companyId: "c1", connectionId: "k1", checks: { sync: { requestedAt: NOW.toISOString(), polls: 0, dataTypes: {} } } });
    const t = applyResult(syncing, call("getDataStatus"), { ok: true, call: "getDataStatus", dataTypes, datasets }, NOW, counting);
    expect(t.checks?.sync?.datasets).toEqual(datasets);
  });

  it("after the counts, reads the proof's and each counted type's validation by its dataset, in name order, then verifies", () => {
    const counted = synced({ ...proven, records: { invoices: 12 } });
    expect(decideNext(counted, NOW)).toEqual({ kind: "call", call: "readValidation", dataType: "chartOfAccounts", datasetId: "ds-acc" });
    const first = applyResult(counted, { kind: "call", call: "readValidation", dataType: "chartOfAccounts", datasetId: "ds-acc" }, { ok: true, call: "readValidation", dataType: "chartOfAccounts", validation: none }, NOW, counting);
    expect(first.state).toBe("sync_requested");
    const next = { ...counted, ...first };
    expect(decideNext(next, NOW)).toEqual({ kind: "call", call: "readValidation", dataType: "invoices", datasetId: "ds-inv" });
    const flawed = { errors: [{ message: "Lines do not add up", count: 2 }], warnings: [], errorCount: 2, warningCount: 0 };
    const done = applyResult(next, { kind: "call", call: "readValidation", dataType: "invoices", datasetId: "ds-inv" }, { ok: true, call: "readValidation", dataType: "invoices", validation: flawed }, NOW, counting);
    expect(done).toMatchObject({ state: "verified", checks: { validation: { chartOfAccounts: none, invoices: flawed } } });
  });

  it("validation results the service will not give are left unknown; they never fail a proven company", () => {
    const counted = synced({ ...proven, records: { invoices: 12 } });
    const decision: CallDecision = { kind: "call", call: "readValidation", dataType: "chartOfAccounts", datasetId: "ds-acc" };
    expect(applyResult(counted, decision, failure("readValidation", "not_found", { status: 404 }), NOW, counting)).toMatchObject({ state: "sync_requested", checks: { validation: { chartOfAccounts: null } } });
  });

  it("a bulk run counts and validates only the companies with old counts; the others are verified on the proof", () => {
    const bulk: PipelinePolicy = { ...policy, countWhenOldCounts: true };
    const answer: CallResult = { ok: true, call: "readData", dataType: "chartOfAccounts", records: 50 };
    const proofRead: CallDecision = { kind: "call", call: "readData", dataType: "chartOfAccounts" };
    expect(applyResult(synced(), proofRead, answer, NOW, bulk)).toMatchObject({ state: "verified" });
    expect(applyResult(synced({}, { oldCounts: {} }), proofRead, answer, NOW, bulk)).toMatchObject({ state: "verified" });
    const withCounts = synced({}, { oldCounts: { invoices: 1_040 } });
    const t = applyResult(withCounts, proofRead, answer, NOW, bulk);
    expect(t.state).toBe("sync_requested");
    expect(decideNext({ ...withCounts, ...t }, NOW)).toEqual({ kind: "call", call: "readData", dataType: "invoices" });
    expect(countsEveryDataType({ oldCounts: { invoices: 1 } }, policy)).toBe(false);
  });
});

describe("applyResult: the sync's status", () => {
  const syncing = (polls = 0, requestedAt = NOW) =>
    item({ state: "sync_requested", companyId: "c1", connectionId: "k1", checks: { sync: { requestedAt: requestedAt.toISOString(), polls, dataTypes: {} } } });
  const status = (dataTypes: Record<string, string>): CallResult => ({ ok: true, call: "getDataStatus", dataTypes });

  it("polls again with a growing delay while a type is running, or nothing is listed yet", () => {
    expect(applyResult(syncing(0), call("getDataStatus"), status({ invoices: "Fetching" }), NOW, policy)).toMatchObject({
      state: "sync_requested",
      nextAttemptAt: later(pollDelayMs(0, policy)),
      checks: { sync: { polls: 1, dataTypes: { invoices: "Fetching" } } },
    });
    expect(applyResult(syncing(4), call("getDataStatus"), status({}), NOW, policy).nextAttemptAt).toEqual(later(pollDelayMs(4, policy)));
    expect(pollDelayMs(0, policy)).toBeLessThan(pollDelayMs(4, policy));
    expect(pollDelayMs(100, policy)).toBe(policy.pollMaxMs);
  });

  it("Complete and NotSupported pass (the read comes next); a platform without the read type is verified on its statuses", () => {
    expect(applyResult(syncing(), call("getDataStatus"), status({ chartOfAccounts: "Complete", directIncomes: "NotSupported" }), NOW, policy)).toMatchObject({
      state: "sync_requested",
      nextAttemptAt: null,
    });
    expect(applyResult(syncing(), call("getDataStatus"), status({ chartOfAccounts: "NotSupported", invoices: "Complete" }), NOW, policy)).toMatchObject({
      state: "verified",
      checks: { read: { skipped: "not_supported" } },
    });
  });

  it("FetchError fails the item naming the types; AuthError means the tokens were refused during the sync", () => {
    expect(applyResult(syncing(), call("getDataStatus"), status({ invoices: "FetchError", bills: "Complete" }), NOW, policy)).toMatchObject({
      state: "failed",
      outcomeReason: "1 data type did not sync: invoices FetchError.",
      lastError: { kind: "sync_failed" },
    });
    expect(applyResult(syncing(), call("getDataStatus"), status({ invoices: "AuthError", bills: "AuthError" }), NOW, policy)).toMatchObject({
      state: "reauth_required",
      lastError: { kind: "auth_error_during_sync" },
      outcomeReason: expect.stringContaining("AuthError on invoices, bills") as string,
    });
  });

  it("gives up once the sync has run past its deadline", () => {
    const t = applyResult(syncing(40, later(-policy.syncDeadlineMs)), call("getDataStatus"), status({ invoices: "Fetching", bills: "Complete" }), NOW, policy);
    expect(t).toMatchObject({ state: "failed", lastError: { kind: "sync_timeout" }, outcomeReason: expect.stringContaining("1 data type still syncing (invoices)") as string });
  });
});

describe("applyResult: failures by scope", () => {
  it("every service error kind has a scope", () => {
    const scopes = Object.fromEntries(SERVICE_ERROR_KINDS.map((k) => [k, failureScope(k)]));
    expect(scopes).toMatchObject({
      unauthorized: "run_stop",
      forbidden: "run_stop",
      company_limit: "run_stop",
      sync_schedule_not_allowed: "run_stop",
      account_expired: "run_stop",
      maintenance: "run_pause",
      rate_limited: "retry",
      server_error: "retry",
      timeout: "retry",
      network: "retry",
      not_found: "item",
    });
  });

  it("401, 403 and the 402s stop the run: the item keeps its state and the error, and nothing is in flight", () => {
    for (const kind of ["unauthorized", "forbidden", "company_limit", "account_expired"] as const) {
      const t = applyResult(item({ inFlightCall: "createCompany" }), call("createCompany"), failure("createCompany", kind, { status: 402 }), NOW, policy);
      expect(t).toMatchObject({ state: "pending", inFlightCall: null, attempts: 0, runEffect: { scope: "run_stop", error: { kind } }, lastError: { kind, correlationId: "corr-1" } });
    }
  });

  it("a retryable failure waits (Retry-After wins over a shorter backoff) and keeps a create in flight for the lookup", () => {
    const t = applyResult(item({ inFlightCall: "createCompany" }), call("createCompany"), failure("createCompany", "timeout"), NOW, policy);
    expect(t).toMatchObject({ state: "pending", inFlightCall: "createCompany", attempts: 1, runEffect: null, lastError: { kind: "timeout" } });
    expect(t.nextAttemptAt).toEqual(later(policy.retryBaseMs * 0.5));
    expect(decideNext({ ...item(), ...t }, later(policy.retryBaseMs))).toEqual({ kind: "call", call: "findCompanyByTag" });
    const limited = applyResult(item({ attempts: 1 }), call("createCompany"), failure("createCompany", "rate_limited", { status: 429, retryAfterMs: 30_000 }), NOW, policy);
    expect(limited.nextAttemptAt).toEqual(later(30_000));
    const maintenance = applyResult(item(), call("createCompany"), failure("createCompany", "maintenance", { status: 503, retryAfterMs: 30_000 }), NOW, policy);
    expect(maintenance).toMatchObject({ attempts: 1, runEffect: { scope: "run_pause" }, nextAttemptAt: later(30_000) });
  });

  it("in a bulk run a 429 or 503 counts no attempt and leaves the company due in a moment: the pacer holds the whole run until Retry-After", () => {
    const bulk: PipelinePolicy = { ...policy, throttlingCountsAsAttempt: false };
    const maintenance = applyResult(item({ attempts: 2 }), call("createCompany"), failure("createCompany", "maintenance", { status: 503, retryAfterMs: 30_000 }), NOW, bulk);
    expect(maintenance).toMatchObject({ attempts: 2, runEffect: { scope: "run_pause" }, nextAttemptAt: later(bulk.retryBaseMs * 0.5) });
    const limited = applyResult(item(), call("createCompany"), failure("createCompany", "rate_limited", { status: 429, retryAfterMs: 30_000 }), NOW, bulk);
    expect(limited).toMatchObject({ attempts: 0, runEffect: null, nextAttemptAt: later(bulk.retryBaseMs * 0.5) });
  });

  it("a successful answer starts the count of failed attempts again: only failures in a row fail the item", () => {
    const t = applyResult(item({ attempts: policy.maxAttempts - 1, inFlightCall: "createCompany" }), call("createCompany"), { ok: true, call: "createCompany", companyId: "c1" }, NOW, policy);
    expect(t).toMatchObject({ state: "company_created", attempts: 0 });
    const next = applyResult({ ...item(), ...t }, call("createConnection"), failure("createConnection", "server_error"), NOW, policy);
    expect(next).toMatchObject({ state: "company_created", attempts: 1 });
  });

  it("fails the item once its attempts are spent", () => {
    const t = applyResult(item({ state: "authorized", attempts: policy.maxAttempts - 1 }), call("requestSync"), failure("requestSync", "server_error"), NOW, policy);
    expect(t).toMatchObject({ state: "failed", attempts: policy.maxAttempts, outcomeReason: expect.stringContaining("kept failing") as string, lastError: { kind: "server_error" } });
  });

  it("409 active connection → list the company's connections; 409 not ready on the read → read again; 404 data type → verified on its statuses", () => {
    const created = item({ state: "company_created", companyId: "c1", inFlightCall: "createConnection" });
    const conflict = applyResult(created, call("createConnection"), failure("createConnection", "active_connection_exists", { status: 409 }), NOW, policy);
    expect(conflict).toMatchObject({ state: "company_created", inFlightCall: "createConnection" });
    expect(decideNext({ ...created, ...conflict }, NOW)).toEqual({ kind: "call", call: "listConnections" });

    const syncing = item({ state: "sync_requested", companyId: "c1", connectionId: "k1", checks: { sync: { requestedAt: NOW.toISOString(), polls: 1, dataTypes: { chartOfAccounts: "Complete" } } } });
    const read: CallDecision = { kind: "call", call: "readData", dataType: "chartOfAccounts" };
    expect(applyResult(syncing, read, failure("readData", "not_ready", { status: 409 }), NOW, policy)).toMatchObject({ state: "sync_requested", nextAttemptAt: later(policy.pollInitialMs) });
    expect(applyResult(syncing, read, failure("readData", "data_type_not_supported", { status: 404 }), NOW, policy)).toMatchObject({ state: "verified", checks: { read: { skipped: "not_supported" } } });
  });

  it("anything else about this company fails it alone, with the service's text", () => {
    const t = applyResult(item({ state: "connection_created", companyId: "c1", connectionId: "k1" }), call("authorize"), failure("authorize", "bad_request", { status: 400, error: "Bad Request" }), NOW, policy);
    expect(t).toMatchObject({ state: "failed", runEffect: null, outcomeReason: "authorize: Bad Request", lastError: { kind: "bad_request", status: 400 } });
  });

  it("refuses a result that does not answer the decision", () => {
    expect(() => applyResult(item(), call("createCompany"), { ok: true, call: "requestSync" }, NOW, policy)).toThrow(/cannot answer/);
  });
});
