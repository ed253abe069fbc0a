/**
 * The watch after a bulk run, as a worker carries it out: it takes an engagement's watch when its
 * check is due (under a lease, as runs are taken), lists the engagement's companies in pages
 * through a slow pacer, and applies what the listing shows (watch-rules.ts): a company its end
 * customer linked again goes back into the engagement's bulk run to be synced and verified; a
 * migrated company whose connection dropped goes back to its end customer with its reconnect link,
 * and everyone is told. For `hypercareDays` after the handover report the migrated connections are
 * checked daily; then the watch ends with its final report.
 *
 * Time is the target's: the built-in sandbox's clock can be moved forward (its controls tell it,
 * for free), so a test or a bench can live through a week of hypercare in seconds; the real
 * service's is this machine's.
 *
 * Workers on many machines tick at once (PostgreSQL). A watch is taken by one conditional UPDATE
 * (claimWatch: no live lease, and its next check still the one read), so one worker checks it; the
 * check renews its lease between its requests and stops when another worker holds it. What a
 * check found is written in one read-committed transaction that locks the engagement's row (as
 * every change of an engagement does, so support's controls and a supplementary file's acceptance
 * queue with it), then the watch's row, and writes only while the lease is still its own: a check
 * whose lease expired and was taken writes nothing. It changes only companies still in the state
 * it read them in (their rows locked too). Mail goes after the commit.
 */
import { readSteps, type Database, type Steps } from "@/db/database";
import { tenantOf, tenantWords } from "@/core/migration/link-url";
import { getManagedPlatform } from "@/server/platforms";
import { findEngagement, loadForChange } from "@/server/engagements/engagement-repository";
import { queueNotice, type NotifyConfig } from "@/server/engagements/waiting/notify";
import { refreshWaiting, type WaitingChange } from "@/server/engagements/waiting/refresh-waiting";
import { createControlClient, type SandboxControl } from "@/server/sandbox/controls/control-client";
import { writeAudit } from "@/server/security/audit";
import { logSafe } from "@/server/security/log-safe";
import type { KeyRing } from "@/server/security/secrets";
import { createPacer } from "@/server/service-client/pacer";
import type { BudgetStore } from "@/server/service-client/budget-store";
import { joinSharedBudget, type SharedBudget } from "@/server/service-client/shared-budget";
import { createServiceClient, ServiceError, type ServiceClient, type ServiceClientOptions } from "@/server/service-client";
import { targetAddressPolicy } from "@/server/targets/network";
import { limitsOfTarget, pacerCeilingPerMinute } from "@/server/targets/limits";
import { findServiceTarget, type ServiceTargetRecord } from "@/server/targets/targets";
import { removeEventConsumers } from "@/server/targets/events/consumers";
import { engagementConsumer } from "@/server/targets/events/inbox-repository";
import { latestBulkRun, requeueIntoBulkRun } from "../bulk/bulk-repository";
import { ENGAGEMENT_TAG, type PlatformError } from "../engine/pipeline";
import type { RunRow } from "../engine/run-repository";
import { openRunSession } from "../engine/run-session";
import { queueDropsMail, queueWatchEndedMail, queueWrongCompanyMail } from "./watch-mail";
import { expiresWhenWatchEnds } from "../supplementary/rules";
import { findCurrentFile, purgeRows, updateFile } from "../supplementary/supplementary-repository";
import { countOf } from "@/core/words";
import {
  claimWatch,
  countPending,
  endWatch,
  finalTally,
  hypercareOf,
  lockItemStates,
  lockWatch,
  markDropped,
  markWrongTenant,
  recordCheck,
  releaseWatch,
  renewWatchLease,
  setReconnectedConnection,
  storeLinkUrls,
  watchedCounts,
  watchedItems,
  watchesToConsider,
  type WatchRow,
} from "./watch-repository";
import {
  ASKED_FOR,
  DAY_MS,
  decideWatch,
  hypercareOver,
  nextCheckDelayMs,
  planCheck,
  RECONNECT_EVERY_MS,
  RETRY_AFTER_FAILURE_MS,
  WATCH_PAGE_SIZE,
  type ListedCompany,
  type WatchedItem,
  type WatchFindings,
} from "./watch-rules";

export type WatcherDeps = {
  database: Database;
  ring: KeyRing;
  owner: string;
  /** How long a check holds its watch without renewing (default 60 s; a check renews it between its requests). */
  leaseMs?: number;
  /** The built-in sandbox's controls: its clock, for every target on the sandbox's server. */
  sandbox?: { url: string; adminToken: string } | null;
  /** Mail after a check (drops, the final report, a change of whose move it is); none without it. */
  notify?: NotifyConfig | null;
  /**
   * How often companies waiting for their end customers are looked at (default: RECONNECT_EVERY_MS,
   * 10 s on the built-in sandbox so a demo's reconnection shows at once, 5 min on the service).
   */
  reconnectEveryMs?: number;
  /** Options of the service clients (timeouts, a fetch). */
  client?: Partial<Omit<ServiceClientOptions, "baseUrl" | "apiKey">>;
  /** The targets' rate budgets shared with every worker: the watch spends the daily quota as they do (none: its own pacer alone). */
  budget?: { store: BudgetStore; machineId: string } | null;
  log: (line: string) => void;
};

export type Watcher = {
  /** Checks every watch that is due now (each taken under a lease); returns how many it checked. */
  tick(): Promise<number>;
  /** Leaves the targets' shared budgets (handing back unused quota). */
  close(): Promise<void>;
};

/** What one check did, for its log line and the tests; `recorded` is false when it lost its lease and another worker's check counts instead. */
export type CheckReport = { engagementId: string; requests: number; findings: WatchFindings | null; failure: string | null; ended: boolean; recorded: boolean };

/** A check's lease passed to another worker (it expired and was taken): the check stops and writes nothing. */
class LeaseLost extends Error {
  constructor(engagementId: string) {
    super(`The watch of engagement ${engagementId} was taken by another worker.`);
  }
}

const sameBase = (a: string, b: string) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "");

/** A listed company as the rules read it: its Link URL and its connections' live (unresolved) errors. */
export function toListed(c: { id: string; redirect?: string | null; dataConnections: { id: string; integrationKey?: string | null; status: ListedCompany["connections"][number]["status"]; connectionInfo?: Record<string, unknown> | null; dataConnectionErrors?: { statusCode?: string | null; statusText?: string | null; errorMessage?: string | null; status?: string | null }[] | null }[] }): ListedCompany {
  return {
    id: c.id,
    redirect: c.redirect ?? null,
    connections: c.dataConnections.map((d) => ({
      id: d.id,
      integrationKey: d.integrationKey ?? null,
      status: d.status,
      tenant: tenantOf(d.connectionInfo),
      errors: (d.dataConnectionErrors ?? [])
        .filter((e) => e.status !== "Resolved")
        .map((e): PlatformError => ({ statusCode: e.statusCode ?? null, statusText: e.statusText ?? null, errorMessage: e.errorMessage ?? null })),
    })),
  };
}

/** One watcher in one worker: what its named steps below share. */
type WatcherState = {
  deps: WatcherDeps;
  leaseMs: number;
  control: SandboxControl | null;
  /** A service client per engagement and target, kept while this worker lives (its key decrypted once). */
  sessions: Map<string, { targetId: string; client: ServiceClient }>;
  /** The watch's seats in the targets' shared budgets, one per engagement's client. */
  seats: Map<string, SharedBudget>;
};

const READ_COMMITTED = { isolation: "read committed" } as const;

/** A watcher for a worker (see the module comment). */
export function createWatcher(deps: WatcherDeps): Watcher {
  const w: WatcherState = {
    deps,
    leaseMs: deps.leaseMs ?? 60_000,
    control: deps.sandbox ? createControlClient(deps.sandbox) : null,
    sessions: new Map(),
    seats: new Map(),
  };
  return {
    tick: () => tick(w),
    async close() {
      await Promise.allSettled([...w.seats.values()].map((seat) => seat.leave()));
      w.seats.clear();
    },
  };
}

const onSandbox = (w: WatcherState, target: ServiceTargetRecord) => !!w.deps.sandbox && sameBase(target.baseUrl, w.deps.sandbox.url);

/** Now on the target's clock. */
async function clockOf(w: WatcherState, target: ServiceTargetRecord): Promise<Date> {
  if (w.control && onSandbox(w, target)) return new Date((await w.control.getClock()).now);
  return new Date();
}

/**
 * The engagement's service client on its run's target (run-session.ts: the target checked for
 * this engagement, its key decrypted, audited, once and kept in memory), or the refusal's words.
 */
async function clientFor(w: WatcherState, engagementId: string, run: RunRow, target: ServiceTargetRecord): Promise<ServiceClient | string> {
  const { deps } = w;
  const cached = w.sessions.get(engagementId);
  if (cached?.targetId === target.id) return cached.client;
  const session = await openRunSession({
    database: deps.database,
    ring: deps.ring,
    run,
    purpose: (reference) => `watch the migrated connections of ${reference}`,
    connect: (t, apiKey) => {
      // Slow on purpose: a check is a few list requests, never a burst. Such a trickle takes no
      // part of the machine's per-address window from the bulk runs (it keeps to what the headers
      // say remains), but its requests come out of the shared daily quota like theirs.
      w.seats.get(engagementId)?.leave().catch(() => {});
      const share = deps.budget
        ? joinSharedBudget({ store: deps.budget.store, targetId: t.id, machineId: deps.budget.machineId, knownDailyQuota: t.builtIn ? null : t.dailyQuota, sharesWindow: false, holder: deps.owner, log: deps.log })
        : null;
      if (share) w.seats.set(engagementId, share);
      const pacer = createPacer({ share, initialConcurrency: 1, maxConcurrency: 2, maxPerMinute: pacerCeilingPerMinute(t), ...(deps.client?.fetch ? { fetch: deps.client.fetch } : {}) });
      return createServiceClient({ timeoutMs: 60_000, ...deps.client, baseUrl: t.baseUrl, apiKey, fetch: pacer.fetch, addresses: targetAddressPolicy(t) });
    },
  });
  if (!session.ok) return session.refusal.kind === "no_target" ? "The engagement's bulk run has no service target." : session.refusal.reason;
  w.sessions.set(engagementId, { targetId: target.id, client: session.connection });
  return session.connection;
}

/** Keeps the watch's lease between a check's requests (renewed once a third of it has passed); throws LeaseLost when another worker holds it. */
function leaseKeeper(w: WatcherState, engagementId: string): () => Promise<void> {
  const { database, owner } = w.deps;
  let renewedAt = Date.now();
  return async () => {
    if (Date.now() - renewedAt < w.leaseMs / 3) return;
    const at = new Date();
    if (!(await database.transaction((tx) => renewWatchLease(tx, { engagementId, owner, leaseMs: w.leaseMs, now: at }), READ_COMMITTED))) throw new LeaseLost(engagementId);
    renewedAt = at.getTime();
  };
}

/** Lists the engagement's companies (by their engagement tag), in pages; companies made before the tag are looked for among all. */
async function listCompanies(client: ServiceClient, engagementId: string, wanted: ReadonlySet<string>, keepLease: () => Promise<void>): Promise<{ listed: Map<string, ListedCompany>; requests: number }> {
  const listed = new Map<string, ListedCompany>();
  let requests = 0;
  // Page after page as the service answers them (it may answer fewer a page than asked).
  const pages = async (tag?: { name: string; value: string }) => {
    await keepLease();
    for await (const { data } of client.companyPages({ tag, pageSize: WATCH_PAGE_SIZE })) {
      requests += 1;
      for (const c of data.results) listed.set(c.id, toListed(c));
      await keepLease();
    }
  };
  await pages({ name: ENGAGEMENT_TAG, value: engagementId });
  if ([...wanted].some((id) => !listed.has(id))) await pages();
  return { listed, requests };
}

/** Looks up the waiting companies one by one; one deleted on the service is left out, as a listing would. */
async function lookUp(client: ServiceClient, waiting: readonly { companyId: string }[], keepLease: () => Promise<void>): Promise<{ listed: Map<string, ListedCompany>; requests: number }> {
  const listed = new Map<string, ListedCompany>();
  let requests = 0;
  for (const item of waiting) {
    await keepLease();
    requests += 1;
    try {
      const { data } = await client.getCompany({ companyId: item.companyId });
      listed.set(data.id, toListed(data));
    } catch (error) {
      if (!(error instanceof ServiceError && error.status === 404)) throw error;
    }
  }
  return { listed, requests };
}

/** A check's failure to list or look up, as stored on the watch. */
type CheckFailure = { status: number | null; error: string; correlationId: string | null; kind: string };

/** What a check saw on the service: its findings, or the failure that stopped it; null when it lost its lease meanwhile. */
type Observation = { findings: WatchFindings | null; failure: CheckFailure | null; requests: number } | null;

/** Lists (the day's listing) or looks up (the waiting companies alone) what the service holds, and decides what it means. */
async function observe(w: WatcherState, params: { client: ServiceClient; engagementId: string; platformKey: string; plan: "list" | "look_up"; items: readonly WatchedItem[]; waiting: readonly WatchedItem[] }): Promise<Observation> {
  const keepLease = leaseKeeper(w, params.engagementId);
  let requests = 0;
  try {
    if (params.plan === "list") {
      const listing = await listCompanies(params.client, params.engagementId, new Set(params.items.map((i) => i.companyId)), keepLease);
      return { findings: decideWatch(params.items, listing.listed, params.platformKey), failure: null, requests: listing.requests };
    }
    const lookup = await lookUp(params.client, params.waiting, keepLease);
    requests = lookup.requests;
    return { findings: decideWatch(params.waiting, lookup.listed, params.platformKey), failure: null, requests };
  } catch (error) {
    if (error instanceof LeaseLost) return null;
    if (!(error instanceof ServiceError)) throw error;
    return { findings: null, failure: { status: error.status, error: error.error, correlationId: error.correlationId, kind: error.kind }, requests: Math.max(requests, 1) };
  }
}

/** Checks one engagement's watch (taken under its lease): observe the service, then write what that changes, fenced by the lease; mail after. */
async function check(w: WatcherState, row: WatchRow, target: ServiceTargetRecord, client: ServiceClient, now: Date): Promise<CheckReport> {
  const { database, log } = w.deps;
  const engagementId = row.engagementId;
  const { engagement, counts, waitingItems, hypercare } = await readSteps(database, function* (tx) {
    return {
      engagement: yield* findEngagement(tx, engagementId),
      counts: yield* watchedCounts(tx, engagementId),
      waitingItems: yield* watchedItems(tx, engagementId, ["reconnect_pending"]),
      hypercare: yield* hypercareOf(tx, engagementId),
    };
  });
  if (!engagement) throw new Error(`The engagement of watch ${engagementId} no longer exists.`);
  const startHypercare = !row.hypercareEndsAt && hypercare.producedAt ? new Date(now.getTime() + hypercare.days * DAY_MS) : undefined;
  const plannedEnd = row.hypercareEndsAt ?? startHypercare ?? null;
  const plan = planCheck({ pending: waitingItems.length, dayStartedAt: row.dayStartedAt, now, hypercareStarts: !!startHypercare, hypercareEndsAt: plannedEnd, askedFor: row.nextCheckAt.getTime() === ASKED_FOR.getTime() });
  // Between listings a check looks up only the waiting companies: the others (thousands, after a
  // large run) are loaded only for the day's listing.
  const items = plan === "list" ? await readSteps(database, (tx) => watchedItems(tx, engagementId)) : waitingItems;
  const lost = (requests: number): CheckReport => {
    log(`watch of ${engagement.reference}: lost its lease; another worker checks it`);
    return { engagementId, requests, findings: null, failure: null, ended: false, recorded: false };
  };
  const seen = await observe(w, { client, engagementId, platformKey: engagement.platformKey, plan: plan === "list" ? "list" : "look_up", items, waiting: waitingItems });
  if (!seen) return lost(0);
  const rule = limitsOfTarget(target);
  const dailyQuota = rule.kind === "service" ? rule.limits.dailyQuota.base + rule.limits.dailyQuota.perConnectedCompany * counts.verified : null;
  // With the engagement's webhook consumer registered, a reconnection arrives as an event (watch-events.ts):
  // between the daily listings nothing is polled.
  const events = await readSteps(database, (tx) => engagementConsumer(tx, engagementId));
  const reconnectEveryMs = events ? DAY_MS : (w.deps.reconnectEveryMs ?? (onSandbox(w, target) ? RECONNECT_EVERY_MS.sandbox : RECONNECT_EVERY_MS.service));
  const outcome = await database.transaction(
    (tx) => writeCheck(tx, { owner: w.deps.owner, row, now, at: new Date(), seen, items, counts, dailyQuota, reconnectEveryMs, startHypercare, hypercareDays: hypercare.days, notify: w.deps.notify ?? null }),
    READ_COMMITTED,
  );
  if (!outcome) return lost(seen.requests);
  logCheck(w, engagement.reference, seen, outcome);
  // Reconnected to another platform company: unlinked now the check is written (the next check retries a refusal).
  if (outcome.wrongTenant.length) seen.requests += await unlinkWrongTenants(client, outcome.wrongTenant, log);
  if (outcome.ended && events) await removeEventConsumers({ database, client, log }, { targetId: target.id, engagementId });
  return { engagementId, requests: seen.requests, findings: seen.findings, failure: seen.failure?.error ?? null, ended: outcome.ended, recorded: true };
}

/** A quiet check says nothing: the log tells what changed, failed or ended. */
function logCheck(w: WatcherState, reference: string, seen: NonNullable<Observation>, outcome: CheckOutcome): void {
  const { failure, requests } = seen;
  if (!failure && !outcome.ended && !outcome.dropped.length && !outcome.reconnected && !outcome.startsNow) return;
  w.deps.log(
    `watch of ${reference}: ${countOf(requests, "request", "requests")}` +
      (failure ? `, the check failed (${failure.status ?? failure.kind}: ${failure.error})` : `, ${outcome.reconnected} reconnected, ${outcome.dropped.length} dropped`) +
      (outcome.ended ? "; the watch ended" : ""),
  );
}

export type CheckOutcome = {
  ended: boolean;
  report: Parameters<typeof queueWatchEndedMail>[2] | null;
  waiting: WaitingChange | null;
  dropped: { itemId: string; reason: string; name: string; linkUrl: string | null }[];
  /** Waiting companies reconnected to another platform company: their connections are unlinked after the check; `newlyFound` ones were told. */
  wrongTenant: { itemId: string; companyId: string; connectionId: string; name: string; expected: Record<string, string>; found: Record<string, string>; newlyFound: boolean }[];
  reconnected: number;
  startsNow: boolean;
};

/**
 * What a check found, written (read committed): the engagement's row, then the watch's, are
 * locked before anything is decided (see the module comment); the body may run again on
 * PostgreSQL, so it changes nothing outside the database; the mail about it is queued in it. Null
 * when the lease expired during the check and another worker took the watch (or checked it).
 */
function* writeCheck(
  tx: Parameters<typeof lockWatch>[0],
  p: {
    owner: string;
    row: WatchRow;
    now: Date;
    at: Date;
    seen: NonNullable<Observation>;
    items: readonly WatchedItem[];
    counts: { companies: number };
    dailyQuota: number | null;
    reconnectEveryMs: number;
    startHypercare: Date | undefined;
    hypercareDays: number;
    /** How the check's mail is written; none when null. */
    notify: NotifyConfig | null;
  },
): Steps<CheckOutcome | null> {
  const engagementId = p.row.engagementId;
  const { eng } = yield* loadForChange(tx, engagementId);
  const watch = yield* lockWatch(tx, engagementId);
  if (!watch || watch.leaseOwner !== p.owner) return null;
  const applied = p.seen.findings
    ? yield* applyFindings(tx, { engagementId, organizationId: eng.organizationId, platformKey: eng.platformKey, findings: p.seen.findings, items: p.items, at: p.at })
    : { reconnected: [], dropped: [], wrongTenant: [] };
  // Support may have changed the hypercare days during the check: the locked row tells the end now.
  const startsNow = watch.hypercareEndsAt ? undefined : p.startHypercare;
  const hypercareEndsAt = watch.hypercareEndsAt ?? startsNow ?? null;
  const pending = yield* countPending(tx, engagementId);
  const stored = yield* recordCheck(tx, {
    engagementId,
    owner: p.owner,
    at: p.now,
    nextCheckAt: nextCheckAt({ row: p.row, watch, now: p.now, failed: !!p.seen.failure, hypercareEndsAt, delayMs: nextCheckDelayMs({ pending, companies: p.counts.companies, dailyQuota: p.dailyQuota, reconnectEveryMs: p.reconnectEveryMs }) }),
    requests: p.seen.requests,
    drops: applied.dropped.length,
    reconnections: applied.reconnected.length,
    failure: p.seen.failure,
    ...(startsNow ? { hypercareEndsAt: startsNow } : {}),
  });
  // Cannot happen with the watch's row locked and its lease read above; if it did, nothing is kept.
  if (!stored) throw new LeaseLost(engagementId);
  if (startsNow) {
    yield* writeAudit(tx, { actor: null, action: "watch.hypercare_started", targetId: engagementId, engagementId, organizationId: eng.organizationId, after: { days: p.hypercareDays, endsAt: startsNow.toISOString() }, at: p.at });
  }
  const ended = eng.status === "cancelled" || (!p.seen.failure && hypercareOver(hypercareEndsAt, p.now));
  const totals = { checks: watch.checks + 1, requests: watch.requests + p.seen.requests, drops: watch.drops + applied.dropped.length, reconnections: watch.reconnections + applied.reconnected.length };
  const report = ended ? yield* endTheWatch(tx, { engagementId, organizationId: eng.organizationId, totals, days: p.hypercareDays, at: p.at }) : null;
  const waiting: WaitingChange | null = yield* refreshWaiting(tx, engagementId, p.at, eng);
  if (p.notify) {
    yield* queueDropsMail(tx, p.notify, { engagementId, dropped: applied.dropped });
    yield* queueWrongCompanyMail(tx, p.notify, { engagementId, companies: applied.wrongTenant.filter((w) => w.newlyFound) });
    if (report) yield* queueWatchEndedMail(tx, p.notify, report);
    yield* queueNotice(tx, p.notify, { engagementId, waiting });
  }
  return { ended, report, waiting, dropped: applied.dropped, wrongTenant: applied.wrongTenant, reconnected: applied.reconnected.length, startsNow: !!startsNow };
}

/**
 * When the next check is due: after the delay the pending companies call for (sooner after a
 * failure), never later than the next day's listing, and on the hypercare's end rather than a day
 * after it; a check asked for while this one ran (support's "check now", new hypercare days) stays
 * asked for.
 */
function nextCheckAt(p: { row: WatchRow; watch: WatchRow; now: Date; failed: boolean; hypercareEndsAt: Date | null; delayMs: number }): Date {
  const askedMeanwhile = p.watch.nextCheckAt.getTime() === ASKED_FOR.getTime() && p.row.nextCheckAt.getTime() !== ASKED_FOR.getTime();
  if (askedMeanwhile) return ASKED_FOR;
  const now = p.now.getTime();
  let next = now + (p.failed ? Math.min(p.delayMs, RETRY_AFTER_FAILURE_MS) : p.delayMs);
  // The next day's listing is due a day after this day's began (recordCheck starts a new day as planCheck reads it).
  const dayStarted = !p.row.dayStartedAt || now - p.row.dayStartedAt.getTime() >= DAY_MS ? now : p.row.dayStartedAt.getTime();
  next = Math.min(next, dayStarted + DAY_MS);
  if (p.hypercareEndsAt && next > p.hypercareEndsAt.getTime()) next = Math.max(now, p.hypercareEndsAt.getTime());
  return new Date(next);
}

/**
 * Applies the findings to companies still as the check read them (meanwhile fresh tokens may have
 * been accepted for a waiting one, or a migrated one handed back already): reconnected ones go back
 * into the bulk run to be synced and verified, dropped ones to their end customers; each audited.
 */
export function* applyFindings(
  tx: Parameters<typeof lockItemStates>[0],
  p: { engagementId: string; organizationId: string; platformKey: string; findings: WatchFindings; items: readonly WatchedItem[]; at: Date },
): Steps<{ reconnected: { itemId: string; connectionId: string }[]; dropped: CheckOutcome["dropped"]; wrongTenant: CheckOutcome["wrongTenant"] }> {
  const { engagementId, findings, at } = p;
  const byId = new Map(p.items.map((i) => [i.id, i]));
  const learned = new Map(findings.links.map((l) => [l.itemId, l.linkUrl]));
  const states = yield* lockItemStates(tx, [...findings.reconnected.map((r) => r.itemId), ...findings.dropped.map((d) => d.itemId), ...findings.wrongTenant.map((w) => w.itemId)]);
  const reconnected = findings.reconnected.filter((r) => states.get(r.itemId) === "reconnect_pending");
  const dropped = findings.dropped
    .filter((d) => states.get(d.itemId) === "verified")
    .map((d) => ({ ...d, name: byId.get(d.itemId)?.name ?? d.itemId, linkUrl: learned.get(d.itemId) ?? byId.get(d.itemId)?.linkUrl ?? null }));
  // A reconnection to another platform company is told once (its connection is unlinked after the
  // check; found again before that, it is the same one).
  const wrongTenant = findings.wrongTenant
    .filter((w) => states.get(w.itemId) === "reconnect_pending")
    .map((w) => ({ ...w, companyId: byId.get(w.itemId)?.companyId ?? "", name: byId.get(w.itemId)?.name ?? w.itemId, told: sameTenant(byId.get(w.itemId)?.wrongTenant ?? null, w.found) }));
  const audit = { actor: null, engagementId, organizationId: p.organizationId, at };
  yield* storeLinkUrls(tx, findings.links);
  for (const r of reconnected) {
    yield* setReconnectedConnection(tx, r);
    yield* writeAudit(tx, { ...audit, action: "migration_item.reconnected", targetId: r.itemId, after: { company: byId.get(r.itemId)?.name ?? r.itemId } });
  }
  yield* requeueIntoBulkRun(tx, { engagementId, itemIds: reconnected.map((r) => r.itemId), state: "authorized", now: at });
  for (const d of dropped) {
    yield* markDropped(tx, { itemId: d.itemId, reason: d.reason, now: at });
    yield* writeAudit(tx, { ...audit, action: "migration_item.dropped", targetId: d.itemId, after: { company: d.name, reason: d.reason } });
  }
  for (const w of wrongTenant.filter((x) => !x.told)) {
    yield* markWrongTenant(tx, { itemId: w.itemId, found: w.found, reason: wrongTenantReason(platformNameOf(p.platformKey), w), now: at });
    yield* writeAudit(tx, { ...audit, action: "migration_item.wrong_company", targetId: w.itemId, after: { company: w.name, expected: tenantWords(w.expected), found: tenantWords(w.found) } });
  }
  return { reconnected, dropped, wrongTenant: wrongTenant.map(({ told, ...w }) => ({ ...w, newlyFound: !told })) };
}

/** The platform's name for screens and mail ("QuickBooks Online"), or its key. */
const platformNameOf = (platformKey: string) => getManagedPlatform(platformKey)?.name ?? platformKey;

/**
 * Unlinks the connections that were reconnected to another platform company (after the check's or
 * event's transaction), so the service reads nothing of that company; the company's end customer
 * reconnects the right one through the same link. One PATCH each; a refusal is logged and tried
 * again at the next check that finds it still linked. Answers the requests made.
 */
export async function unlinkWrongTenants(client: ServiceClient, wrong: readonly { companyId: string; connectionId: string }[], log?: (line: string) => void): Promise<number> {
  let requests = 0;
  for (const w of wrong) {
    requests += 1;
    try {
      await client.unlinkConnection({ companyId: w.companyId, connectionId: w.connectionId });
    } catch (error) {
      log?.(`could not unlink connection ${w.connectionId} (reconnected to another company): ${error instanceof ServiceError ? `${error.status ?? error.kind} ${error.error} (correlationId ${error.correlationId ?? "none"})` : String(error)}`);
    }
  }
  return requests;
}

const sameTenant = (a: Record<string, string> | null, b: Record<string, string>) => a !== null && tenantWords(a) === tenantWords(b);

/** Why a company still waits after its end customer reconnected another platform company, and what to do, in words. */
export function wrongTenantReason(platformName: string, w: { expected: Record<string, string>; found: Record<string, string> }): string {
  return (
    `Reconnected to a different ${platformName} company (${tenantWords(w.found)}; the migrated one is ${tenantWords(w.expected)}): ` +
    `whoever was signed in to ${platformName} in that browser authorized. Ferry unlinked that connection, so nothing of the other company is read. ` +
    `Ask the end customer to open the same reconnect link again, signed in to the company that was migrated.`
  );
}

/**
 * The watch's end: its final tally audited, fresh tokens nobody reviewed in time deleted unused
 * (rules.ts: they can no longer be used), and the final report's content for the mail.
 */
function* endTheWatch(
  tx: Parameters<typeof endWatch>[0],
  p: { engagementId: string; organizationId: string; totals: { checks: number; requests: number; drops: number; reconnections: number }; days: number; at: Date },
): Steps<NonNullable<CheckOutcome["report"]>> {
  const { engagementId, organizationId, totals, at } = p;
  yield* endWatch(tx, { engagementId, at });
  const tally = yield* finalTally(tx, engagementId);
  yield* writeAudit(tx, { actor: null, action: "watch.ended", targetId: engagementId, engagementId, organizationId, after: { ...totals, stillPending: tally.pending, verified: tally.verified }, at });
  const pendingItems = (yield* watchedItems(tx, engagementId)).filter((i) => i.state === "reconnect_pending");
  let expired: { fileName: string; companies: number } | null = null;
  const file = yield* findCurrentFile(tx, engagementId);
  if (file && expiresWhenWatchEnds(file.status)) {
    const companies = yield* purgeRows(tx, file.id, at);
    yield* updateFile(tx, file.id, { status: "expired", decidedAt: at });
    expired = { fileName: file.fileName, companies };
    yield* writeAudit(tx, { actor: null, action: "supplementary.expired", targetId: file.id, engagementId, organizationId, after: expired, at });
  }
  return { engagementId, days: p.days, ...totals, verified: tally.verified, pending: pendingItems.map((i) => ({ name: i.name, companyId: i.companyId })), expired };
}

/** Checks every watch that is due now, each taken under its lease; answers how many it checked. */
async function tick(w: WatcherState): Promise<number> {
  const { database, log } = w.deps;
  let checked = 0;
  for (const row of await readSteps(database, (tx) => watchesToConsider(tx, new Date()))) {
    try {
      if (await checkIfDue(w, row)) checked += 1;
    } catch (error) {
      log(`watch of engagement ${row.engagementId} failed: ${logSafe(error)}`);
    }
  }
  return checked;
}

/** Takes one watch (if due on its target's clock, and nobody holds it) and checks it; true when the check counts. */
async function checkIfDue(w: WatcherState, row: WatchRow): Promise<boolean> {
  const { database, owner } = w.deps;
  const { run, target } = await readSteps(database, function* (tx) {
    const run = yield* latestBulkRun(tx, row.engagementId);
    return { run, target: run?.serviceTargetId ? yield* findServiceTarget(tx, run.serviceTargetId) : undefined };
  });
  if (!run || !target) return false;
  const now = await clockOf(w, target);
  if (row.nextCheckAt.getTime() > now.getTime()) return false;
  // Read committed: one conditional UPDATE. A second worker's waits on the row, then finds the
  // lease live or the next check moved, and changes nothing.
  const claim = { engagementId: row.engagementId, owner, leaseMs: w.leaseMs, now: new Date(), nextCheckAt: row.nextCheckAt };
  if (!(await database.transaction((tx) => claimWatch(tx, claim), READ_COMMITTED))) return false;
  try {
    const client = await clientFor(w, row.engagementId, run, target);
    if (typeof client === "string") {
      // No usable target: say so on the watch and look again in an hour (recordCheck is fenced by the lease).
      const failure = { status: null, error: client, correlationId: null, kind: "no_service_target" };
      await database.transaction(
        (tx) => recordCheck(tx, { engagementId: row.engagementId, owner, at: now, nextCheckAt: new Date(now.getTime() + 3_600_000), requests: 0, drops: 0, reconnections: 0, failure }),
        READ_COMMITTED,
      );
      return false;
    }
    return (await check(w, row, target, client, now)).recorded;
  } catch (error) {
    await database.transaction((tx) => releaseWatch(tx, { engagementId: row.engagementId, owner }), READ_COMMITTED);
    throw error;
  }
}
