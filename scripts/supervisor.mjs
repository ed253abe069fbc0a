// Ferry's small process supervisor, used by `npm start` (scripts/start.mjs) and the e2e server.
// It starts each long-running process (sandbox, worker, web) and, once Ferry has started, starts a
// process that ends on its own again after a delay that doubles with each quick failure (1 s, 2 s,
// 4 s … up to 30 s; back to 1 s once a run has stayed up for a minute), with one log line when it
// ends and one when it runs again. The other processes go on meanwhile. `stop()` (on Ctrl+C or
// SIGTERM) stops them all, and nothing is started again after it.
// In production a real supervisor does this job (deploy/systemd/, see the README).
import fs from "node:fs";
import { startService } from "./lib.mjs";

const DEFAULTS = {
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  /** A run that lasted this long was a good one: the next restart waits initialDelayMs again. */
  stableAfterMs: 60_000,
  /** How long a process may take to stop after SIGTERM before it is killed. */
  stopTimeoutMs: 10_000,
};

/** "0.5 s", "2 s", "12 s", "3.5 min" */
export function formatDelay(ms) {
  if (ms < 10_000) return `${Number((ms / 1000).toFixed(1))} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  return `${Number((ms / 60_000).toFixed(1))} min`;
}

/** How a process ended, in words: "exited with code 1", "was killed by SIGKILL". */
export function howItEnded(code, signal) {
  if (signal) return `was killed by ${signal}`;
  if (code === null || code === undefined) return "could not be started";
  return `exited with code ${code}`;
}

const hasExited = (child) => child.exitCode !== null || child.signalCode !== null;

/** Sends a signal to a process's whole group (it leads one when started detached), else to it alone. */
function signalProcess(child, signal, detached) {
  if (!child.pid) return;
  try {
    if (detached) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // Already gone (ESRCH).
  }
}

/**
 * A supervisor. Options (all optional): `log(line)` for its own lines (default: stderr with a time),
 * `initialDelayMs`, `maxDelayMs`, `stableAfterMs`, `stopTimeoutMs`, `stateFile` (a JSON file, mode
 * 0600, naming each process's pid, rewritten on every start and removed by stop()), and
 * `onExitWhileStarting(ended)` — called instead of a restart for a process that ends before
 * `startupDone()`, so a process that cannot start stops Ferry with its reason rather than looping.
 */
export function createSupervisor(options = {}) {
  const opts = { ...DEFAULTS, ...options };
  const log = opts.log ?? ((line) => process.stderr.write(`[supervisor] ${new Date().toISOString()} ${line}\n`));
  /** @type {Map<string, any>} */
  const services = new Map();
  let starting = true;
  let stopping = false;
  let stopped = null;

  const writeState = () => {
    if (!opts.stateFile) return;
    const state = {
      supervisor: process.pid,
      updatedAt: new Date().toISOString(),
      processes: Object.fromEntries(
        [...services.values()].map((s) => [
          s.name,
          { pid: s.child?.pid ?? null, running: Boolean(s.child && !hasExited(s.child)), startedAt: new Date(s.startedAt).toISOString(), restarts: s.restarts },
        ]),
      ),
    };
    const tmp = `${opts.stateFile}.${process.pid}.tmp`;
    fs.rmSync(tmp, { force: true });
    fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, opts.stateFile);
  };

  const spawnService = (s) => {
    const child = startService(s.name, s.command, s.args, { env: s.env, quiet: s.quiet, detached: s.detached });
    s.child = child;
    s.startedAt = Date.now();
    s.exited = new Promise((resolve) => {
      let done = false;
      const ended = (code, signal) => {
        if (done) return;
        done = true;
        resolve();
        onEnded(s, child, code, signal);
      };
      child.once("exit", ended);
      // A command that cannot be spawned at all (ENOENT) emits only "error".
      child.once("error", () => {
        if (!child.pid) ended(null, null);
      });
    });
    writeState();
  };

  const onEnded = (s, child, code, signal) => {
    // Whatever the process left behind in its group (a child it forked) goes with it, so the new
    // one starts clean (a port still held, a second copy still writing).
    if (s.detached) signalProcess(child, "SIGKILL", true);
    writeState();
    if (stopping) return;
    const ended = { name: s.name, label: s.label, pid: child.pid ?? null, code, signal, how: howItEnded(code, signal) };
    if (starting && opts.onExitWhileStarting) {
      opts.onExitWhileStarting(ended);
      return;
    }
    const ranMs = Date.now() - s.startedAt;
    if (ranMs >= opts.stableAfterMs) s.streak = 0;
    const delay = Math.min(opts.maxDelayMs, opts.initialDelayMs * 2 ** s.streak);
    s.streak += 1;
    s.restarts += 1;
    const restart = s.restarts;
    log(`${s.label} (pid ${ended.pid ?? "none"}) ${ended.how} after ${formatDelay(ranMs)}; starting it again in ${formatDelay(delay)} (restart ${restart}).`);
    s.timer = setTimeout(() => {
      s.timer = null;
      if (stopping) return;
      spawnService(s);
      log(`${s.label} is running again (pid ${s.child.pid ?? "none"}, restart ${restart}).`);
    }, delay);
  };

  const stopOne = async (s) => {
    const child = s.child;
    if (!child) return;
    if (!hasExited(child)) {
      signalProcess(child, "SIGTERM", s.detached);
      let timer;
      const timedOut = new Promise((resolve) => {
        timer = setTimeout(() => resolve(true), opts.stopTimeoutMs);
      });
      if (await Promise.race([s.exited.then(() => false), timedOut])) {
        log(`${s.label} (pid ${child.pid}) did not stop within ${formatDelay(opts.stopTimeoutMs)}; killing it.`);
        signalProcess(child, "SIGKILL", s.detached);
      }
      clearTimeout(timer);
    }
    await s.exited;
    if (s.detached) signalProcess(child, "SIGKILL", true);
  };

  return {
    /**
     * Starts a process and keeps it running: `{ name, label, command, args, env, quiet, detached }`
     * (`name` prefixes its output lines and keys the state file; `label` names it in log lines,
     * e.g. "The worker"). Returns a live view: `{ child, pid, restarts }`.
     */
    add(spec) {
      if (stopping) throw new Error("The supervisor is stopping");
      if (services.has(spec.name)) throw new Error(`${spec.name} is already supervised`);
      const s = { detached: true, quiet: false, args: [], ...spec, restarts: 0, streak: 0, timer: null, child: null, startedAt: 0, exited: Promise.resolve() };
      services.set(s.name, s);
      spawnService(s);
      return {
        get child() {
          return s.child;
        },
        get pid() {
          return s.child?.pid ?? null;
        },
        get restarts() {
          return s.restarts;
        },
      };
    },
    /** Everything has started: from now on a process that ends is started again. */
    startupDone() {
      starting = false;
    },
    get stopping() {
      return stopping;
    },
    /** Stops every process (SIGTERM, then SIGKILL after stopTimeoutMs) and starts none again. */
    stop() {
      if (stopped) return stopped;
      stopping = true;
      for (const s of services.values()) {
        if (s.timer) clearTimeout(s.timer);
        s.timer = null;
      }
      stopped = Promise.all([...services.values()].map(stopOne)).then(() => {
        if (opts.stateFile) fs.rmSync(opts.stateFile, { force: true });
      });
      return stopped;
    },
  };
}

/**
 * Ctrl+C (SIGINT) and SIGTERM stop every supervised process, then this process exits with 0.
 * `onSignal(signal)` runs first (e.g. to say so). Repeated signals while stopping change nothing:
 * the children are stopped either way, never left running without their supervisor.
 */
export function stopOnSignals(supervisor, { onSignal = () => {}, onStopped = () => {} } = {}) {
  const handle = (signal) => {
    if (supervisor.stopping) return;
    onSignal(signal);
    void supervisor.stop().then(() => {
      onStopped(signal);
      process.exit(0);
    });
  };
  process.on("SIGINT", handle);
  process.on("SIGTERM", handle);
}
