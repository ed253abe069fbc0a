/**
 * Carrying out a bulk run in a worker: many companies at once through the per-company runner
 * (runner.ts), every request through one pacer (pacer.ts) that paces to the X-Rate-Limit headers
 * of each answer, so the run uses the service's limit fully without storming it.
 *
 * - **Companies, not requests, are claimed.** The worker claims companies of the run in batches
 *   (`claimItems`, short leases renewed every second) and drives each until it is final or has to
 *   wait; a company that waits longer than a moment (its sync's expected time, a backoff) is let go
 *   and claimed again when due, so waiting companies hold neither a lease nor the request budget.
 *   How many are driven at once follows the pacer's concurrency (additive increase,
 *   multiplicative decrease on 429/503).
 * - **One coordinator, any number of helpers.** The worker holding the run's lease coordinates:
 *   it records the pace for the screens and finishes the run when every company is final. Other
 *   workers, on this machine or others, help with the same run's companies (two never drive the
 *   same one: each claim is one conditional update in a read-committed transaction, its rows
 *   picked with FOR UPDATE SKIP LOCKED on PostgreSQL; every store is fenced by the item's lease).
 *   When the coordinator dies, a helper takes the run's lease over as soon as it has run out and
 *   coordinates from there, keeping the companies it drives; the dead worker's companies, their
 *   leases run out, are claimed first by whoever has room (a worker at its cap takes them too,
 *   up to maxItems companies in all).
 * - **Run-level outcomes.** 401, 403 and every 402 stop the whole run with the reason in words
 *   until support resumes; a 503 or a spent quota holds every request (the run waits and carries
 *   on by itself, probing now and then), counting no company's attempts; a 500 or a timeout is
 *   retried within the company's bounds and then fails that company alone.
 */
import { setMaxListeners } from "node:events";
import { readSteps, type Database } from "@/db/database";
import { ASSUMED_SERVICE_SYNC, DEFAULT_RECORDS_PER_COMPANY, sandboxSyncModel, type SyncModel } from "@/server/intake";
import { writeAudit } from "@/server/security/audit";
import type { KeyRing } from "@/server/security/secrets";
import { createServiceClient, type ServiceClient, type ServiceClientOptions } from "@/server/service-client";
import { pacerCeilingPerMinute } from "@/server/targets/limits";
import { failItemAlone, LeaseLostError, platformOf, claimItems, releaseItemLease } from "../engine/item-repository";
import { createPacer, type Pacer, type PacerHold } from "@/server/service-client/pacer";
import type { ServiceTargetRecord } from "@/server/targets/targets";
import { joinSharedBudget, type SharedBudget } from "@/server/service-client/shared-budget";
import type { BudgetStore } from "@/server/service-client/budget-store";
import { loadForChange } from "@/server/engagements/engagement-repository";
import { queueNotice, type NotifyConfig } from "@/server/engagements/waiting/notify";
import { refreshWaiting } from "@/server/engagements/waiting/refresh-waiting";
import { handToEndCustomers } from "../watch/watch-repository";
import { ensureEventConsumers } from "@/server/targets/events/consumers";
import { DEFAULT_PIPELINE_POLICY, ENGAGEMENT_TAG, type PipelineCall, type PipelinePolicy, type StoredError } from "../engine/pipeline";
import type { HeldLeases } from "../engine/leases";
import { findRun, finishRunRow, type RunRow } from "../engine/run-repository";
import { openRunSession, type RunSession } from "../engine/run-session";
import { sleep, stepItem, type RunnerContext } from "../engine/runner";
import { reconciliationInWords } from "@/core/migration/reconciliation";
import { reconcile } from "../reconciliation";
import { bulkRunEndNotice } from "./run-end-notice";
import { announcedPause, type AnnouncedPause } from "./announced-pause";
import { addPace, countUnfinished, runCountsByState, setBulkStatus, type BulkOutcome } from "./bulk-repository";
import { targetAddressPolicy } from "@/server/targets/network";

export type BulkDeps = {
  database: Database;
  ring: KeyRing;
  owner: string;
  leaseMs: number;
  policy?: Partial<PipelinePolicy>;
  client?: Partial<Omit<ServiceClientOptions, "baseUrl" | "apiKey">>;
  log: (line: string) => void;
  beforeStore?: (call: PipelineCall) => void;
  /** Companies driven at once at most (default 256). */
  maxItems?: number;
  /** Mail when the run's end hands companies to their end customers (whose move it then is); none without it. */
  notify?: NotifyConfig | null;
  /** The target's rate budget shared with every other worker (none: this worker's pacer has the whole limit). */
  budget?: { store: BudgetStore; machineId: string } | null;
  /** The run's own intervals (DEFAULT_BULK_TIMINGS; tests set them short). */
  timings?: Partial<BulkTimings>;
  /** Ferry's public URL for webhooks (FERRY_PUBLIC_URL) where the target names none: none, the watch polls. */
  publicUrl?: string | null;
  /**
   * The web app's own address, for the built-in sandbox alone (it runs beside Ferry and reaches it
   * there) when FERRY_PUBLIC_URL is not set: its runs are driven by its webhooks as a real target's
   * would be, without a public address every other target would be told to post to.
   */
  sandboxPublicUrl?: string | null;
};

/** The bulk run's own intervals: parameters, so that a test of a probe or a hold waits milliseconds, not the real ones. */
export type BulkTimings = {
  /** How often the run's loop looks at its companies, its pacer and (on `paceEveryMs`) its status. */
  tickMs: number;
  /** How often the pace is recorded and the run's status read. */
  paceEveryMs: number;
  /** A company that has to wait longer than this is let go and claimed again when due. */
  letGoAfterMs: number;
  /**
   * How often a run held for long lets a few requests through to see whether the service is back:
   * every `probeEveryMs`, or every `longHoldProbeEveryMs` for a hold over 5 minutes on the real
   * service (a spent daily quota). A sandbox is probed every `probeEveryMs` whatever the hold, since
   * its clock may be moved forward (a probe is a handful of requests a minute: within any limit).
   */
  probeEveryMs: number;
  longHoldProbeEveryMs: number;
};

export const DEFAULT_BULK_TIMINGS: BulkTimings = { tickMs: 250, paceEveryMs: 2_000, letGoAfterMs: 1_500, probeEveryMs: 10_000, longHoldProbeEveryMs: 60_000 };

const probeEvery = (timings: BulkTimings, heldForMs: number, targetKind: string) =>
  targetKind === "service" && heldForMs > 5 * 60_000 ? timings.longHoldProbeEveryMs : timings.probeEveryMs;

/** The run's pacer holds every request for longer than a short window: how the screens word it. */
export function holdOf(hold: PacerHold | null, nowMs: number): BulkOutcome["hold"] | null {
  if (!hold || hold.until - nowMs < 3_000) return null;
  const at = new Date(hold.until).toISOString().slice(11, 16);
  if (hold.reason === "maintenance") {
    return { kind: "maintenance", text: `The service is in maintenance (503): the run waits and carries on by itself (next try about ${at} UTC).`, until: hold.until };
  }
  if (hold.reason === "quota_spent" || hold.until - nowMs > 60_000) {
    return {
      kind: "daily_quota",
      text: `The service's request quota${hold.limit ? ` of ${hold.limit.toLocaleString("en-GB")}` : ""} is spent: the run waits for its reset at ${at} UTC and carries on by itself.`,
      until: hold.until,
    };
  }
  return { kind: "rate_limit", text: `The service asked to slow down (429): the run waits until ${at} UTC.`, until: hold.until };
}

/** The run stops: what happened, in words that say what to do. */
async function stopReason(error: StoredError, countCompanies: () => Promise<number | null>): Promise<string> {
  const answer = `${error.status ?? ""} ${error.error}`.trim();
  switch (error.kind) {
    case "company_limit": {
      const n = await countCompanies();
      return `Free-trial company limit of 50 reached${n !== null ? `: ${n.toLocaleString("en-GB")} companies exist on this service account` : ""}. Upgrade the account or delete companies it no longer needs, then resume. (The service said: ${answer})`;
    }
    case "account_expired":
      return `The service account's free trial has expired: the customer must upgrade it, then resume. (The service said: ${answer})`;
    case "sync_schedule_not_allowed":
      return `The service account is on a free trial, which does not allow hourly sync schedules: remove them or upgrade, then resume. (The service said: ${answer})`;
    case "unauthorized":
    case "forbidden":
      return `The service target's API key was refused (${error.status ?? "no status"}): an admin should check the key under Admin → Service targets, then resume. (The service said: ${answer})`;
    case "redirected":
    case "address_refused":
      return `The service target's base URL cannot be used: ${error.error} An admin should check it under Admin → Service targets, then resume.`;
    default:
      return `${error.operation} failed: ${answer}`;
  }
}

function syncModelFor(kind: string, platformKey: string): SyncModel {
  return kind === "service" ? ASSUMED_SERVICE_SYNC : sandboxSyncModel(platformOf(platformKey));
}

/**
 * The pipeline policy of a bulk run on a target of this kind (sandbox or service) and platform: a
 * 429 or 503 counts no attempt, a company's first status poll waits its expected sync time, and a
 * company with old counts has every data type counted.
 */
export function bulkPipelinePolicy(targetKind: string, platformKey: string, overrides: Partial<PipelinePolicy> = {}): PipelinePolicy {
  const model = syncModelFor(targetKind, platformKey);
  return {
    ...DEFAULT_PIPELINE_POLICY,
    ...overrides,
    throttlingCountsAsAttempt: false,
    // Companies whose token file row carries the old app's counts get every data type counted
    // (and validated), so the counts can be compared; the others spend only the proof's request.
    countWhenOldCounts: true,
    expectedSyncMs: (records) => Math.round((model.baseSeconds + model.perRecordSeconds * (records ?? DEFAULT_RECORDS_PER_COMPANY)) * 1000),
  };
}

/** What a bulk run's pacer, service client and budget seat are, once opened on its target. */
type BulkConnection = { pacer: Pacer; client: ServiceClient; share: SharedBudget | null };

/** One bulk run in this worker: what its named steps below share. */
type BulkRun = {
  d: BulkDeps;
  run: RunRow;
  timings: BulkTimings;
  /** The worker's own stop (or this run's lease lost); `sig` adds the run's own end to it. */
  signal: AbortSignal;
  sig: AbortSignal;
  runAbort: AbortController;
  engagement: RunnerContext["engagement"] & { platformKey: string };
  target: ServiceTargetRecord;
  connection: BulkConnection;
  runner: RunnerContext;
  /** This worker coordinates the run (it claimed it, or took it over), or only helps with its companies. */
  coordinator: boolean;
  /** The fencing token of this worker's claim (or takeover) of the run, while it coordinates it. */
  runToken: string | null;
  takeOver: (() => Promise<string | null>) | undefined;
  /** The worker's leases for this run: each company driven is held (renewed) by its claim's token. */
  leases: HeldLeases;
  /** The companies this worker drives now, by item. */
  drivers: Map<string, Promise<void>>;
  /** The answer that stops the whole run (a refused key, a full free trial), once one came. */
  stop: StoredError | null;
  lastProbeAt: number;
  /** The pause the service announced on the target (announced-pause.ts), and its hold while in force. */
  announced: AnnouncedPause;
  announcedHold: BulkOutcome["hold"] | null;
  /** Until when the coordinator's lease is known to hold (a helper looks again once it has passed). */
  coordinatorUntil: number;
  pace: {
    last: { sent: number; rateLimited: number };
    lastAt: number;
    /** The limit's window, from two spent windows' resets in a row (a second, a minute, a day). */
    windowSeen: { requests: number; perSeconds: number } | null;
    previousReset: { limit: number; until: number } | null;
  };
};

/** The pacer (one budget per target across workers: this pacer's part of the machine's window, the daily quota in blocks) and the client on it. */
function connectBulk(d: BulkDeps, target: ServiceTargetRecord, apiKey: string): BulkConnection {
  const share: SharedBudget | null = d.budget
    ? joinSharedBudget({ store: d.budget.store, targetId: target.id, machineId: d.budget.machineId, knownDailyQuota: target.builtIn ? null : target.dailyQuota, holder: d.owner, log: d.log })
    : null;
  const pacer = createPacer({
    share,
    initialConcurrency: 8,
    maxConcurrency: 64,
    // The service blocks an address beyond its per-minute limit without a header saying so: every
    // target but the built-in sandbox keeps under it (limits.ts decides which, and how many).
    maxPerMinute: pacerCeilingPerMinute(target),
    ...(d.client?.fetch ? { fetch: d.client.fetch } : {}),
  });
  const client = createServiceClient({ timeoutMs: 60_000, ...d.client, baseUrl: target.baseUrl, apiKey, fetch: pacer.fetch, retry: "none", addresses: targetAddressPolicy(target) });
  return { pacer, client, share };
}

/**
 * Carries out (coordinator) or helps with a bulk run until it ends, stops, is paused or cancelled
 * (noticed within a tick), or — for a helper — until it has nothing to claim.
 */
export async function carryOutBulk(
  d: BulkDeps,
  run: RunRow,
  signal: AbortSignal,
  coordinates: boolean,
  /**
   * `leases`: the worker's leases for the run, through which each company driven is held;
   * `takeOver`: a helper's way to take the run's lease over when its coordinator's has run out
   * (its takeover's fencing token when it did).
   */
  options: { leases: HeldLeases; takeOver?: () => Promise<string | null> },
): Promise<void> {
  const session = await openRunSession({
    database: d.database,
    ring: d.ring,
    run,
    purpose: (reference) => `call the service for the bulk migration of ${reference}`,
    connect: (target, apiKey) => connectBulk(d, target, apiKey),
  });
  if (!session.ok) {
    const reason = session.refusal.kind === "no_target" ? "The run has no service target: choose one for the engagement, then resume." : session.refusal.reason;
    const claim = { owner: d.owner, token: run.leaseToken ?? "" };
    if (coordinates) await d.database.transaction((tx) => setBulkStatus(tx, { runId: run.id, from: ["running"], to: "stopped", reason, now: new Date(), claim }), { isolation: "read committed" });
    return;
  }
  const r = bulkRunOf({ d, run, signal, coordinates, takeOver: options.takeOver, session, leases: options.leases });
  // The engagement's webhook consumer, from the run's start to the watch's end (never throws; without it the watch polls).
  if (coordinates) {
    await ensureEventConsumers(
      { database: d.database, ring: d.ring, client: session.connection.client, defaultPublicUrl: d.publicUrl ?? (session.target.builtIn ? d.sandboxPublicUrl : null), log: d.log },
      { targetId: session.target.id, engagementId: run.engagementId, engagementTag: `${ENGAGEMENT_TAG}:${run.engagementId}` },
    );
  }
  try {
    await loop(r);
    if (r.stop && !signal.aborted) await stopRun(r, r.stop);
  } finally {
    // Its share goes to the machine's other pacers, its unused quota back to the counter (after the
    // stop's last request, which goes through the same pacer).
    await r.connection.share?.leave().catch((error: unknown) => d.log(`leaving the rate budget failed: ${error instanceof Error ? error.message : String(error)}`));
  }
}

/** The run's state in this worker, on its opened session. */
function bulkRunOf(params: {
  d: BulkDeps;
  run: RunRow;
  signal: AbortSignal;
  coordinates: boolean;
  takeOver: (() => Promise<string | null>) | undefined;
  session: RunSession<BulkConnection>;
  leases: HeldLeases;
}): BulkRun {
  const { d, run, signal, session } = params;
  const { engagement, platform, target } = session;
  const runAbort = new AbortController();
  const sig = AbortSignal.any([signal, runAbort.signal]);
  // Each company driven at once waits on it (a sleep, a request): up to maxItems listeners.
  setMaxListeners(0, sig);
  const runner: RunnerContext = {
    database: d.database,
    ring: d.ring,
    client: session.connection.client,
    runId: run.id,
    owner: d.owner,
    engagement,
    platform,
    rehearsal: false,
    policy: bulkPipelinePolicy(target.kind, engagement.platformKey, d.policy),
    signal: sig,
    beforeStore: d.beforeStore,
  };
  return {
    d,
    run,
    timings: { ...DEFAULT_BULK_TIMINGS, ...d.timings },
    signal,
    sig,
    runAbort,
    engagement,
    target,
    connection: session.connection,
    runner,
    coordinator: params.coordinates,
    runToken: params.coordinates ? run.leaseToken : null,
    takeOver: params.takeOver,
    leases: params.leases,
    drivers: new Map(),
    stop: null,
    lastProbeAt: Date.now(),
    announced: announcedPause({ database: d.database, targetId: target.id, pacer: session.connection.pacer }),
    announcedHold: null,
    coordinatorUntil: run.leaseExpiresAt?.getTime() ?? 0,
    pace: { last: { sent: 0, rateLimited: 0 }, lastAt: 0, windowSeen: null, previousReset: null },
  };
}

/** The pacers of this machine sending to the target (this one among them), as its budget seat last read them. */
function sharingPacers(r: BulkRun): number {
  const seat = r.connection.share?.state().share;
  return seat?.ready ? seat.count : 1;
}

/** Waits while the pacer holds every request for long (maintenance, a spent quota); the run's loop probes now and then. */
async function gate(r: BulkRun): Promise<void> {
  for (;;) {
    const hold = r.connection.pacer.stats().hold;
    const now = Date.now();
    if (!hold || hold.reason === "minute_ceiling" || hold.until - now <= 1_500) return;
    await sleep(Math.min(1_000, hold.until - now), r.sig);
  }
}

/** Drives one company through the pipeline until it is final, waits long (let go, claimed again when due) or stops the run. */
async function drive(r: BulkRun, itemId: string, token: string): Promise<void> {
  const { d } = r;
  try {
    for (;;) {
      r.sig.throwIfAborted();
      await gate(r);
      const step = await stepItem(r.runner, itemId, token);
      if (step.kind === "final") return;
      if (step.kind === "wait") {
        const ms = step.until.getTime() - Date.now();
        if (ms > r.timings.letGoAfterMs) return; // claimed again when due
        await sleep(ms, r.sig);
        continue;
      }
      if (step.transition.runEffect?.scope === "run_stop") {
        r.stop ??= step.transition.runEffect.error;
        r.runAbort.abort(new Error("run stopped"));
        return;
      }
    }
  } catch (error) {
    if (r.sig.aborted || error instanceof LeaseLostError) return;
    // A fault of Ferry's own about this company (e.g. its credentials were purged): it fails alone.
    const message = error instanceof Error ? error.message : String(error);
    d.log(`company ${itemId} of run ${r.run.id} failed: ${message}`);
    const now = new Date();
    await failItemAlone(d.database, { itemId, owner: d.owner, token, now, error: { operation: "run", kind: "internal", status: null, service: null, error: message, correlationId: null, at: now.toISOString() } }).catch(
      (failError: unknown) => d.log(`could not record the failure of company ${itemId}: ${failError instanceof Error ? failError.message : String(failError)}`),
    );
  } finally {
    r.drivers.delete(itemId);
    r.leases.dropItem(itemId);
    // Fenced by the owner and this claim's token: a lease taken over meanwhile stays the other's.
    await d.database
      .transaction((tx) => releaseItemLease(tx, { itemId, owner: d.owner, token }), { isolation: "read committed" })
      .catch((error: unknown) => d.log(`letting go of company ${itemId} failed (its lease runs out by itself): ${error instanceof Error ? error.message : String(error)}`));
  }
}

/** The limit's window length, from two consecutive spent windows' resets (windows are fixed: the shortest gap seen is its length). */
function learnWindow(r: BulkRun, hold: PacerHold | null): void {
  if (hold?.reason !== "window_spent" || !hold.limit) return;
  const { pace } = r;
  if (pace.previousReset && pace.previousReset.limit === hold.limit && hold.until - pace.previousReset.until > 500) {
    const span = Math.max(1, Math.round((hold.until - pace.previousReset.until) / 1000));
    if (!pace.windowSeen || pace.windowSeen.requests !== hold.limit || span < pace.windowSeen.perSeconds) pace.windowSeen = { requests: hold.limit, perSeconds: span };
  }
  if (!pace.previousReset || hold.until - pace.previousReset.until > 500) pace.previousReset = { limit: hold.limit, until: hold.until };
}

/** The pace since the last record, added to the run's counters (and, from the coordinator, a sample); never throws. */
async function recordPace(r: BulkRun, now: number): Promise<void> {
  const { d, pace } = r;
  const s = r.connection.pacer.stats();
  const delta = { requests: s.sent - pace.last.sent, rateLimited: s.rateLimited - pace.last.rateLimited };
  pace.last = { sent: s.sent, rateLimited: s.rateLimited };
  learnWindow(r, s.hold);
  const limit = pace.windowSeen ?? (s.limit ? { requests: s.limit, perSeconds: 1 } : null);
  try {
    const finished = r.coordinator
      ? Object.entries(await readSteps(d.database, (tx) => runCountsByState(tx, r.run.id))).reduce((n, [st, k]) => (["verified", "reauth_required", "failed", "set_aside"].includes(st) ? n + k : n), 0)
      : 0;
    await addPace(d.database, {
      runId: r.run.id,
      delta,
      coordinator: r.coordinator ? { claim: { owner: d.owner, token: r.runToken ?? "" }, finished, limit, hold: r.announcedHold ?? holdOf(s.hold, now) ?? null } : null,
      now: new Date(now),
    });
  } catch (error) {
    // The pace is for the screens; a busy database must not stop the run (these requests are then not counted).
    d.log(`recording the pace of run ${r.run.id} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The run's loop: every tick it records the pace and reads the run's status now and then, probes a
 * held service, claims more companies while it has room, and finishes the run once every company is
 * final. Ends when the run is no longer running here (or its work is abandoned).
 */
async function loop(r: BulkRun): Promise<void> {
  try {
    for (;;) {
      if (r.sig.aborted) break;
      const now = Date.now();
      if (!(await lookAtRun(r, now))) break;
      r.announcedHold = await r.announced.look(now);
      // While the service's announced pause holds, no probe wakes the pacer before the reset.
      const longHold = r.announcedHold ? true : probeIfHeld(r, now);
      if (!longHold) await claimCompanies(r, now);
      if (await finishIfDone(r)) break;
      await sleep(r.timings.tickMs, r.sig).catch(() => {});
    }
  } finally {
    r.runAbort.abort(new Error("run over"));
    await Promise.allSettled([...r.drivers.values()]);
    await recordPace(r, Date.now());
  }
}

/**
 * Records the pace when due and reads the run: false when it is no longer running (paused,
 * stopped or cancelled meanwhile). As soon as the coordinator's lease has run out, a helper takes
 * the run over and goes on coordinating it with the companies it drives; failing that (another
 * helper was first), it lets go, and its worker helps again or takes the run when it is free.
 */
async function lookAtRun(r: BulkRun, now: number): Promise<boolean> {
  const paceDue = now - r.pace.lastAt >= r.timings.paceEveryMs;
  if (!paceDue && (r.coordinator || now < r.coordinatorUntil)) return true;
  if (paceDue) {
    r.pace.lastAt = now;
    await recordPace(r, now);
  }
  const current = await readSteps(r.d.database, (tx) => findRun(tx, r.run.id));
  if (!current || current.status !== "running") return false;
  if (!r.coordinator && (!current.leaseExpiresAt || current.leaseExpiresAt.getTime() < now)) {
    const token = r.takeOver ? await r.takeOver() : null;
    if (!token) return false;
    r.runToken = token;
    r.coordinator = true;
    return true;
  }
  r.coordinatorUntil = current.leaseExpiresAt?.getTime() ?? 0;
  return true;
}

/**
 * Whether the pacer holds every request for long; if so, now and then a probe: the pacer lets go
 * what waits in it (as many as its concurrency, halved by the hold's answers) or else the companies
 * at the gate, and their answers say whether the service is back. Done here, not by one company,
 * whose request could queue behind the others'.
 */
function probeIfHeld(r: BulkRun, now: number): boolean {
  const s = r.connection.pacer.stats();
  const longHold = s.hold !== null && s.hold.reason !== "minute_ceiling" && s.hold.until - now > 1_500;
  if (!longHold) r.lastProbeAt = now;
  else if (s.hold && now - r.lastProbeAt >= probeEvery(r.timings, s.hold.until - now, r.target.kind)) {
    r.lastProbeAt = now;
    r.connection.pacer.wake();
  }
  return longHold;
}

/**
 * Claims more companies while this worker has room: three times the pacer's concurrency, divided
 * among the pacers that share the machine's window (each sends only its part), so that together they
 * hold what one would alone. More would only queue behind this pacer's part of the limit while
 * another worker has none left to take: the run's last seconds would wait on the slowest queue.
 * Companies a dead worker left are taken at once beyond the cap (up to maxItems in all): they wait in
 * this worker's pacer, first in the file's order, instead of on a dead lease, so its work goes on as
 * soon as the lease runs out, however many it held.
 */
async function claimCompanies(r: BulkRun, now: number): Promise<void> {
  const { d } = r;
  const maxItems = d.maxItems ?? 256;
  const cap = Math.min(maxItems, Math.max(8, Math.ceil((r.connection.pacer.stats().concurrency * 3) / sharingPacers(r))));
  const orphanRoom = maxItems - r.drivers.size;
  if (r.drivers.size >= cap && orphanRoom <= 0) return;
  const atCap = r.drivers.size >= cap;
  const claimed = await d.database.transaction(
    (tx) => claimItems(tx, { runId: r.run.id, owner: d.owner, limit: atCap ? orphanRoom : cap - r.drivers.size, leaseMs: d.leaseMs, now: new Date(now), orphanedOnly: atCap }),
    { isolation: "read committed" },
  );
  for (const item of claimed) {
    if (!item.leaseToken) continue;
    r.leases.holdItem(item.id, item.leaseToken);
    r.drivers.set(item.id, drive(r, item.id, item.leaseToken));
  }
}

/**
 * Every company final: the coordinator finishes the run (true). A helper stays until the run is seen
 * ended (its status is read every few seconds), so that it finishes the run itself should the
 * coordinator die now, instead of leaving and joining again, once a tick, until then.
 */
async function finishIfDone(r: BulkRun): Promise<boolean> {
  if (r.drivers.size > 0 || !r.coordinator) return false;
  if ((await readSteps(r.d.database, (tx) => countUnfinished(tx, r.run.id))) > 0) return false;
  // The last requests are counted before the run is seen finished, so its figures are final then.
  await recordPace(r, Date.now());
  await finishRun(r);
  return true;
}

/** An answer stopped the whole run: the run stops with the reason in words, audited once. */
async function stopRun(r: BulkRun, error: StoredError): Promise<void> {
  const { d, run, engagement } = r;
  const reason = await stopReason(error, async () => {
    try {
      return (await r.connection.client.countCompanies()).data;
    } catch {
      return null;
    }
  });
  const now = new Date();
  // Read committed: setBulkStatus locks the run's row to read its outcome; the audit event only if it changed.
  const stopped = await d.database.transaction(
    function* (tx) {
      // The coordinator's stop is fenced on its claim; a helper that meets the refusal stops the run too.
      const claim = r.runToken ? { owner: d.owner, token: r.runToken } : undefined;
      if (!(yield* setBulkStatus(tx, { runId: run.id, from: ["running"], to: "stopped", reason, now, claim }))) return false;
      yield* writeAudit(tx, {
        actor: null,
        action: "migration.bulk_stopped",
        targetId: run.id,
        engagementId: engagement.id,
        organizationId: engagement.organizationId,
        after: { reason, status: error.status, correlationId: error.correlationId },
        at: now,
      });
      return true;
    },
    { isolation: "read committed" },
  );
  if (stopped) d.log(`bulk run ${run.id} on ${engagement.reference} stopped: ${reason}`);
}

/**
 * The run's end: the engagement's row locked first (as every change of an engagement does), then
 * the run's end fenced by this worker's lease — a cancel or pause meanwhile either came first
 * (nothing here is written) or waits for this to end; the companies that failed on their tokens go
 * to their end customers with their reconnect links; mail once committed.
 */
async function finishRun(r: BulkRun): Promise<void> {
  const { d, run, engagement } = r;
  const now = new Date();
  const ended = await d.database.transaction(
    function* (tx) {
      yield* loadForChange(tx, engagement.id);
      const current = yield* findRun(tx, run.id);
      if (!current) return null;
      const counts = yield* runCountsByState(tx, run.id);
      if (!r.runToken) return null;
      const done = yield* finishRunRow(tx, { runId: run.id, owner: d.owner, token: r.runToken, status: "completed", outcome: current.outcome ?? {}, statusReason: null, now });
      if (!done) return null;
      const handed = yield* handToEndCustomers(tx, { engagementId: engagement.id, now });
      const reconciliation = yield* reconcile(tx, engagement.id);
      const audit = { actor: null, targetId: run.id, engagementId: engagement.id, organizationId: engagement.organizationId, at: now };
      yield* writeAudit(tx, { ...audit, action: "migration.bulk_finished", after: { counts, reconciliation } });
      if (handed > 0) yield* writeAudit(tx, { ...audit, action: "migration.reconnect_pending", targetId: engagement.id, after: { companies: handed } });
      const waiting = yield* refreshWaiting(tx, engagement.id, now);
      // Support is told it is their move (the report); the customer, when companies now wait on them.
      if (d.notify) yield* queueNotice(tx, d.notify, { engagementId: engagement.id, waiting, notice: bulkRunEndNotice(reconciliation) });
      return { reconciliation };
    },
    { isolation: "read committed" },
  );
  if (!ended) return;
  d.log(`bulk run ${run.id} on ${engagement.reference} finished: ${reconciliationInWords(ended.reconciliation)}`);
}
