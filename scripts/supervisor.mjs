// Ferry's small process supervisor, used by `npm start` (scripts/start.mjs) and the e2e server.
// It starts each long-running process (sandbox, worker, web) and, once Ferry has started, starts a
// process that ends on its own again after a delay that doubles with each quick failure (1 s, 2 s,
// 4 s … up to 30 s; back to 1 s once a run has stayed up for a minute), with one log line when it
// ends and one when it runs again. The other processes go on meanwhile. `stop()` (on Ctrl+C or
// SIGTERM) stops them all, and nothing is started again after it.
// Its children end with it however it ends (scripts/lifeline.mjs), and one data directory has one
// supervisor at a time (claimStateFile).
// In production a real supervisor does this job (deploy/systemd/, see docs/production.md).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, startService } from "./lib.mjs";

const LIFELINE = pathToFileURL(path.join(ROOT, "scripts", "lifeline.mjs")).href;

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

/** Whether a process runs (exists and is not a zombie waiting to be reaped). */
export function isRunning(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error.code !== "EPERM") return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    // No /proc (not Linux): kill(0) said it exists.
    return true;
  }
}

/** Whether `pid` still runs `script` (so a pid the system has since given to another program is not taken for it). */
function runsScript(pid, script) {
  if (!isRunning(pid)) return false;
  try {
    return !script || fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(script);
  } catch {
    return true;
  }
}

/**
 * Makes `stateFile` this process's before a supervisor starts (created exclusively, mode 0600).
 * A file whose supervisor still runs is not taken: `{ ok: false, pid, message }` names it. A file
 * left by a supervisor that died is stale: its processes end by themselves (lifeline.mjs); once
 * they have (waited for up to `waitMs`), the file is removed and taken. One still running after
 * that is named instead.
 */
export async function claimStateFile(stateFile, { waitMs = 15_000, pollMs = 50 } = {}) {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const claim = { supervisor: process.pid, script: process.argv[1] ?? null, updatedAt: new Date().toISOString(), processes: {} };
      fs.writeFileSync(stateFile, `${JSON.stringify(claim, null, 2)}\n`, { flag: "wx", mode: 0o600 });
      return { ok: true };
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
    let state = null;
    try {
      state = JSON.parse(fs.readFileSync(stateFile, "utf8"));
    } catch {
      // Unreadable or half-written: treated as stale below.
    }
    const supervisor = Number(state?.supervisor);
    if (supervisor !== process.pid && runsScript(supervisor, state?.script)) {
      return { ok: false, pid: supervisor, message: `Ferry is already running on this data directory (supervisor pid ${supervisor}, ${stateFile}). Stop it first (Ctrl+C where it runs, or kill ${supervisor}).` };
    }
    const left = Object.values(state?.processes ?? {})
      .map((p) => Number(p?.pid))
      .filter((pid) => pid > 0 && pid !== process.pid);
    const deadline = Date.now() + waitMs;
    while (left.some(isRunning) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, pollMs));
    const still = left.filter(isRunning);
    if (still.length) {
      return { ok: false, pid: still[0], message: `Processes of a Ferry whose supervisor died still run on this data directory (pid ${still.join(", ")}). Stop them first (kill ${still.join(" ")}).` };
    }
    fs.rmSync(stateFile, { force: true });
  }
  return { ok: false, pid: null, message: `Another start is claiming this data directory at the same moment (${stateFile}).` };
}

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
      script: process.argv[1] ?? null,
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
    // A Node process gets the lifeline: an IPC channel it watches, so it ends when this one dies.
    const node = s.command === process.execPath;
    const args = node ? ["--import", LIFELINE, ...s.args] : s.args;
    const child = startService(s.name, s.command, args, { env: s.env, quiet: s.quiet, detached: s.detached, ipc: node });
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
