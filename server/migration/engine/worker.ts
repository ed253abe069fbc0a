/**
 * The migration worker: a process of its own (worker-main.ts, `npm run worker`) that takes runs
 * from the app database and carries them out, so no web request ever waits on the service.
 *
 * Claims and leases (graphile-worker / pg-boss style), on the app database (db/database.ts): SQLite
 * in WAL mode shared with web, or PostgreSQL shared by any number of workers on any number of
 * machines:
 * - A worker claims a run with a conditional `UPDATE … WHERE lease free or expired … RETURNING`
 *   (run-repository.ts), and the run's companies with the same kind of statement on the items
 *   (item-repository.ts), each in a read-committed transaction of its own. On PostgreSQL the rows
 *   are first picked with FOR UPDATE SKIP LOCKED and the update checks the lease again on them,
 *   so workers claiming at once take different work, none waits for another, and none takes the
 *   same run or item twice; on SQLite one writer at a time gives the same.
 * - The lease (owner, expiry) is renewed every `leaseMs / 4` while the worker works (leases.ts, for
 *   the runs it claimed and the bulk runs it helps with alike; a renewal never starts while the
 *   previous one is still running). A worker that is killed stops renewing; once its lease expires
 *   the run is claimed again by any worker, which resumes from the stored state (the pipeline
 *   never creates twice: see runner.ts).
 * - Every write a worker makes is fenced by its lease (the update names this worker as the lease
 *   owner, or the row is locked and checked first): after losing one (it stalled past the expiry
 *   and another worker took over) it writes nothing more (LeaseLostError) and lets go.
 * - A cancelled run is noticed at the next renewal; a worker that is stopped (SIGTERM) releases
 *   its leases so another worker carries on at once.
 *
 * A test and a bulk run open their session with the service the same way (run-session.ts: the
 * engagement, its target, the use check, the key decrypted and audited, the client); a rehearsal's
 * is on the built-in sandbox with a key of its own.
 *
 * Runs are the single-company test (pilot), its rehearsal, and the bulk run (bulk/bulk-runner.ts),
 * which claims its companies with `claimItems` and drives many at once through the same runner
 * and the pacer. A worker that finds no run to claim helps with a bulk run another worker holds
 * (its companies are claimed one by one, so two workers never drive the same company).
 */
import { setMaxListeners } from "node:events";
import os from "node:os";
import { readSteps, type Database } from "@/db/database";
import { createControlClient } from "@/server/sandbox/controls/control-client";
import { createServiceClient, type ServiceClient, type ServiceClientOptions } from "@/server/service-client";
import { targetAddressPolicy } from "@/server/targets/network";
import { logSafe } from "@/server/security/log-safe";
import type { KeyRing } from "@/server/security/secrets";
import { finishTestRun } from "../test-run/finish-test-run";
import { findItem, LeaseLostError } from "./item-repository";
import { holdLeases, takeItemLease, type HeldLeases } from "./leases";
import { DEFAULT_PIPELINE_POLICY, type PipelineCall, type PipelinePolicy, type StoredError } from "./pipeline";
import { prepareRehearsal, SandboxUnavailableError } from "../test-run/rehearsal";
import { claimRun, findRun, takeOverRun, type RunRow } from "./run-repository";
import { openRunSession, runEngagement, type RunEngagement } from "./run-session";
import { driveItem, sleep } from "./runner";
import { RUN_KINDS, type RunKind } from "@/core/migration/states";
import { setBulkStatus, runToHelp } from "../bulk/bulk-repository";
import { carryOutBulk, type BulkDeps, type BulkTimings } from "../bulk/bulk-runner";
import { createWatcher } from "../watch/watcher";
import { createBudgetStore, type BudgetStore } from "@/server/service-client/budget-store";
import type { NotifyConfig } from "@/server/engagements/waiting/notify";

export type WorkerOptions = {
  database: Database;
  ring: KeyRing;
  /** This worker's lease owner id (default: host, pid and a random part). */
  owner?: string;
  /** The built-in sandbox's controls, for rehearsals (SANDBOX_URL, SANDBOX_ADMIN_TOKEN). */
  sandbox?: { url: string; adminToken: string } | null;
  /** How long a lease lasts without renewal (default 4 s: a killed worker's work is taken over within it); renewed every quarter of it. */
  leaseMs?: number;
  /** Runs carried out at once (default 4), so a long bulk run does not hold up other engagements' tests. */
  maxRuns?: number;
  /** How long an idle worker waits before looking for work again (default 1 s, with jitter). */
  idleMs?: number;
  /** The kinds of run this worker takes (default: all: the single-company test, its rehearsal, the bulk run). */
  kinds?: readonly RunKind[];
  policy?: PipelinePolicy;
  /** Options of every service client the worker makes (timeouts, retries, a fetch). */
  client?: Partial<Omit<ServiceClientOptions, "baseUrl" | "apiKey">>;
  log?: (line: string) => void;
  /** Mail after the worker's changes (a bulk run handing companies to their end customers, the watch's findings); none without it. */
  notify?: NotifyConfig | null;
  /** Whether this worker also checks the watches after bulk runs (default true), and how often it looks for a due one (default 2 s). */
  watch?: boolean;
  watchEveryMs?: number;
  /** Tests: called with each answer before it is stored (throw to stop as a crash would). */
  beforeStore?: (call: PipelineCall) => void;
  /**
   * The targets' rate budgets shared with every worker (default: in the app database) and the
   * machine whose address this worker's requests come from (default FERRY_MACHINE_ID, else the
   * host name); null: this worker's pacers learn the limits alone.
   */
  budget?: BudgetStore | null;
  machineId?: string;
  /** The bulk run's own intervals (its probes of a held service, its pace): tests set them short. */
  bulkTimings?: Partial<BulkTimings>;
};

export type Worker = {
  readonly owner: string;
  /** Claims one run (or help with one) and carries it out to its end; returns it, or null when there was no work. */
  runOnce(): Promise<RunRow | null>;
  /** Checks every watch that is due now; returns how many it checked. */
  watchOnce(): Promise<number>;
  /** Looks for work until stopped, carrying out up to `maxRuns` runs at once. */
  start(): void;
  /** Stops: the current call is abandoned, every lease released for another worker; resolves once idle. */
  stop(): Promise<void>;
};

/** The machine whose address the service counts this worker's requests from: FERRY_MACHINE_ID, else the host name. */
export function machineIdOf(environment: { FERRY_MACHINE_ID?: string | undefined }): string {
  return environment.FERRY_MACHINE_ID?.trim() || os.hostname();
}

/** Why a run's work was abandoned before its end. */
class RunAbandoned extends Error {
  constructor(readonly why: "stopped" | "lease_lost") {
    super(why === "stopped" ? "The worker is stopping." : "The run is no longer this worker's (cancelled, or taken over).");
    this.name = "RunAbandoned";
  }
}

/** How a test starts: its client and company, or the failure it ends with before any call. */
type TestStart = RunEngagement & ({ ok: true; client: ServiceClient; itemId: string } | { ok: false; itemId: string | null; failure: StoredError });

const storedFailure = (kind: StoredError["kind"], error: string): StoredError => ({
  operation: "run",
  kind,
  status: null,
  service: null,
  error,
  correlationId: null,
  at: new Date().toISOString(),
});

/** A worker on the app database (see the module comment). */
export function createWorker(options: WorkerOptions): Worker {
  const { database, ring } = options;
  const owner = options.owner ?? `${os.hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
  const leaseMs = options.leaseMs ?? 4_000;
  const idleMs = options.idleMs ?? 1_000;
  const kinds = options.kinds ?? RUN_KINDS;
  const maxRuns = Math.max(1, options.maxRuns ?? 4);
  // Every line stays one line whatever it quotes (a service's error text, a name in it).
  const sink = options.log ?? (() => {});
  const log = (line: string) => sink(logSafe(line));
  const stopping = new AbortController();
  // Every run this worker carries at once (and each of its companies) listens for the stop.
  setMaxListeners(0, stopping.signal);
  let loop: Promise<void> | null = null;
  const budgetStore = options.budget === undefined ? createBudgetStore(database) : options.budget;
  const budget = budgetStore ? { store: budgetStore, machineId: options.machineId ?? machineIdOf({ FERRY_MACHINE_ID: process.env.FERRY_MACHINE_ID }) } : null;
  const bulkDeps: BulkDeps = {
    budget,
    database,
    ring,
    owner,
    leaseMs,
    log,
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.client ? { client: options.client } : {}),
    ...(options.beforeStore ? { beforeStore: options.beforeStore } : {}),
    notify: options.notify ?? null,
    ...(options.bulkTimings ? { timings: options.bulkTimings } : {}),
  };
  const watcher = createWatcher({ database, ring, owner, sandbox: options.sandbox ?? null, notify: options.notify ?? null, log, budget, ...(options.client ? { client: options.client } : {}) });
  const watchEveryMs = options.watchEveryMs ?? 2_000;
  let watchLoop: Promise<void> | null = null;

  /** Carries out a claimed run to its end (or until abandoned), by its kind. */
  async function carryOut(run: RunRow, signal: AbortSignal): Promise<void> {
    switch (run.kind) {
      case "pilot":
      case "rehearsal":
        return carryOutTest(run, signal);
      case "bulk":
        return carryOutBulk(bulkDeps, run, signal, true);
      default: {
        const never: never = run.kind;
        return never;
      }
    }
  }

  /** Carries out a single-company test or a rehearsal. */
  async function carryOutTest(run: RunRow, signal: AbortSignal): Promise<void> {
    const start = run.kind === "rehearsal" ? await openRehearsal(run, signal) : await openPilot(run);
    const { engagement, platform } = start;
    const finish = async (itemId: string | null, failure: StoredError | null) => {
      const item = itemId ? ((await readSteps(database, (tx) => findItem(tx, itemId))) ?? null) : null;
      const outcome = await finishTestRun(database, { run, owner, item, failure });
      if (!outcome) throw new RunAbandoned("lease_lost");
      log(`${run.kind === "rehearsal" ? "rehearsal" : "single-company test"} ${run.id} on ${engagement.reference}: ${outcome.result}${outcome.advice ? ` (${outcome.advice.code})` : ""}`);
    };
    if (!start.ok) return finish(start.itemId, start.failure);

    const { client, itemId } = start;
    await takeItemLease(database, { itemId, runId: run.id, owner, leaseMs, signal });
    const result = await driveItem(
      {
        database,
        ring,
        client,
        runId: run.id,
        owner,
        engagement,
        platform,
        rehearsal: run.kind === "rehearsal",
        // A test shows every data type's records: one read each, for one company.
        policy: { ...(options.policy ?? DEFAULT_PIPELINE_POLICY), countEveryDataType: true },
        signal,
        beforeStore: options.beforeStore,
      },
      itemId,
    );
    await finish(itemId, result.runStop);
  }

  /** The single-company test's session on the engagement's service target, or the failure it ends with at once. */
  async function openPilot(run: RunRow): Promise<TestStart> {
    const itemId = run.itemId;
    if (!itemId) throw new Error(`Run ${run.id} names no company.`);
    const session = await openRunSession({
      database,
      ring,
      run,
      purpose: (reference) => `call the service for the single-company test on ${reference}`,
      connect: (target, apiKey) => createServiceClient({ ...options.client, baseUrl: target.baseUrl, apiKey, addresses: targetAddressPolicy(target) }),
    });
    const { engagement, platform } = session;
    if (!session.ok) {
      const text = session.refusal.kind === "no_target" ? "The run has no service target." : session.refusal.reason;
      return { ok: false, engagement, platform, itemId, failure: storedFailure("no_service_target", text) };
    }
    return { ok: true, engagement, platform, itemId, client: session.connection };
  }

  /** A rehearsal's client on the built-in sandbox and the chosen company's twin (made on the way), or the failure it ends with at once. */
  async function openRehearsal(run: RunRow, signal: AbortSignal): Promise<TestStart> {
    const { engagement, platform } = await runEngagement(database, run);
    const unavailable = (text: string): TestStart => ({ ok: false, engagement, platform, itemId: null, failure: storedFailure("sandbox_unavailable", text) });
    if (!options.sandbox) return unavailable("SANDBOX_URL and SANDBOX_ADMIN_TOKEN are not set for the worker.");
    try {
      const prepared = await prepareRehearsal({ database, ring, run, owner, control: createControlClient(options.sandbox), sandboxUrl: options.sandbox.url, engagement, signal });
      // The built-in sandbox at SANDBOX_URL, which Ferry's own configuration names (it may be on another machine of the network).
      const client = createServiceClient({ ...options.client, baseUrl: options.sandbox.url, apiKey: prepared.apiKey, addresses: "any" });
      return { ok: true, engagement, platform, itemId: prepared.itemId, client };
    } catch (error) {
      if (error instanceof SandboxUnavailableError) return unavailable(error.message);
      throw error;
    }
  }

  /** Helps another worker's bulk run with its companies (until it ends, or its coordinator is gone). */
  async function carryHelp(run: RunRow): Promise<void> {
    log(`helping with bulk run ${run.id}`);
    const abandon = new AbortController();
    const signal = AbortSignal.any([abandon.signal, stopping.signal]);
    const leases = holdLeases({ database, owner, leaseMs, runId: run.id, log });
    // Its coordinator's lease ran out (the worker died): this helper takes the run over where it stands.
    const takeOver = async () => {
      const taken = await database.transaction((tx) => takeOverRun(tx, { runId: run.id, owner, leaseMs, now: new Date() }), { isolation: "read committed" });
      if (!taken) return false;
      leases.holdRun(() => abandon.abort(new RunAbandoned("lease_lost")));
      log(`took bulk run ${run.id} over: its coordinator's lease ran out`);
      return true;
    };
    try {
      await carryOutBulk(bulkDeps, run, signal, false, { takeOver });
    } catch (error) {
      if (!stopping.signal.aborted) log(`helping with run ${run.id} failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await letGo(run, leases);
      helping.delete(run.id);
    }
  }

  /** Lets go of a run's leases (a database error is logged: the leases then run out by themselves). */
  async function letGo(run: RunRow, leases: HeldLeases): Promise<void> {
    await leases.release().catch((error: unknown) => log(`letting go of run ${run.id} failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  /** Runs this worker helps with now (one at a time is enough: its companies are many). */
  const helping = new Set<string>();
  /** A look for a run to help with is under way (two at once could each find one). */
  let lookingForHelp = false;

  /** The next work: a run to claim, or else a bulk run of another worker's to help with. */
  async function claimNext(): Promise<{ run: RunRow; help: boolean } | null> {
    if (stopping.signal.aborted) return null;
    // One conditional update in a read-committed transaction of its own: see run-repository.ts.
    const run = await database.transaction((tx) => claimRun(tx, { owner, kinds, leaseMs, now: new Date() }), { isolation: "read committed" });
    if (run) return { run, help: false };
    if (!kinds.includes("bulk") || helping.size > 0 || lookingForHelp) return null;
    lookingForHelp = true;
    try {
      const other = await readSteps(database, (tx) => runToHelp(tx, { owner, now: new Date() }));
      if (!other) return null;
      helping.add(other.id);
      return { run: other, help: true };
    } finally {
      lookingForHelp = false;
    }
  }

  async function runOnce(): Promise<RunRow | null> {
    const next = await claimNext();
    if (!next) return null;
    if (next.help) await carryHelp(next.run);
    else await carryOwn(next.run);
    return next.run;
  }

  /** Carries out a run this worker claimed, renewing its lease, and lets it go at the end. */
  async function carryOwn(run: RunRow): Promise<void> {
    log(`took ${run.kind} run ${run.id}`);
    const abandon = new AbortController();
    const signal = AbortSignal.any([abandon.signal, stopping.signal]);
    const leases = holdLeases({ database, owner, leaseMs, runId: run.id, runLease: { onLost: () => abandon.abort(new RunAbandoned("lease_lost")) }, log });
    try {
      await carryOut(run, signal);
    } catch (error) {
      if (stopping.signal.aborted) {
        log(`stopped; run ${run.id} is left for another worker`);
      } else if (abandon.signal.aborted || error instanceof LeaseLostError || error instanceof RunAbandoned) {
        log(`let go of run ${run.id}: it was cancelled or taken over`);
      } else {
        // A fault of Ferry's own (not a service answer): the run ends failed, saying so.
        const message = error instanceof Error ? error.message : String(error);
        log(`run ${run.id} failed: ${message}`);
        try {
          const current = (await readSteps(database, (tx) => findRun(tx, run.id))) ?? run;
          if (current.kind === "bulk") {
            const reason = `The worker met a fault of Ferry's own: ${message}. Resume the run to try again.`;
            // setBulkStatus reads the run's outcome with its row locked, then writes it back.
            await database.transaction((tx) => setBulkStatus(tx, { runId: run.id, from: ["running"], to: "stopped", reason, now: new Date() }), { isolation: "read committed" });
            return;
          }
          const itemId = current.itemId;
          const item = itemId ? ((await readSteps(database, (tx) => findItem(tx, itemId))) ?? null) : null;
          await finishTestRun(database, { run: current, owner, item, failure: storedFailure("internal", message) });
        } catch (finishError) {
          log(`could not record the failure of run ${run.id}: ${finishError instanceof Error ? finishError.message : String(finishError)}`);
        }
      }
    } finally {
      await letGo(run, leases);
    }
  }

  return {
    owner,
    runOnce,
    watchOnce: () => watcher.tick(),
    start() {
      if (loop) return;
      if (options.watch ?? true) {
        // The watches after bulk runs: a few list requests per due check, beside the runs.
        watchLoop = (async () => {
          while (!stopping.signal.aborted) {
            await watcher.tick().catch((error: unknown) => log(`watch error: ${error instanceof Error ? error.message : String(error)}`));
            await sleep(watchEveryMs * (0.75 + Math.random() / 2), stopping.signal).catch(() => {});
          }
        })();
      }
      // Several runs at once (a long bulk run must not hold up another engagement's test), each
      // its own lease and pacer; the loop claims more while it has room and waits otherwise.
      loop = (async () => {
        const active = new Set<Promise<void>>();
        while (!stopping.signal.aborted) {
          let next: Awaited<ReturnType<typeof claimNext>> = null;
          if (active.size < maxRuns) {
            try {
              next = await claimNext();
            } catch (error) {
              log(`worker error: ${error instanceof Error ? error.message : String(error)}`);
            }
          }
          if (next) {
            const { run, help } = next;
            const work: Promise<void> = (help ? carryHelp(run) : carryOwn(run))
              .catch((error: unknown) => log(`worker error: ${error instanceof Error ? error.message : String(error)}`))
              .finally(() => active.delete(work));
            active.add(work);
            continue;
          }
          await Promise.race([sleep(idleMs * (0.75 + Math.random() / 2), stopping.signal).catch(() => {}), ...active]);
        }
        await Promise.allSettled([...active]);
      })();
    },
    async stop() {
      stopping.abort(new RunAbandoned("stopped"));
      await loop;
      await watchLoop;
      await watcher.close();
    },
  };
}
