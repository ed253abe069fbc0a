/**
 * The migration worker: a process of its own (../worker-main.ts, `npm run worker`) that takes runs
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
 * - A dead worker is known at once where that can be known (liveness.ts: on this host its process
 *   gone, on PostgreSQL its advisory lock free): before claiming, a worker makes the leases of the
 *   dead run out now and takes their work over, instead of waiting the lease out.
 * - Every claim and takeover sets a fresh fencing token on the run or item, and every write and
 *   renewal names it: a worker that lost a lease and took it again never writes with the old claim.
 * - A cancelled run is noticed at the next renewal; a worker that is stopped (SIGTERM) releases
 *   its leases so another worker carries on at once.
 *
 * The worker is only the loop: what it carries out is registered with it (work.ts). Each kind of
 * run says how a run of it is carried out and how a fault of Ferry's own ends one, and may help
 * with another worker's run: today the single-company test and its rehearsal (test-run/), and the
 * bulk run (bulk/), which claims its companies with `claimItems` and drives many at once, and which
 * a worker with no run of its own helps with (its companies are claimed one by one, so two
 * workers never drive the same company). Periodic work (the hypercare watch, watch/) is looked at
 * beside the runs. server/migration/migration-worker.ts registers them; nothing here imports them.
 */
import { holdPeriodicLease, releasePeriodicLease } from "./periodic-lease";
import { setMaxListeners } from "node:events";
import os from "node:os";
import { readSteps } from "@/db/database";
import type { RunKind } from "@/core/migration/states";
import { createBudgetStore, type BudgetStore } from "@/server/service-client/budget-store";
import { logSafe } from "@/server/security/log-safe";
import { LeaseLostError } from "./item-repository";
import { holdLeases, type HeldLeases } from "./leases";
import { createLiveness, type Liveness } from "./liveness";
import { claimRun, findRun, takeOverRun, type RunRow } from "./run-repository";
import { sleep } from "./runner";
import type { EngineContext, PeriodicWork, RunWork } from "./work";

export type WorkerOptions = Partial<Omit<EngineContext, "database" | "ring" | "budget">> &
  Pick<EngineContext, "database" | "ring"> & {
    /** What this worker carries out: the kinds of run it claims (migration-worker.ts registers Ferry's). */
    work: readonly RunWork[];
    /** Work looked at beside the runs (the hypercare watch). */
    periodic?: readonly PeriodicWork[];
    /** Only these kinds of run (default: every kind of `work`). */
    kinds?: readonly RunKind[];
    /** Runs carried out at once (default 4), so a long bulk run does not hold up other engagements' tests. */
    maxRuns?: number;
    /** How long an idle worker waits before looking for work again (default 1 s, with jitter). */
    idleMs?: number;
    /** How often, at most, it looks for dead workers before a claim (default a quarter of the lease). */
    reapEveryMs?: number;
    /**
     * The targets' rate budgets shared with every worker (default: in the app database); null: this
     * worker's pacers learn the limits alone. `machineId`: whose address this worker's requests
     * come from (default FERRY_MACHINE_ID, else the host name).
     */
    budget?: BudgetStore | null;
    machineId?: string;
  };

export type Worker = {
  readonly owner: string;
  /** Claims one run (or help with one) and carries it out to its end; returns it, or null when there was no work. */
  runOnce(): Promise<RunRow | null>;
  /** Does what is due now of the periodic work named `name` (tests); answers how much it did. */
  tick(name: string): Promise<number>;
  /** Looks for work until stopped, carrying out up to `maxRuns` runs at once, and looks at the periodic work. */
  start(): void;
  /** Stops: the current call is abandoned, every lease released for another worker; resolves once idle. */
  stop(): Promise<void>;
};

/** The machine whose address the service counts this worker's requests from: FERRY_MACHINE_ID, else the host name. */
export function machineIdOf(environment: { FERRY_MACHINE_ID?: string | undefined }): string {
  return environment.FERRY_MACHINE_ID?.trim() || os.hostname();
}

/** Why a run's work was abandoned before its end. */
export class RunAbandoned extends Error {
  constructor(readonly why: "stopped" | "lease_lost") {
    super(why === "stopped" ? "The worker is stopping." : "The run is no longer this worker's (cancelled, or taken over).");
    this.name = "RunAbandoned";
  }
}

/** One worker's state, which the named steps below share. */
type WorkerState = {
  ctx: EngineContext;
  byKind: Map<RunKind, RunWork>;
  kinds: readonly RunKind[];
  maxRuns: number;
  idleMs: number;
  stopping: AbortController;
  /** Runs this worker helps with now (one at a time is enough: its companies are many). */
  helping: Set<string>;
  /** A look for a run to help with is under way (two at once could each find one). */
  lookingForHelp: boolean;
  /** This worker's registration, and how it finds the dead workers whose work it takes over at once. */
  liveness: Liveness;
  /** When the dead were last looked for (every `reapEveryMs` at most). */
  lastReapAt: number;
  reapEveryMs: number;
};

/** The worker's context from its options (defaults filled in). */
function contextOf(options: WorkerOptions): EngineContext {
  const sink = options.log ?? (() => {});
  const store = options.budget === undefined ? createBudgetStore(options.database) : options.budget;
  return {
    database: options.database,
    ring: options.ring,
    owner: options.owner ?? `${os.hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`,
    leaseMs: options.leaseMs ?? 4_000,
    policy: options.policy,
    client: options.client ?? {},
    beforeStore: options.beforeStore,
    notify: options.notify ?? null,
    budget: store ? { store, machineId: options.machineId ?? machineIdOf({ FERRY_MACHINE_ID: process.env.FERRY_MACHINE_ID }) } : null,
    sandbox: options.sandbox ?? null,
    // Every line stays one line whatever it quotes (a service's error text, a name in it).
    log: (line) => sink(logSafe(line)),
  };
}

/** Registers this worker, then (when due) finds the dead workers and makes their leases run out now. */
async function reapIfDue(state: WorkerState): Promise<void> {
  const now = Date.now();
  if (now - state.lastReapAt < state.reapEveryMs) return;
  state.lastReapAt = now;
  try {
    await state.liveness.register();
    await state.liveness.reap(new Date(now));
  } catch (error) {
    // The leases then run out by themselves, as they always did.
    state.ctx.log(`looking for dead workers failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The next work: a run to claim, or else another worker's run to help with. */
async function claimNext(state: WorkerState): Promise<{ run: RunRow; help: RunWork | null } | null> {
  const { ctx } = state;
  if (state.stopping.signal.aborted) return null;
  await reapIfDue(state);
  // One conditional update in a read-committed transaction of its own: see run-repository.ts.
  const run = await ctx.database.transaction((tx) => claimRun(tx, { owner: ctx.owner, kinds: state.kinds, leaseMs: ctx.leaseMs, now: new Date() }), { isolation: "read committed" });
  if (run) return { run, help: null };
  if (state.helping.size > 0 || state.lookingForHelp) return null;
  state.lookingForHelp = true;
  try {
    for (const work of new Set(state.byKind.values())) {
      if (!work.help || !work.kinds.some((k) => state.kinds.includes(k))) continue;
      const other = await work.help.find(ctx);
      if (!other) continue;
      state.helping.add(other.id);
      return { run: other, help: work };
    }
    return null;
  } finally {
    state.lookingForHelp = false;
  }
}

/** The registered work of a run's kind (a kind claimed is always registered: claims ask for those alone). */
function workOf(state: WorkerState, run: RunRow): RunWork {
  const work = state.byKind.get(run.kind);
  if (!work) throw new Error(`No work is registered for runs of kind ${run.kind}.`);
  return work;
}

/** Carries out a run this worker claimed, renewing its lease, and lets it go at the end. */
async function carryOwn(state: WorkerState, run: RunRow): Promise<void> {
  const { ctx } = state;
  ctx.log(`took ${run.kind} run ${run.id}`);
  const abandon = new AbortController();
  const signal = AbortSignal.any([abandon.signal, state.stopping.signal]);
  if (!run.leaseToken) throw new Error(`Run ${run.id} was claimed without a fencing token.`);
  const runLease = { token: run.leaseToken, onLost: () => abandon.abort(new RunAbandoned("lease_lost")) };
  const leases = holdLeases({ database: ctx.database, owner: ctx.owner, leaseMs: ctx.leaseMs, runId: run.id, runLease, log: ctx.log });
  try {
    await workOf(state, run).carryOut(ctx, run, signal, leases);
  } catch (error) {
    if (state.stopping.signal.aborted) ctx.log(`stopped; run ${run.id} is left for another worker`);
    else if (abandon.signal.aborted || error instanceof LeaseLostError || error instanceof RunAbandoned) ctx.log(`let go of run ${run.id}: it was cancelled or taken over`);
    else await recordFault(state, run, error);
  } finally {
    await letGo(ctx, run, leases);
  }
}

/** A fault of Ferry's own (not a service answer) ended the run: its kind records it on the run, in words. */
async function recordFault(state: WorkerState, run: RunRow, error: unknown): Promise<void> {
  const { ctx } = state;
  const message = error instanceof Error ? error.message : String(error);
  ctx.log(`run ${run.id} failed: ${message}`);
  try {
    const current = (await readSteps(ctx.database, (tx) => findRun(tx, run.id))) ?? run;
    // Its writes name this worker's claim of the run (the token claimed), whatever the row holds now.
    await workOf(state, current).fail(ctx, { ...current, leaseToken: run.leaseToken }, message);
  } catch (failError) {
    ctx.log(`could not record the failure of run ${run.id}: ${failError instanceof Error ? failError.message : String(failError)}`);
  }
}

/** Helps another worker's run (until it ends, or its coordinator is gone and this worker takes it over). */
async function carryHelp(state: WorkerState, work: RunWork, run: RunRow): Promise<void> {
  const { ctx } = state;
  ctx.log(`helping with ${run.kind} run ${run.id}`);
  const abandon = new AbortController();
  const signal = AbortSignal.any([abandon.signal, state.stopping.signal]);
  const leases = holdLeases({ database: ctx.database, owner: ctx.owner, leaseMs: ctx.leaseMs, runId: run.id, log: ctx.log });
  // Its coordinator's lease ran out (the worker died): this helper takes the run over where it stands.
  const takeOver = async () => {
    const taken = await ctx.database.transaction((tx) => takeOverRun(tx, { runId: run.id, owner: ctx.owner, leaseMs: ctx.leaseMs, now: new Date() }), { isolation: "read committed" });
    if (!taken?.leaseToken) return null;
    leases.holdRun(taken.leaseToken, () => abandon.abort(new RunAbandoned("lease_lost")));
    ctx.log(`took ${run.kind} run ${run.id} over: its coordinator's lease ran out`);
    return taken.leaseToken;
  };
  try {
    await work.help?.carryOut(ctx, run, signal, leases, takeOver);
  } catch (error) {
    if (!state.stopping.signal.aborted) ctx.log(`helping with run ${run.id} failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await letGo(ctx, run, leases);
    state.helping.delete(run.id);
  }
}

/** Lets go of a run's leases (a database error is logged: the leases then run out by themselves). */
async function letGo(ctx: EngineContext, run: RunRow, leases: HeldLeases): Promise<void> {
  await leases.release().catch((error: unknown) => ctx.log(`letting go of run ${run.id} failed: ${error instanceof Error ? error.message : String(error)}`));
}

/** Carries out the next work there is, if any; answers the run it took. */
async function runOnce(state: WorkerState): Promise<RunRow | null> {
  const next = await claimNext(state);
  if (!next) return null;
  if (next.help) await carryHelp(state, next.help, next.run);
  else await carryOwn(state, next.run);
  return next.run;
}

/**
 * Claims and carries out runs until stopped, several at once (a long bulk run must not hold up
 * another engagement's test), each with its own lease and pacer: it claims more while it has room
 * and waits, idle, otherwise.
 */
async function runLoop(state: WorkerState): Promise<void> {
  const { ctx } = state;
  const active = new Set<Promise<void>>();
  while (!state.stopping.signal.aborted) {
    let next: Awaited<ReturnType<typeof claimNext>> = null;
    if (active.size < state.maxRuns) {
      try {
        next = await claimNext(state);
      } catch (error) {
        ctx.log(`worker error: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (next) {
      const { run, help } = next;
      const work: Promise<void> = (help ? carryHelp(state, help, run) : carryOwn(state, run))
        .catch((error: unknown) => ctx.log(`worker error: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => active.delete(work));
      active.add(work);
      continue;
    }
    await Promise.race([jitteredSleep(state.idleMs, state.stopping.signal), ...active]);
  }
  await Promise.allSettled([...active]);
}

/**
 * Looks at one periodic work every `everyMs` (with jitter) until stopped; exclusive work only while
 * this worker holds its lease (taken or renewed before each tick, let go on a clean stop).
 */
async function periodicLoop(state: WorkerState, work: { name: string; everyMs: number; exclusive: boolean; instance: { tick(): Promise<number> } }): Promise<void> {
  const { name, everyMs } = work;
  // Three looks, and never shorter than the worker's run lease (a slow database must not let it lapse between looks).
  const lease = { name, owner: state.ctx.owner, leaseMs: Math.max(3 * everyMs, state.ctx.leaseMs) };
  const log = (error: unknown) => state.ctx.log(`${name} error: ${error instanceof Error ? error.message : String(error)}`);
  while (!state.stopping.signal.aborted) {
    const mine = work.exclusive ? await holdPeriodicLease(state.ctx.database, lease).catch((error: unknown) => (log(error), false)) : true;
    if (mine) await work.instance.tick().catch(log);
    await jitteredSleep(everyMs, state.stopping.signal);
  }
  if (work.exclusive) await releasePeriodicLease(state.ctx.database, lease).catch(log);
}

/** Waits about `ms` (between three quarters and one and a quarter of it), or until stopped. */
function jitteredSleep(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms * (0.75 + Math.random() / 2), signal).catch(() => {});
}

/** A worker on the app database, carrying out the work registered with it (see the module comment). */
export function createWorker(options: WorkerOptions): Worker {
  const ctx = contextOf(options);
  const byKind = new Map(options.work.flatMap((w) => w.kinds.map((k) => [k, w] as const)));
  const state: WorkerState = {
    ctx,
    byKind,
    kinds: options.kinds ?? [...byKind.keys()],
    maxRuns: Math.max(1, options.maxRuns ?? 4),
    idleMs: options.idleMs ?? 1_000,
    stopping: new AbortController(),
    helping: new Set(),
    lookingForHelp: false,
    liveness: createLiveness({ database: ctx.database, owner: ctx.owner, log: ctx.log }),
    lastReapAt: Number.NEGATIVE_INFINITY,
    reapEveryMs: options.reapEveryMs ?? ctx.leaseMs / 4,
  };
  // Every run this worker carries at once (and each of its companies) listens for the stop.
  setMaxListeners(0, state.stopping.signal);
  const periodic = (options.periodic ?? []).map((p) => ({ name: p.name, everyMs: p.everyMs, exclusive: p.exclusive === true, instance: p.start(ctx) }));
  let loops: Promise<unknown> | null = null;
  return {
    owner: ctx.owner,
    runOnce: () => runOnce(state),
    tick(name) {
      const found = periodic.find((p) => p.name === name);
      if (!found) throw new Error(`No periodic work named ${name} is registered with this worker.`);
      return found.instance.tick();
    },
    start() {
      if (loops) return;
      loops = Promise.all([runLoop(state), ...periodic.map((p) => periodicLoop(state, p))]);
    },
    async stop() {
      state.stopping.abort(new RunAbandoned("stopped"));
      await loops;
      await Promise.allSettled(periodic.map((p) => p.instance.close()));
      await state.liveness.leave();
    },
  };
}
