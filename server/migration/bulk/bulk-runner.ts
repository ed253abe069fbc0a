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
import { createServiceClient, type ServiceClientOptions } from "@/server/service-client";
import { pacerCeilingPerMinute } from "@/server/targets/limits";
import { failItemAlone, LeaseLostError, platformOf, claimItems, releaseItemLease } from "../engine/item-repository";
import { createPacer, type PacerHold } from "@/server/service-client/pacer";
import { joinSharedBudget, type SharedBudget } from "@/server/service-client/shared-budget";
import type { BudgetStore } from "@/server/service-client/budget-store";
import { loadForChange } from "@/server/engagements/engagement-repository";
import { notifyAfterChange, type NotifyConfig } from "@/server/engagements/waiting/notify";
import { refreshWaiting } from "@/server/engagements/waiting/refresh-waiting";
import { handToEndCustomers } from "../watch/watch-repository";
import { DEFAULT_PIPELINE_POLICY, type PipelineCall, type PipelinePolicy, type StoredError } from "../engine/pipeline";
import { findRun, finishRunRow, type RunRow } from "../engine/run-repository";
import { openRunSession } from "../engine/run-session";
import { sleep, stepItem, type RunnerContext } from "../engine/runner";
import { reconciliationInWords } from "@/core/migration/reconciliation";
import { reconcile } from "../reconciliation";
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
 * 429 or 503 counts no attempt, and a company's first status poll waits its expected sync time.
 */
export function bulkPipelinePolicy(targetKind: string, platformKey: string, overrides: Partial<PipelinePolicy> = {}): PipelinePolicy {
  const model = syncModelFor(targetKind, platformKey);
  return {
    ...DEFAULT_PIPELINE_POLICY,
    ...overrides,
    throttlingCountsAsAttempt: false,
    expectedSyncMs: (records) => Math.round((model.baseSeconds + model.perRecordSeconds * (records ?? DEFAULT_RECORDS_PER_COMPANY)) * 1000),
  };
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
  /** A helper's way to take the run's lease over when its coordinator's has run out (true when it did). */
  options: { takeOver?: () => Promise<boolean> } = {},
): Promise<void> {
  let coordinator = coordinates;
  const { database, owner, leaseMs, log } = d;
  const timings: BulkTimings = { ...DEFAULT_BULK_TIMINGS, ...d.timings };
  const session = await openRunSession({
    database,
    ring: d.ring,
    run,
    purpose: (reference) => `call the service for the bulk migration of ${reference}`,
    connect: (target, apiKey) => {
      // One budget per target across workers: this pacer's part of the machine's window, the daily quota in blocks.
      const share: SharedBudget | null = d.budget
        ? joinSharedBudget({ store: d.budget.store, targetId: target.id, machineId: d.budget.machineId, knownDailyQuota: target.builtIn ? null : target.dailyQuota, log })
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
    },
  });
  if (!session.ok) {
    const reason = session.refusal.kind === "no_target" ? "The run has no service target: choose one for the engagement, then resume." : session.refusal.reason;
    if (coordinator) await database.transaction((tx) => setBulkStatus(tx, { runId: run.id, from: ["running"], to: "stopped", reason, now: new Date() }), { isolation: "read committed" });
    return;
  }
  const { engagement, platform, target } = session;
  const { pacer, client, share } = session.connection;
  /** The pacers of this machine sending to the target (this one among them), as its budget seat last read them. */
  const sharingPacers = () => {
    const seat = share?.state().share;
    return seat?.ready ? seat.count : 1;
  };
  try {
    const policy = bulkPipelinePolicy(target.kind, engagement.platformKey, d.policy);
    const runAbort = new AbortController();
    const sig = AbortSignal.any([signal, runAbort.signal]);
    // Each company driven at once waits on it (a sleep, a request): up to maxItems listeners.
    setMaxListeners(0, sig);
    const ctx: RunnerContext = {
      database,
      ring: d.ring,
      client,
      runId: run.id,
      owner,
      engagement,
      platform,
      rehearsal: false,
      policy,
      signal: sig,
      beforeStore: d.beforeStore,
    };
    const maxItems = d.maxItems ?? 256;
    const drivers = new Map<string, Promise<void>>();
    let stop: StoredError | null = null;
    let lastProbeAt = Date.now();

    /** Waits while the pacer holds every request for long (maintenance, a spent quota); the run's loop probes now and then. */
    async function gate(): Promise<void> {
      for (;;) {
        const hold = pacer.stats().hold;
        const now = Date.now();
        if (!hold || hold.reason === "minute_ceiling" || hold.until - now <= 1_500) return;
        await sleep(Math.min(1_000, hold.until - now), sig);
      }
    }

    async function drive(itemId: string): Promise<void> {
      try {
        for (;;) {
          sig.throwIfAborted();
          await gate();
          const step = await stepItem(ctx, itemId);
          if (step.kind === "final") return;
          if (step.kind === "wait") {
            const ms = step.until.getTime() - Date.now();
            if (ms > timings.letGoAfterMs) return; // claimed again when due
            await sleep(ms, sig);
            continue;
          }
          if (step.transition.runEffect?.scope === "run_stop") {
            stop ??= step.transition.runEffect.error;
            runAbort.abort(new Error("run stopped"));
            return;
          }
        }
      } catch (error) {
        if (sig.aborted || error instanceof LeaseLostError) return;
        // A fault of Ferry's own about this company (e.g. its credentials were purged): it fails alone.
        const message = error instanceof Error ? error.message : String(error);
        log(`company ${itemId} of run ${run.id} failed: ${message}`);
        const now = new Date();
        await failItemAlone(database, { itemId, owner, now, error: { operation: "run", kind: "internal", status: null, service: null, error: message, correlationId: null, at: now.toISOString() } }).catch((failError: unknown) =>
          log(`could not record the failure of company ${itemId}: ${failError instanceof Error ? failError.message : String(failError)}`),
        );
      } finally {
        drivers.delete(itemId);
        // Fenced by the owner: a lease taken over meanwhile stays the other worker's.
        await database
          .transaction((tx) => releaseItemLease(tx, { itemId, owner }), { isolation: "read committed" })
          .catch((error: unknown) => log(`letting go of company ${itemId} failed (its lease runs out by itself): ${error instanceof Error ? error.message : String(error)}`));
      }
    }

    let last = { sent: 0, rateLimited: 0 };
    let lastPaceAt = 0;
    let windowSeen: { requests: number; perSeconds: number } | null = null;
    let previousReset: { limit: number; until: number } | null = null;

    /** The pace since the last record, added to the run's counters (and, from the coordinator, a sample); never throws. */
    async function recordPace(now: number): Promise<void> {
      const s = pacer.stats();
      const delta = { requests: s.sent - last.sent, rateLimited: s.rateLimited - last.rateLimited };
      last = { sent: s.sent, rateLimited: s.rateLimited };
      // The limit's window length, from two consecutive spent windows' resets (a second, a minute, a day).
      if (s.hold?.reason === "window_spent" && s.hold.limit) {
        if (previousReset && previousReset.limit === s.hold.limit && s.hold.until - previousReset.until > 500) {
          // Windows are fixed: the shortest gap between two resets seen is the window's length.
          const span = Math.max(1, Math.round((s.hold.until - previousReset.until) / 1000));
          if (!windowSeen || windowSeen.requests !== s.hold.limit || span < windowSeen.perSeconds) windowSeen = { requests: s.hold.limit, perSeconds: span };
        }
        if (!previousReset || s.hold.until - previousReset.until > 500) previousReset = { limit: s.hold.limit, until: s.hold.until };
      }
      const limit = windowSeen ?? (s.limit ? { requests: s.limit, perSeconds: 1 } : null);
      try {
        const finished = coordinator
          ? Object.entries(await readSteps(database, (tx) => runCountsByState(tx, run.id))).reduce((n, [st, k]) => (["verified", "reauth_required", "failed", "set_aside"].includes(st) ? n + k : n), 0)
          : 0;
        await addPace(database, {
          runId: run.id,
          delta,
          coordinator: coordinator ? { finished, limit, hold: holdOf(s.hold, now) ?? null } : null,
          now: new Date(now),
        });
      } catch (error) {
        // The pace is for the screens; a busy database must not stop the run (these requests are then not counted).
        log(`recording the pace of run ${run.id} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }

    // Until when the coordinator's lease is known to hold (a helper looks again once it has passed).
    let coordinatorUntil = run.leaseExpiresAt?.getTime() ?? 0;
    try {
      for (;;) {
        if (sig.aborted) break;
        const now = Date.now();
        const paceDue = now - lastPaceAt >= timings.paceEveryMs;
        if (paceDue || (!coordinator && now >= coordinatorUntil)) {
          if (paceDue) {
            lastPaceAt = now;
            await recordPace(now);
          }
          const current = await readSteps(database, (tx) => findRun(tx, run.id));
          if (!current || current.status !== "running") break; // paused, stopped or cancelled meanwhile
          // As soon as the coordinator's lease has run out, a helper takes the run over and goes on
          // coordinating it with the companies it drives; failing that (another helper was first),
          // it lets go, and its worker helps again or takes the run when it is free.
          if (!coordinator && (!current.leaseExpiresAt || current.leaseExpiresAt.getTime() < now)) {
            if (!(options.takeOver && (await options.takeOver()))) break;
            coordinator = true;
            continue;
          }
          coordinatorUntil = current.leaseExpiresAt?.getTime() ?? 0;
        }
        const s = pacer.stats();
        const longHold = s.hold !== null && s.hold.reason !== "minute_ceiling" && s.hold.until - now > 1_500;
        if (!longHold) lastProbeAt = now;
        else if (s.hold && now - lastProbeAt >= probeEvery(timings, s.hold.until - now, target.kind)) {
          // A probe: the pacer lets go what waits in it (as many as its concurrency, halved by the
          // hold's answers) or else the companies at the gate; their answers say whether the service
          // is back. Done here, not by one company, whose request could queue behind the others'.
          lastProbeAt = now;
          pacer.wake();
        }
        // Companies in hand: three times the pacer's concurrency, divided among the pacers that share
        // the machine's window (each sends only its part), so that together they hold what one would
        // alone. More only queue behind this pacer's part of the limit while another worker has none
        // left to take: the run's last seconds would wait on the slowest queue.
        const cap = Math.min(maxItems, Math.max(8, Math.ceil((s.concurrency * 3) / sharingPacers())));
        // Companies a dead worker left are taken at once beyond the cap (up to maxItems in all): they
        // wait in this worker's pacer, first in the file's order, instead of on a dead lease, so its
        // work goes on as soon as the lease runs out, however many it held.
        const orphanRoom = maxItems - drivers.size;
        if (!longHold && (drivers.size < cap || orphanRoom > 0)) {
          const atCap = drivers.size >= cap;
          const claimed = await database.transaction(
            (tx) => claimItems(tx, { runId: run.id, owner, limit: atCap ? orphanRoom : cap - drivers.size, leaseMs, now: new Date(now), orphanedOnly: atCap }),
            { isolation: "read committed" },
          );
          for (const item of claimed) drivers.set(item.id, drive(item.id));
        }
        // Every company final: the coordinator finishes the run. A helper stays until the run is seen
        // ended (its status is read every few seconds), so that it finishes the run itself should the
        // coordinator die now, instead of leaving and joining again, once a tick, until then.
        if (drivers.size === 0 && coordinator && (await readSteps(database, (tx) => countUnfinished(tx, run.id))) === 0) {
          // The last requests are counted before the run is seen finished, so its figures are final then.
          await recordPace(Date.now());
          await finish();
          break;
        }
        await sleep(timings.tickMs, sig).catch(() => {});
      }
    } finally {
      runAbort.abort(new Error("run over"));
      await Promise.allSettled([...drivers.values()]);
      await recordPace(Date.now());
    }

    const error = stop as StoredError | null;
    if (error && !signal.aborted) {
      const reason = await stopReason(error, async () => {
        try {
          return (await client.countCompanies()).data;
        } catch {
          return null;
        }
      });
      const now = new Date();
      // Read committed: setBulkStatus locks the run's row to read its outcome; the audit event only if it changed.
      const stopped = await database.transaction(
        function* (tx) {
          if (!(yield* setBulkStatus(tx, { runId: run.id, from: ["running"], to: "stopped", reason, now }))) return false;
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
      if (stopped) log(`bulk run ${run.id} on ${engagement.reference} stopped: ${reason}`);
    }

    async function finish(): Promise<void> {
      const now = new Date();
      // Read committed, the engagement's row locked first (as every change of an engagement does),
      // then the run's end fenced by this worker's lease: a cancel or pause meanwhile either came
      // first (nothing here is written) or waits for this to end.
      const ended = await database.transaction(
        function* (tx) {
          yield* loadForChange(tx, engagement.id);
          const current = yield* findRun(tx, run.id);
          if (!current) return null;
          const counts = yield* runCountsByState(tx, run.id);
          const done = yield* finishRunRow(tx, { runId: run.id, owner, status: "completed", outcome: (current.outcome ?? {}) as never, statusReason: null, now });
          if (!done) return null;
          // The companies that failed on their tokens go to their end customers, with their reconnect links.
          const handed = yield* handToEndCustomers(tx, { engagementId: engagement.id, now });
          const reconciliation = yield* reconcile(tx, engagement.id);
          yield* writeAudit(tx, {
            actor: null,
            action: "migration.bulk_finished",
            targetId: run.id,
            engagementId: engagement.id,
            organizationId: engagement.organizationId,
            after: { counts, reconciliation },
            at: now,
          });
          if (handed > 0) {
            yield* writeAudit(tx, { actor: null, action: "migration.reconnect_pending", targetId: engagement.id, engagementId: engagement.id, organizationId: engagement.organizationId, after: { companies: handed }, at: now });
          }
          return { reconciliation, waiting: yield* refreshWaiting(tx, engagement.id, now) };
        },
        { isolation: "read committed" },
      );
      if (!ended) return;
      log(`bulk run ${run.id} on ${engagement.reference} finished: ${reconciliationInWords(ended.reconciliation)}`);
      if (d.notify && ended.waiting) await notifyAfterChange(database, d.notify, { engagementId: engagement.id, waiting: ended.waiting });
    }
  } finally {
    // Its share goes to the machine's other pacers, its unused quota back to the counter (after the
    // stop's last request, which goes through the same pacer).
    await share?.leave().catch((error: unknown) => log(`leaving the rate budget failed: ${error instanceof Error ? error.message : String(error)}`));
  }
}
