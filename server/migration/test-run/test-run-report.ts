/**
 * What a single-company test (or its rehearsal) shows: the spec's two checks — no reauthorization
 * required, data syncs complete correctly — each passed, failed, still running or not reached; the
 * status of every data type with its record count where the service reported one; and what a run
 * stores when it ends. Pure: computed from the item's stored checks, live while the run goes on.
 */
import type { Advice } from "../advice";
import type { CheckResult, TestCheckKey } from "@/core/migration/test-run-checks";
import { TERMINAL_PULL_STATUSES, type PullStatus } from "@/server/platforms";
import { PASSING_PULL_STATUSES, type ItemChecks, type StoredError } from "../engine/pipeline";
import { readFailure } from "../engine/stored-failure";
import type { MigrationItemState } from "@/core/migration/states";
import { countOf, recordsText } from "@/core/words";
import type { Completeness } from "@/core/migration/completeness";
import { completenessOf } from "../completeness/completeness";

const dataTypesText = (n: number) => countOf(n, "data type", "data types");


export const CHECK_LABELS: Record<TestCheckKey, string> = {
  no_reauthorization: "No reauthorization required",
  data_synced: "Data syncs complete correctly",
};


export type TestCheck = { key: TestCheckKey; label: string; result: CheckResult; detail: string };

/** What a finished test did to the checklist. */
export type StepEffect =
  | { kind: "completed"; step: 5 }
  | { kind: "reopened"; step: 4; reason: string }
  /** Nothing changed, and why (a rehearsal; step 5 already done; the engagement on hold…). */
  | { kind: "none"; reason: string };

/** What a test run stores (JSON on the run): filled in as it goes, complete once it ends. */
export type TestRunOutcome = {
  /** Who chose the company: support, or Ferry (the smallest by records). */
  pickedBy?: "support" | "smallest";
  /** A rehearsal: the real company whose simulated twin is tested. */
  simulates?: { itemId: string; name: string };
  /** A rehearsal's sandbox (its base URL; the client is the rehearsal's own). */
  sandboxUrl?: string;
  /** A rehearsal's set-up on the sandbox: simulated tenants made so far. */
  preparation?: { total: number; created: number; done: boolean };
  result?: "passed" | "failed";
  checks?: TestCheck[];
  /** Why it failed, as stored (kind, status, text, correlationId). */
  failure?: StoredError;
  advice?: Advice;
  stepEffect?: StepEffect;
  /** The company as the run left it (an item may be tested again later: this run keeps its own view). */
  item?: ItemSnapshot;
};

/** The item fields the report reads (an item row as stored: its JSON columns as they are). */
export type ReportedItem = {
  state: MigrationItemState;
  checks: unknown;
  lastError: unknown;
  outcomeReason: string | null;
};

/** No company (a run that failed before it had one). */
export const NO_ITEM: ReportedItem = { state: "pending", checks: null, lastError: null, outcomeReason: null };


/** The two checks as they stand (`active`: the run is still going, so unreached checks are running). */
export function testChecks(item: ReportedItem, active: boolean): TestCheck[] {
  const waiting: CheckResult = active ? "running" : "not_reached";
  const c = (item.checks ?? {}) as ItemChecks;
  const lastError = readFailure(item.lastError);
  const check = (key: TestCheckKey, result: CheckResult, detail: string): TestCheck => ({ key, label: CHECK_LABELS[key], result, detail });

  let connection: TestCheck;
  if (item.state === "reauth_required") {
    connection = check("no_reauthorization", "failed", item.outcomeReason ?? "The connection needs reauthorization.");
  } else if (c.connection?.status === "Linked") {
    connection = check("no_reauthorization", "passed", "The connection is Linked with the migrated tokens.");
  } else if (c.connection) {
    connection = check("no_reauthorization", "failed", `The connection is ${c.connection.status}.`);
  } else {
    connection = check("no_reauthorization", waiting, active ? "Waiting for the authorization call." : "The test ended before the authorization call.");
  }

  let data: TestCheck;
  const statuses = Object.values(c.sync?.dataTypes ?? {});
  const passing = statuses.filter((s) => PASSING_PULL_STATUSES.has(s)).length;
  if (item.state === "verified") {
    const read = c.read;
    const readText = !read
      ? ""
      : read.skipped
        ? ` ${read.dataType} is not offered by the platform, so no data was read back.`
        : ` Read back ${read.dataType}: ${read.records === null ? "records present" : recordsText(read.records)}.`;
    data = check("data_synced", "passed", `${dataTypesText(statuses.length)} synced (${passing} Complete or NotSupported).${readText}`);
  } else if (lastError?.kind && ["sync_failed", "sync_timeout", "auth_error_during_sync"].includes(lastError.kind)) {
    data = check("data_synced", "failed", item.outcomeReason ?? lastError.error);
  } else if (c.sync && item.state === "failed") {
    data = check("data_synced", "failed", item.outcomeReason ?? "The sync could not be checked.");
  } else if (c.sync && active) {
    const final = statuses.filter((s) => TERMINAL_PULL_STATUSES.has(s as PullStatus)).length;
    data = check("data_synced", "running", statuses.length ? `${final} of ${dataTypesText(statuses.length)} finished.` : "Sync requested; waiting for its status.");
  } else {
    data = check("data_synced", waiting, active ? "Waits for the connection." : "The test ended before the sync.");
  }
  return [connection, data];
}

/** One data type's row: its last status and, for the type read back, the record count. */
export type DataTypeRow = { dataType: string; status: string; records: number | null };

/** Every data type of the sync, by name, with the record count where the service reported one (the proof's, and every other counted). */
export function dataTypeRows(checks: ItemChecks | null): DataTypeRow[] {
  const read = checks?.read;
  return Object.entries(checks?.sync?.dataTypes ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([dataType, status]) => ({ dataType, status, records: read && !read.skipped && read.dataType === dataType ? read.records : (checks?.records?.[dataType] ?? null) }));
}

/** The company as a run shows it: ids, state, last error, every data type, the sync's duration. */
export type ItemSnapshot = {
  id: string;
  name: string;
  externalRef: string | null;
  records: number | null;
  state: MigrationItemState;
  companyId: string | null;
  connectionId: string | null;
  attempts: number;
  lastError: StoredError | null;
  dataTypes: DataTypeRow[];
  syncMs: number | null;
  /** Counts beside the old app's, caveats, validation (absent on runs stored before it was kept). */
  completeness?: Completeness | null;
};

/** An item row's fields the snapshot reads. */
export type SnapshotSource = {
  id: string;
  name: string;
  externalRef: string | null;
  recordsHint: number | null;
  state: MigrationItemState;
  companyId: string | null;
  connectionId: string | null;
  attempts: number;
  lastError: unknown;
  checks: unknown;
  oldCounts: Record<string, number> | null;
};

/** The company as it stands now (`now` ends a sync still running, for its duration so far). */
export function snapshotOf(row: SnapshotSource, now: Date, platformKey: string): ItemSnapshot {
  const checks = (row.checks ?? null) as ItemChecks | null;
  const sync = checks?.sync;
  return {
    id: row.id,
    name: row.name,
    externalRef: row.externalRef,
    records: row.recordsHint,
    state: row.state,
    companyId: row.companyId,
    connectionId: row.connectionId,
    attempts: row.attempts,
    lastError: (row.lastError ?? null) as StoredError | null,
    dataTypes: dataTypeRows(checks),
    completeness: completenessOf({ platformKey, checks, oldCounts: row.oldCounts }),
    syncMs: sync ? Math.max(0, (sync.finishedAt ? Date.parse(sync.finishedAt) : now.getTime()) - Date.parse(sync.requestedAt)) : null,
  };
}
