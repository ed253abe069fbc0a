/**
 * Step 2's duration estimate, pure: how long migrating the file's companies takes against a
 * service target, which limit decides it, and the formula with its inputs for the UI to show.
 *
 * Per company the pipeline makes, one after another: create company, create connection, PUT
 * authorization, POST data/all, then dataStatus polls every `pollIntervalSeconds` until the sync
 * is complete, then one data read — 5 + polls calls. Three limits bound the whole run:
 * - rate limit: every call of every company through the target's requests per second;
 * - sync time: companies run `concurrency` at a time, each waiting polls × poll interval;
 * - daily quota (real service only): 1,000 × (1 + connected companies) calls a day, the count
 *   growing as companies are linked; a day whose quota runs out waits for the 00:00 UTC reset.
 * The run takes as long as the slowest bound (they overlap); that one is the bottleneck.
 */
import { formatDuration } from "@/core/format";
import { plural } from "@/core/words";
import { SANDBOX_SYNC_TIMING, type ManagedPlatform } from "@/server/platforms";
import { dailyQuotaOf, requestsPerSecondOf, type ServiceLimits } from "./service-limits";

export * from "./service-limits";

/** How long one company's sync takes, from POST data/all to the last data type complete. */
export type SyncModel = {
  /** Seconds before the first record: queueing, staggered starts, fixed fetch cost. */
  baseSeconds: number;
  /** Seconds per record (the `records` hint counts records per data type). */
  perRecordSeconds: number;
  /** Where the numbers come from, for the UI. */
  source: string;
};


/** The sandbox's sync model for a platform: all its supported data types fetched in parallel, staggered. */
export function sandboxSyncModel(platform: ManagedPlatform): SyncModel {
  const t = SANDBOX_SYNC_TIMING;
  const types = platform.supportedDataTypes.length;
  return {
    baseSeconds: (t.queueMs + t.staggerMs * Math.max(0, types - 1) + t.fetchBaseMs) / 1000,
    perRecordSeconds: t.perRecordMs / 1000,
    source: `the sandbox's model: ${types} data types, ${t.queueMs} ms queue + ${t.staggerMs} ms stagger each + ${t.fetchBaseMs} ms + ${t.perRecordMs} ms per record`,
  };
}

/**
 * An assumption for the real service, which publishes no sync speed: a minute to start and
 * finish, plus 10 ms per record. Support should replace it with what they observe (step 5).
 */
export const ASSUMED_SERVICE_SYNC: SyncModel = {
  baseSeconds: 60,
  perRecordSeconds: 0.01,
  source: "assumed (the service publishes no sync speed): 60 s + 10 ms per record",
};

/** Records per company assumed when the file gives no `records` hint (the sandbox's default tenant). */
export const DEFAULT_RECORDS_PER_COMPANY = 50;
/** Seconds between dataStatus polls, unless the caller states another. */
export const DEFAULT_POLL_INTERVAL_SECONDS = 10;
/** Companies migrated at the same time, unless the caller states another. */
export const DEFAULT_CONCURRENCY = 10;

/** Calls per company besides the polls: create company, create connection, PUT authorization, POST data/all, one data read. */
export const FIXED_CALLS_PER_COMPANY = 5;

const DAY_SECONDS = 86_400;
/** A run the quota would stretch beyond this is reported at this many days. */
const MAX_QUOTA_DAYS = 3_650;

export type EstimateInput = {
  companies: number;
  records: {
    /** The sum of the `records` hints the file gives. */
    hintedSum: number;
    /** How many companies have a hint. */
    hintedCompanies: number;
    /** Records assumed for each company without a hint. */
    defaultPerCompany: number;
  };
  limits: ServiceLimits;
  sync: SyncModel;
  pollIntervalSeconds: number;
  /** Companies migrated at the same time. */
  concurrency: number;
  /** Real service: companies the client already has connected (they count towards the quota). */
  connectedCompaniesAtStart?: number;
};

export type Bottleneck = "rate_limit" | "daily_quota" | "sync_time";

export type MigrationEstimate = {
  totalSeconds: number;
  bottleneck: Bottleneck;
  bounds: Record<Bottleneck, number>;
  totalRecords: number;
  syncSecondsPerCompany: number;
  pollsPerCompany: number;
  callsPerCompany: number;
  totalCalls: number;
  /** Days of quota the run needs (real service), or null without a quota. */
  quotaDays: number | null;
  /** Every input and intermediate value, in words, for the UI. */
  inputs: { label: string; value: string }[];
  /** The formula in one line, with symbols. */
  formula: string;
  /** The same formula with this estimate's numbers. */
  worked: string;
};

const nf = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });
/** A figure as `nf` writes it and its word, chosen for the figure as written ("1 poll", "1.5 records"). */
const count = (n: number, one: string, other: string) => `${nf.format(n)} ${plural(Math.round(n * 100) / 100, { one, other })}`;


/**
 * Days of quota needed. Within a day, k companies fit while k × calls ≤ quota(connected + k): a
 * linked company raises the quota by `perConnectedCompany`, so when a company costs no more than
 * that the quota never runs out; otherwise k = quota(connected) ÷ (calls − perConnectedCompany).
 */
export function quotaDays(params: { companies: number; calls: number; limits: ServiceLimits; connected: number }): number | null {
  const { limits, calls } = params;
  if (limits.target !== "service") return null;
  if (params.companies === 0) return 0;
  const per = limits.dailyQuota.perConnectedCompany;
  let remaining = params.companies;
  let connected = params.connected;
  let days = 0;
  while (remaining > 1e-9 && days < MAX_QUOTA_DAYS) {
    days += 1;
    const quota = dailyQuotaOf(limits, connected) ?? 0;
    const fit = calls <= per ? remaining : Math.min(remaining, quota / (calls - per));
    remaining -= fit;
    connected += fit;
  }
  return days;
}

function assertInput(input: EstimateInput): void {
  const counts = [input.companies, input.records.hintedSum, input.records.hintedCompanies, input.records.defaultPerCompany];
  if (counts.some((n) => !Number.isFinite(n) || n < 0)) throw new RangeError("estimateMigration: counts must be 0 or more");
  if (input.records.hintedCompanies > input.companies) throw new RangeError("estimateMigration: more hinted companies than companies");
  if (!(input.pollIntervalSeconds > 0) || !(input.concurrency >= 1)) {
    throw new RangeError("estimateMigration: pollIntervalSeconds must be positive and concurrency at least 1");
  }
}

/** Estimates a migration's duration (see the module note for the model). */
export function estimateMigration(input: EstimateInput): MigrationEstimate {
  assertInput(input);
  const { companies, records, sync, limits, pollIntervalSeconds: poll } = input;
  const concurrency = Math.floor(input.concurrency);
  const connectedAtStart = input.connectedCompaniesAtStart ?? 0;
  const unhinted = companies - records.hintedCompanies;
  const totalRecords = records.hintedSum + unhinted * records.defaultPerCompany;
  const averageRecords = companies ? totalRecords / companies : 0;
  const syncSeconds = sync.baseSeconds + sync.perRecordSeconds * averageRecords;
  const polls = Math.max(1, Math.ceil(syncSeconds / poll));
  const callsPerCompany = FIXED_CALLS_PER_COMPANY + polls;
  const totalCalls = companies * callsPerCompany;
  const rps = requestsPerSecondOf(limits);
  const waves = Math.ceil(companies / concurrency);
  const days = quotaDays({ companies, calls: callsPerCompany, limits, connected: connectedAtStart });

  const bounds: Record<Bottleneck, number> = {
    rate_limit: totalCalls / rps,
    sync_time: waves * polls * poll,
    daily_quota: days ? (days - 1) * DAY_SECONDS : 0,
  };
  const order: Bottleneck[] = ["daily_quota", "sync_time", "rate_limit"];
  const bottleneck = order.reduce((best, b) => (bounds[b] > bounds[best] ? b : best), order[0]!);
  const totalSeconds = companies ? bounds[bottleneck] : 0;

  const rateText =
    limits.target === "service"
      ? `${nf.format(limits.requestsPerMinute)} requests per minute per address (${nf.format(rps)} per second)`
      : `${nf.format(rps)} requests per second (the sandbox's configured limit)`;
  const inputs = [
    { label: "Companies", value: nf.format(companies) },
    {
      label: "Records",
      value: `${nf.format(records.hintedSum)} from ${nf.format(records.hintedCompanies)} hints + ${nf.format(unhinted)} × ${nf.format(records.defaultPerCompany)} (stated default per company) = ${nf.format(totalRecords)}; ${nf.format(averageRecords)} per company`,
    },
    {
      label: "Sync time per company",
      value: `${nf.format(sync.baseSeconds)} s + ${nf.format(sync.perRecordSeconds * 1000)} ms × ${count(averageRecords, "record", "records")} = ${nf.format(syncSeconds)} s (${sync.source})`,
    },
    { label: "Poll interval", value: `${nf.format(poll)} s, so ${nf.format(polls)} dataStatus ${plural(polls, { one: "poll", other: "polls" })} per company` },
    {
      label: "Service calls per company",
      value: `${FIXED_CALLS_PER_COMPANY} (create company, create connection, PUT authorization, POST data/all, one data read) + ${count(polls, "poll", "polls")} = ${nf.format(callsPerCompany)}; ${nf.format(totalCalls)} in all`,
    },
    { label: "Rate limit", value: rateText },
    ...(limits.target === "service"
      ? [
          {
            label: "Daily quota",
            value:
              limits.dailyQuota.perConnectedCompany === 0
                ? `${nf.format(limits.dailyQuota.base)} requests a day, reset at 00:00 UTC; ${count(days ?? 0, "day", "days")} of quota`
                : `${nf.format(limits.dailyQuota.base)} × (1 + connected companies), reset at 00:00 UTC; ${nf.format(connectedAtStart)} connected at the start, growing as companies are linked; ${count(days ?? 0, "day", "days")} of quota`,
          },
        ]
      : []),
    { label: "Companies at a time", value: nf.format(concurrency) },
  ];
  const formula =
    "total = max(companies × calls per company ÷ rate limit, ⌈companies ÷ companies at a time⌉ × polls × poll interval, (quota days − 1) × 24 h), where polls = ⌈sync time ÷ poll interval⌉ and calls per company = 5 + polls";
  const worked = `total = max(${nf.format(totalCalls)} ÷ ${nf.format(rps)}/s = ${formatDuration(bounds.rate_limit)}, ${nf.format(waves)} × ${nf.format(polls)} × ${nf.format(poll)} s = ${formatDuration(bounds.sync_time)}, ${days === null ? "no daily quota" : `(${nf.format(days)} − 1) × 24 h = ${formatDuration(bounds.daily_quota)}`}) = ${formatDuration(totalSeconds)}`;

  return {
    totalSeconds,
    bottleneck,
    bounds,
    totalRecords,
    syncSecondsPerCompany: syncSeconds,
    pollsPerCompany: polls,
    callsPerCompany,
    totalCalls,
    quotaDays: days,
    inputs,
    formula,
    worked,
  };
}
