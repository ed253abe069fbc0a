/**
 * Pull operations (syncs). Each operation is planned when queued — when it starts fetching, when
 * it ends and how — and its status at any moment is derived from those times and the sandbox
 * clock. Nothing runs in the background: progress survives restarts and jumps with the clock.
 *
 * Timing (sandbox milliseconds), for the i-th data type queued in one request:
 *   fetchAt    = requested + 200 + 40 × i
 *   completeAt = fetchAt + 300 + 2 × records        (records = the tenant's volume per data type)
 * An operation whose credentials fail ends AuthError at fetchAt; one for a type the platform
 * lacks is NotSupported at once.
 *
 * That is the `timed` sync mode, every client's default. A test control sets another per client,
 * so tests need not wait on real sync durations (the outcome is planned the same in every mode):
 * - `instant`: fetchAt = completeAt = requested; the operation has ended when queued.
 * - `held`: Fetching from when it is queued, with a fixed progress, whatever the clock does,
 *   until the release control ends it (completeAt = the release time). A rotation or drop of the
 *   tenant's tokens ends it AuthError as it ends a timed one still running.
 * Either way the outcome's side effects go through the same settle when due (settle.ts).
 */
import { randomUUID } from "node:crypto";
import { SANDBOX_SYNC_TIMING, type ManagedPlatform, type PullStatus } from "../../platforms";
import { HELD_UNTIL } from "../store/pulls-table";
import type { ConnectionRow, PullRow, Store, SyncMode, TenantRow } from "../store/store";
import { supportsDataType } from "./profiles";
import type { PlatformRejection } from "./tokens";

/** The sandbox's sync timing (server/platforms/sync-timing.ts, which the step-2 estimator shares). */
export const PULL_TIMING = SANDBOX_SYNC_TIMING;

/** Simulated fetch time of one data type for a tenant of `records` records per type. */
export function fetchDurationMs(records: number): number {
  return PULL_TIMING.fetchBaseMs + PULL_TIMING.perRecordMs * records;
}

export type PullState = {
  status: PullStatus;
  progress: number;
  isCompleted: boolean;
  isErrored: boolean;
  /** Sandbox time the operation ended, when it has. */
  completedAt: number | null;
};

/** What a held operation shows: underway, neither starting nor nearly done. */
const HELD_PROGRESS = 50;

/** Whether the operation waits for the release control (its client's syncs are held). */
function isHeld(op: PullRow): boolean {
  return op.completeAt === HELD_UNTIL;
}

/** The operation's status at sandbox time `now`. */
export function pullState(op: PullRow, now: number): PullState {
  if (isHeld(op)) {
    return { status: "Fetching", progress: HELD_PROGRESS, isCompleted: false, isErrored: false, completedAt: null };
  }
  if (now >= op.completeAt) {
    return {
      status: op.outcome,
      progress: 100,
      isCompleted: true,
      isErrored: op.outcome === "FetchError" || op.outcome === "AuthError",
      completedAt: op.completeAt,
    };
  }
  if (now >= op.fetchAt) {
    const span = Math.max(1, op.completeAt - op.fetchAt);
    const progress = 10 + Math.floor((80 * (now - op.fetchAt)) / span);
    return { status: "Fetching", progress, isCompleted: false, isErrored: false, completedAt: null };
  }
  return { status: "Queued", progress: 0, isCompleted: false, isErrored: false, completedAt: null };
}

/** The latest operation per connection and data type, from a company's operations (oldest first). */
export function latestByConnectionAndType(ops: readonly PullRow[]): Map<string, PullRow> {
  const latest = new Map<string, PullRow>();
  for (const op of ops) latest.set(`${op.connectionId}:${op.dataType}`, op);
  return latest;
}

/** How the service's access to the platform stands when the operations are planned. */
export type PullAccess = { ok: true; tenant: TenantRow } | { ok: false; rejection: PlatformRejection };

/** When an operation fetches and ends in the client's sync mode, given its timed fetch duration. */
function phases(params: { mode: SyncMode; now: number; position: number; fetchMs: number }): { fetchAt: number; completeAt: number } {
  const { mode, now } = params;
  if (mode === "instant") return { fetchAt: now, completeAt: now };
  // Fetching at once, so a test reads it underway without waiting out the queue phase.
  if (mode === "held") return { fetchAt: now, completeAt: HELD_UNTIL };
  const fetchAt = now + PULL_TIMING.queueMs + PULL_TIMING.staggerMs * params.position;
  return { fetchAt, completeAt: fetchAt + params.fetchMs };
}

/**
 * Data types read whole before Zoho's daily limit can run out: the company's reference lists (its
 * chart of accounts, its profile). Every other one holds at most the tenant's `dailyLimitRecords`.
 */
const READ_WHOLE: ReadonlySet<string> = new Set(["chartOfAccounts", "company"]);

/**
 * How many records a sync of `dataType` reads from the tenant: all of them, but for a Zoho Books
 * tenant whose organisation's daily API limit runs out during the fetch (the limit is shared by
 * every app on the organisation; the service fetches the rest the next day), at most
 * `dailyLimitRecords` of each transactional data type.
 */
export function datasetRecords(tenant: Pick<TenantRow, "records" | "dailyLimitRecords">, dataType: string): number {
  if (tenant.dailyLimitRecords === null || READ_WHOLE.has(dataType)) return tenant.records;
  return Math.min(tenant.records, tenant.dailyLimitRecords);
}

/**
 * Plans and stores pull operations for one connection: one per data type, skipping types whose
 * previous operation is still running. Returns the operations created.
 */
export function planPulls(params: {
  store: Store;
  connection: ConnectionRow;
  platform: ManagedPlatform;
  dataTypes: readonly string[];
  /** Asked once, and only if some data type needs the platform (not for NotSupported ones). */
  access: () => PullAccess;
  now: number;
  /** Operations of the company, oldest first (to skip types already in progress). */
  existing: readonly PullRow[];
  /** The sync mode of the company's client. */
  mode: SyncMode;
}): PullRow[] {
  const { store, connection, platform, now, mode } = params;
  let checked: PullAccess | undefined;
  const access = (): PullAccess => (checked ??= params.access());
  const latest = latestByConnectionAndType(params.existing);
  const created: PullRow[] = [];
  let position = 0;
  for (const dataType of params.dataTypes) {
    const previous = latest.get(`${connection.id}:${dataType}`);
    if (previous && now < previous.completeAt) continue;
    const base = {
      id: randomUUID(),
      companyId: connection.companyId,
      connectionId: connection.id,
      tenantId: connection.tenantId,
      dataType,
      requestedAt: now,
    };
    if (!supportsDataType(platform, dataType)) {
      const op: PullRow = {
        ...base,
        fetchAt: now,
        completeAt: now,
        outcome: "NotSupported",
        errorMessage: null,
        records: 0,
        settled: 1,
      };
      store.pulls.insert(op);
      created.push(op);
      continue;
    }
    const timing = { mode, now, position };
    position += 1;
    const granted = access();
    let op: PullRow;
    if (!granted.ok) {
      op = {
        ...base,
        ...phases({ ...timing, fetchMs: 0 }),
        outcome: "AuthError",
        errorMessage: granted.rejection.errorMessage,
        records: 0,
        settled: 0,
      };
    } else {
      const records = datasetRecords(granted.tenant, dataType);
      const failing = granted.tenant.fetchErrorTypes.includes(dataType);
      op = {
        ...base,
        tenantId: granted.tenant.id,
        ...phases({ ...timing, fetchMs: fetchDurationMs(records) }),
        outcome: failing ? "FetchError" : "Complete",
        errorMessage: failing
          ? `${platform.name} returned an error while fetching ${dataType}: HTTP 500 Internal Server Error. The sync can be retried later.`
          : null,
        records,
        settled: 0,
      };
    }
    store.pulls.insert(op);
    created.push(op);
  }
  return created;
}
