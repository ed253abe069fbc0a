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
import { readSteps, type Database } from "@/db/database";
import { findEngagement, loadForChange } from "@/server/engagements/engagement-repository";
import { notifyAfterChange, type NotifyConfig } from "@/server/engagements/waiting/notify";
import { refreshWaiting, type WaitingChange } from "@/server/engagements/waiting/refresh-waiting";
import { createControlClient } from "@/server/sandbox/controls/control-client";
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
import { latestBulkRun, requeueIntoBulkRun } from "../bulk/bulk-repository";
import { ENGAGEMENT_TAG, type PlatformError } from "../engine/pipeline";
import type { RunRow } from "../engine/run-repository";
import { openRunSession } from "../engine/run-session";
import { mailDrops, mailWatchEnded } from "./watch-mail";
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
function toListed(c: { id: string; redirect?: string | null; dataConnections: { id: string; integrationKey?: string | null; status: ListedCompany["connections"][number]["status"]; dataConnectionErrors?: { statusCode?: string | null; statusText?: string | null; errorMessage?: string | null; status?: string | null }[] | null }[] }): ListedCompany {
  return {
    id: c.id,
    redirect: c.redirect ?? null,
    connections: c.dataConnections.map((d) => ({
      id: d.id,
      integrationKey: d.integrationKey ?? null,
      status: d.status,
      errors: (d.dataConnectionErrors ?? [])
        .filter((e) => e.status !== "Resolved")
        .map((e): PlatformError => ({ statusCode: e.statusCode ?? null, statusText: e.statusText ?? null, errorMessage: e.errorMessage ?? null })),
    })),
  };
}

export function createWatcher(deps: WatcherDeps): Watcher {
  const { database, owner, log } = deps;
  const leaseMs = deps.leaseMs ?? 60_000;
  const control = deps.sandbox ? createControlClient(deps.sandbox) : null;
  /** A service client per engagement and target, kept while this worker lives (its key decrypted once). */
  const sessions = new Map<string, { targetId: string; client: ServiceClient }>();
  /** The watch's seats in the targets' shared budgets, one per engagement's client. */
  const seats = new Map<string, SharedBudget>();

  const onSandbox = (target: ServiceTargetRecord) => !!deps.sandbox && sameBase(target.baseUrl, deps.sandbox.url);
  const readCommitted = { isolation: "read committed" } as const;

  /** Now on the target's clock. */
  async function clockOf(target: ServiceTargetRecord): Promise<Date> {
    if (control && onSandbox(target)) return new Date((await control.getClock()).now);
    return new Date();
  }

  /**
   * The engagement's service client on its run's target (run-session.ts: the target checked for
   * this engagement, its key decrypted, audited, once and kept in memory), or the refusal's words.
   */
  async function clientFor(engagementId: string, run: RunRow, target: ServiceTargetRecord): Promise<ServiceClient | string> {
    const cached = sessions.get(engagementId);
    if (cached?.targetId === target.id) return cached.client;
    const session = await openRunSession({
      database,
      ring: deps.ring,
      run,
      purpose: (reference) => `watch the migrated connections of ${reference}`,
      connect: (t, apiKey) => {
        // Slow on purpose: a check is a few list requests, never a burst. Such a trickle takes no
        // part of the machine's per-address window from the bulk runs (it keeps to what the headers
        // say remains), but its requests come out of the shared daily quota like theirs.
        seats.get(engagementId)?.leave().catch(() => {});
        const share = deps.budget
          ? joinSharedBudget({ store: deps.budget.store, targetId: t.id, machineId: deps.budget.machineId, knownDailyQuota: t.builtIn ? null : t.dailyQuota, sharesWindow: false, log })
          : null;
        if (share) seats.set(engagementId, share);
        const pacer = createPacer({ share, initialConcurrency: 1, maxConcurrency: 2, maxPerMinute: pacerCeilingPerMinute(t), ...(deps.client?.fetch ? { fetch: deps.client.fetch } : {}) });
        return createServiceClient({ timeoutMs: 60_000, ...deps.client, baseUrl: t.baseUrl, apiKey, fetch: pacer.fetch, addresses: targetAddressPolicy(t) });
      },
    });
    if (!session.ok) return session.refusal.kind === "no_target" ? "The engagement's bulk run has no service target." : session.refusal.reason;
    sessions.set(engagementId, { targetId: target.id, client: session.connection });
    return session.connection;
  }

  /** Keeps the watch's lease between a check's requests (renewed once a third of it has passed); throws LeaseLost when another worker holds it. */
  function leaseKeeper(engagementId: string): () => Promise<void> {
    let renewedAt = Date.now();
    return async () => {
      if (Date.now() - renewedAt < leaseMs / 3) return;
      const at = new Date();
      if (!(await database.transaction((tx) => renewWatchLease(tx, { engagementId, owner, leaseMs, now: at }), readCommitted))) throw new LeaseLost(engagementId);
      renewedAt = at.getTime();
    };
  }

  /** Lists the engagement's companies (by their engagement tag), in pages; companies made before the tag are looked for among all. */
  async function listCompanies(client: ServiceClient, engagementId: string, wanted: ReadonlySet<string>, keepLease: () => Promise<void>): Promise<{ listed: Map<string, ListedCompany>; requests: number }> {
    const listed = new Map<string, ListedCompany>();
    let requests = 0;
    const pages = async (tag?: { name: string; value: string }) => {
      for (let page = 1; ; page++) {
        await keepLease();
        const { data } = await client.listCompanies({ tag, page, pageSize: WATCH_PAGE_SIZE });
        requests += 1;
        for (const c of data.results) listed.set(c.id, toListed(c));
        if (data.results.length === 0 || page * data.pageSize >= data.totalResults) return;
      }
    };
    await pages({ name: ENGAGEMENT_TAG, value: engagementId });
    if ([...wanted].some((id) => !listed.has(id))) await pages();
    return { listed, requests };
  }

  /** Looks up the waiting companies one by one (at most LOOKUP_MAX); one deleted on the service is left out, as a listing would. */
  async function lookUp(client: ServiceClient, waiting: readonly { companyId: string }[], keepLease: () => Promise<void>): Promise<{ listed: Map<string, ListedCompany>; requests: number }> {
    const listed = new Map<string, ListedCompany>();
    let requests = 0;
    for (const w of waiting) {
      await keepLease();
      requests += 1;
      try {
        const { data } = await client.getCompany({ companyId: w.companyId });
        listed.set(data.id, toListed(data));
      } catch (error) {
        if (!(error instanceof ServiceError && error.status === 404)) throw error;
      }
    }
    return { listed, requests };
  }

  async function check(row: WatchRow, target: ServiceTargetRecord, client: ServiceClient, now: Date): Promise<CheckReport> {
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

    let findings: WatchFindings | null = null;
    let failure: { status: number | null; error: string; correlationId: string | null; kind: string } | null = null;
    let requests = 0;
    const plan = planCheck({ pending: waitingItems.length, dayStartedAt: row.dayStartedAt, now, hypercareStarts: !!startHypercare, hypercareEndsAt: plannedEnd, askedFor: row.nextCheckAt.getTime() === ASKED_FOR.getTime() });
    // Between listings a check looks up only the waiting companies: the others (thousands, after a
    // large run) are loaded only for the day's listing.
    const items = plan === "list" ? await readSteps(database, (tx) => watchedItems(tx, engagementId)) : waitingItems;
    const keepLease = leaseKeeper(engagementId);
    const lost = (): CheckReport => {
      log(`watch of ${engagement.reference}: lost its lease; another worker checks it`);
      return { engagementId, requests, findings, failure: failure?.error ?? null, ended: false, recorded: false };
    };
    try {
      if (plan === "list") {
        const listing = await listCompanies(client, engagementId, new Set(items.map((i) => i.companyId)), keepLease);
        requests = listing.requests;
        findings = decideWatch(items, listing.listed, engagement.platformKey);
      } else {
        const lookup = await lookUp(client, waitingItems, keepLease);
        requests = lookup.requests;
        findings = decideWatch(waitingItems, lookup.listed, engagement.platformKey);
      }
    } catch (error) {
      if (error instanceof LeaseLost) return lost();
      if (!(error instanceof ServiceError)) throw error;
      requests = Math.max(requests, 1);
      failure = { status: error.status, error: error.error, correlationId: error.correlationId, kind: error.kind };
    }

    const rule = limitsOfTarget(target);
    const dailyQuota = rule.kind === "service" ? rule.limits.dailyQuota.base + rule.limits.dailyQuota.perConnectedCompany * counts.verified : null;
    const byId = new Map(items.map((i) => [i.id, i]));
    const learned = new Map((findings?.links ?? []).map((l) => [l.itemId, l.linkUrl]));
    const found = findings;
    const at = new Date();
    const reconnectEveryMs = deps.reconnectEveryMs ?? (onSandbox(target) ? RECONNECT_EVERY_MS.sandbox : RECONNECT_EVERY_MS.service);

    // Read committed: the engagement's row, then the watch's, are locked before anything is
    // decided (see the module comment); the body may run again on PostgreSQL, so it changes
    // nothing outside the database and returns what the mail needs.
    const outcome = await database.transaction(function* (tx) {
      const { eng } = yield* loadForChange(tx, engagementId);
      const watch = yield* lockWatch(tx, engagementId);
      // The fence: the lease expired during the check and another worker took the watch (or checked it already).
      if (!watch || watch.leaseOwner !== owner) return null;
      let reconnected: { itemId: string; connectionId: string }[] = [];
      let dropped: { itemId: string; reason: string; name: string; linkUrl: string | null }[] = [];
      if (found) {
        // Only companies still as the check read them: meanwhile fresh tokens may have been accepted
        // for a waiting one, or a migrated one handed back already.
        const states = yield* lockItemStates(tx, [...found.reconnected.map((r) => r.itemId), ...found.dropped.map((d) => d.itemId)]);
        reconnected = found.reconnected.filter((r) => states.get(r.itemId) === "reconnect_pending");
        dropped = found.dropped
          .filter((d) => states.get(d.itemId) === "verified")
          .map((d) => ({ ...d, name: byId.get(d.itemId)?.name ?? d.itemId, linkUrl: learned.get(d.itemId) ?? byId.get(d.itemId)?.linkUrl ?? null }));
        yield* storeLinkUrls(tx, found.links);
        for (const r of reconnected) {
          yield* setReconnectedConnection(tx, r);
          yield* writeAudit(tx, { actor: null, action: "migration_item.reconnected", targetId: r.itemId, engagementId, organizationId: eng.organizationId, after: { company: byId.get(r.itemId)?.name ?? r.itemId }, at });
        }
        yield* requeueIntoBulkRun(tx, { engagementId, itemIds: reconnected.map((r) => r.itemId), state: "authorized", now: at });
        for (const d of dropped) {
          yield* markDropped(tx, { itemId: d.itemId, reason: d.reason, now: at });
          yield* writeAudit(tx, { actor: null, action: "migration_item.dropped", targetId: d.itemId, engagementId, organizationId: eng.organizationId, after: { company: d.name, reason: d.reason }, at });
        }
      }
      // Support may have changed the hypercare days during the check: the locked row tells the end now.
      const startsNow = watch.hypercareEndsAt ? undefined : startHypercare;
      const hypercareEndsAt = watch.hypercareEndsAt ?? startsNow ?? null;
      const pending = yield* countPending(tx, engagementId);
      const base = nextCheckDelayMs({ pending, companies: counts.companies, dailyQuota, reconnectEveryMs });
      let next = now.getTime() + (failure ? Math.min(base, RETRY_AFTER_FAILURE_MS) : base);
      // The next day's listing is due a day after this day's began (recordCheck starts a new day as planCheck reads it).
      const dayStarted = !row.dayStartedAt || now.getTime() - row.dayStartedAt.getTime() >= DAY_MS ? now : row.dayStartedAt;
      next = Math.min(next, dayStarted.getTime() + DAY_MS);
      // The last check falls on the hypercare's end, not a day after it.
      if (hypercareEndsAt && next > hypercareEndsAt.getTime()) next = Math.max(now.getTime(), hypercareEndsAt.getTime());
      // A check asked for while this one ran (support's "check now", new hypercare days) stays asked for.
      const askedMeanwhile = watch.nextCheckAt.getTime() === ASKED_FOR.getTime() && row.nextCheckAt.getTime() !== ASKED_FOR.getTime();
      const stored = yield* recordCheck(tx, {
        engagementId,
        owner,
        at: now,
        nextCheckAt: askedMeanwhile ? ASKED_FOR : new Date(next),
        requests,
        drops: dropped.length,
        reconnections: reconnected.length,
        failure,
        ...(startsNow ? { hypercareEndsAt: startsNow } : {}),
      });
      // Cannot happen with the watch's row locked and its lease read above; if it did, nothing is kept.
      if (!stored) throw new LeaseLost(engagementId);
      if (startsNow) {
        yield* writeAudit(tx, { actor: null, action: "watch.hypercare_started", targetId: engagementId, engagementId, organizationId: eng.organizationId, after: { days: hypercare.days, endsAt: startsNow.toISOString() }, at });
      }
      const closed = eng.status === "cancelled";
      const ended = closed || (!failure && hypercareOver(hypercareEndsAt, now));
      let report: Parameters<typeof mailWatchEnded>[2] | null = null;
      if (ended) {
        yield* endWatch(tx, { engagementId, at });
        const tally = yield* finalTally(tx, engagementId);
        const totals = { checks: watch.checks + 1, requests: watch.requests + requests, drops: watch.drops + dropped.length, reconnections: watch.reconnections + reconnected.length };
        yield* writeAudit(tx, {
          actor: null,
          action: "watch.ended",
          targetId: engagementId,
          engagementId,
          organizationId: eng.organizationId,
          after: { ...totals, stillPending: tally.pending, verified: tally.verified },
          at,
        });
        const pendingItems = (yield* watchedItems(tx, engagementId)).filter((i) => i.state === "reconnect_pending");
        // Fresh tokens nobody reviewed in time can no longer be used: deleted, not left behind (rules.ts).
        let expired: { fileName: string; companies: number } | null = null;
        const file = yield* findCurrentFile(tx, engagementId);
        if (file && expiresWhenWatchEnds(file.status)) {
          const companies = yield* purgeRows(tx, file.id, at);
          yield* updateFile(tx, file.id, { status: "expired", decidedAt: at });
          expired = { fileName: file.fileName, companies };
          yield* writeAudit(tx, { actor: null, action: "supplementary.expired", targetId: file.id, engagementId, organizationId: eng.organizationId, after: expired, at });
        }
        report = { engagementId, days: hypercare.days, ...totals, verified: tally.verified, pending: pendingItems.map((i) => ({ name: i.name, linkUrl: i.linkUrl })), expired };
      }
      const waiting: WaitingChange | null = yield* refreshWaiting(tx, engagementId, at, eng);
      return { ended, report, waiting, dropped, reconnected: reconnected.length, startsNow: !!startsNow };
    }, readCommitted);
    if (!outcome) return lost();
    if (deps.notify) {
      await mailDrops(database, deps.notify, { engagementId, dropped: outcome.dropped });
      if (outcome.report) await mailWatchEnded(database, deps.notify, outcome.report);
      await notifyAfterChange(database, deps.notify, { engagementId, waiting: outcome.waiting });
    }
    // A quiet check says nothing: the log tells what changed, failed or ended.
    const quiet = !failure && !outcome.ended && !outcome.dropped.length && !outcome.reconnected && !outcome.startsNow;
    if (!quiet)
      log(
        `watch of ${engagement.reference}: ${countOf(requests, "request", "requests")}` +
        (failure ? `, the check failed (${failure.status ?? failure.kind}: ${failure.error})` : `, ${outcome.reconnected} reconnected, ${outcome.dropped.length} dropped`) +
        (outcome.ended ? "; the watch ended" : ""),
    );
    return { engagementId, requests, findings, failure: failure?.error ?? null, ended: outcome.ended, recorded: true };
  }

  async function tick(): Promise<number> {
    let checked = 0;
    for (const row of await readSteps(database, (tx) => watchesToConsider(tx, new Date()))) {
      try {
        const { run, target } = await readSteps(database, function* (tx) {
          const run = yield* latestBulkRun(tx, row.engagementId);
          return { run, target: run?.serviceTargetId ? yield* findServiceTarget(tx, run.serviceTargetId) : undefined };
        });
        if (!run || !target) continue;
        const now = await clockOf(target);
        if (row.nextCheckAt.getTime() > now.getTime()) continue;
        // Read committed: one conditional UPDATE. A second worker's waits on the row, then finds
        // the lease live or the next check moved, and changes nothing.
        const claim = { engagementId: row.engagementId, owner, leaseMs, now: new Date(), nextCheckAt: row.nextCheckAt };
        if (!(await database.transaction((tx) => claimWatch(tx, claim), readCommitted))) continue;
        try {
          const client = await clientFor(row.engagementId, run, target);
          if (typeof client === "string") {
            // No usable target: say so on the watch and look again in an hour (recordCheck is fenced by the lease).
            const failure = { status: null, error: client, correlationId: null, kind: "no_service_target" };
            await database.transaction(
              (tx) => recordCheck(tx, { engagementId: row.engagementId, owner, at: now, nextCheckAt: new Date(now.getTime() + 3_600_000), requests: 0, drops: 0, reconnections: 0, failure }),
              readCommitted,
            );
            continue;
          }
          if ((await check(row, target, client, now)).recorded) checked += 1;
        } catch (error) {
          await database.transaction((tx) => releaseWatch(tx, { engagementId: row.engagementId, owner }), readCommitted);
          throw error;
        }
      } catch (error) {
        log(`watch of engagement ${row.engagementId} failed: ${logSafe(error)}`);
      }
    }
    return checked;
  }

  return {
    tick,
    async close() {
      await Promise.allSettled([...seats.values()].map((seat) => seat.leave()));
      seats.clear();
    },
  };
}
