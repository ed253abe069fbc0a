/**
 * The supervisor of `npm start` (scripts/supervisor.mjs) with real child processes: small Node
 * scripts written to a temporary folder that record each start, end after a set time, ignore
 * SIGTERM or fork a child of their own, as a test needs. Delays are shortened (the defaults are
 * 1 s doubling to 30 s); only their order and lower bounds are checked, never a duration's upper bound.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { until } from "@/server/testing/until";
import { claimStateFile, createSupervisor, formatDelay, howItEnded, type StateFile, type Supervisor, type SupervisorOptions } from "./supervisor.mjs";

let dir: string;
let serial = 0;
const supervisors: Supervisor[] = [];

const CHILD = `
import { spawn } from "node:child_process";
import fs from "node:fs";
const runs = process.env.RUNS_FILE;
process.on("SIGTERM", () => {
  if (process.env.IGNORE_TERM) return;
  fs.appendFileSync(runs + ".stopped", process.pid + "\\n");
  process.exit(0);
});
const n = fs.existsSync(runs) ? fs.readFileSync(runs, "utf8").split("\\n").filter(Boolean).length : 0;
fs.appendFileSync(runs, process.pid + " " + Date.now() + "\\n");
if (process.env.FORK) {
  const grandchild = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  fs.writeFileSync(process.env.FORK, String(grandchild.pid));
}
const lives = (process.env.LIVES ?? "forever").split(",");
const life = lives[Math.min(n, lives.length - 1)];
if (life === "forever") setInterval(() => {}, 1000);
else setTimeout(() => process.exit(Number(process.env.EXIT_CODE ?? 3)), Number(life));
`;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-supervisor-"));
  fs.writeFileSync(path.join(dir, "child.mjs"), CHILD);
});
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.stop()));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A process is alive when it exists and is not a zombie (an orphan nobody has reaped yet). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

type Child = { name: string; runsFile: string; starts: () => { pid: number; at: number }[]; stopped: () => number[] };

/** A child service's spec and a reader of its starts, with `env` saying how it behaves. */
function child(env: Record<string, string>): Child & { spec: { name: string; label: string; command: string; args: string[]; env: Record<string, string>; quiet: boolean } } {
  serial += 1;
  const name = `child${serial}`;
  const runsFile = path.join(dir, `${name}.runs`);
  const lines = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : []);
  return {
    name,
    runsFile,
    spec: { name, label: `The ${name}`, command: process.execPath, args: [path.join(dir, "child.mjs")], env: { RUNS_FILE: runsFile, ...env }, quiet: true },
    starts: () =>
      lines(runsFile).map((l) => {
        const [pid, at] = l.split(" ").map(Number);
        return { pid: pid!, at: at! };
      }),
    stopped: () => lines(`${runsFile}.stopped`).map(Number),
  };
}

function supervisor(options: SupervisorOptions = {}): { sup: Supervisor; lines: string[] } {
  const lines: string[] = [];
  const sup = createSupervisor({ initialDelayMs: 100, maxDelayMs: 10_000, stableAfterMs: 60_000, stopTimeoutMs: 2_000, log: (l) => lines.push(l), ...options });
  supervisors.push(sup);
  return { sup, lines };
}

describe("a process that ends once Ferry has started", () => {
  it("is started again after a delay that doubles up to its cap, with a line when it ends and one when it runs again; the others go on", async () => {
    const { sup, lines } = supervisor({ initialDelayMs: 200, maxDelayMs: 800 });
    const crashy = child({ LIVES: "0" });
    const steady = child({ LIVES: "forever" });
    sup.add(crashy.spec);
    sup.add(steady.spec);
    sup.startupDone();

    const starts = await until("five starts of the crashing process", crashy.starts, (s) => s.length >= 5, 20_000);
    await until("its fourth restart line", () => lines.filter((l) => l.includes("is running again")).length, (n) => n >= 4);

    const ended = lines.filter((l) => l.startsWith(`The ${crashy.name} (pid`));
    expect(ended.slice(0, 4)).toEqual([
      expect.stringMatching(new RegExp(`^The ${crashy.name} \\(pid ${starts[0]!.pid}\\) exited with code 3 after [\\d.]+ s; starting it again in 0\\.2 s \\(restart 1\\)\\.$`)),
      expect.stringMatching(new RegExp(`^The ${crashy.name} \\(pid ${starts[1]!.pid}\\) exited with code 3 after [\\d.]+ s; starting it again in 0\\.4 s \\(restart 2\\)\\.$`)),
      expect.stringMatching(new RegExp(`^The ${crashy.name} \\(pid ${starts[2]!.pid}\\) exited with code 3 after [\\d.]+ s; starting it again in 0\\.8 s \\(restart 3\\)\\.$`)),
      // The cap.
      expect.stringMatching(new RegExp(`^The ${crashy.name} \\(pid ${starts[3]!.pid}\\) exited with code 3 after [\\d.]+ s; starting it again in 0\\.8 s \\(restart 4\\)\\.$`)),
    ]);
    const again = lines.filter((l) => l.includes("is running again"));
    expect(again.slice(0, 4)).toEqual([1, 2, 3, 4].map((n) => `The ${crashy.name} is running again (pid ${starts[n]!.pid}, restart ${n}).`));
    // Each start waited at least its delay after the previous one.
    [200, 400, 800, 800].forEach((delay, i) => expect(starts[i + 1]!.at - starts[i]!.at).toBeGreaterThanOrEqual(delay));

    // The other process was never touched.
    expect(steady.starts()).toHaveLength(1);
    expect(isAlive(steady.starts()[0]!.pid)).toBe(true);
    expect(lines.some((l) => l.includes(steady.name))).toBe(false);
  });

  it("waits the first delay again after a run that stayed up past the stable time", async () => {
    const { sup, lines } = supervisor({ initialDelayMs: 100, stableAfterMs: 600 });
    // Three quick failures, one run of a second, then a quick failure again.
    const flaky = child({ LIVES: "0,0,0,1000,0" });
    sup.add(flaky.spec);
    sup.startupDone();
    await until("five restarts", () => lines.filter((l) => l.includes("starting it again")), (l) => l.length >= 5, 20_000);
    const delays = lines.filter((l) => l.includes("starting it again")).map((l) => l.match(/again in ([\d.]+ s)/)![1]);
    // The fourth run lasted a second: the delay after it starts from 0.1 s again, and doubles again.
    expect(delays.slice(0, 5)).toEqual(["0.1 s", "0.2 s", "0.4 s", "0.1 s", "0.2 s"]);
    expect(lines.find((l) => l.includes("restart 4)."))).toMatch(/exited with code 3 after 1(\.\d)? s/);
  });

  it("killed with SIGKILL: the line names the signal, and what it had forked is killed before it starts again", async () => {
    const { sup, lines } = supervisor();
    const forkFile = path.join(dir, "grandchild.pid");
    const forking = child({ FORK: forkFile });
    const handle = sup.add(forking.spec);
    sup.startupDone();
    await until("the grandchild", () => fs.existsSync(forkFile) && fs.readFileSync(forkFile, "utf8"), Boolean);
    const grandchild = Number(fs.readFileSync(forkFile, "utf8"));
    fs.rmSync(forkFile);
    const first = handle.pid!;
    expect(isAlive(grandchild)).toBe(true);

    process.kill(first, "SIGKILL");
    await until("a second start", forking.starts, (s) => s.length === 2, 10_000);
    expect(lines[0]).toMatch(new RegExp(`^The ${forking.name} \\(pid ${first}\\) was killed by SIGKILL after [\\d.]+ s; starting it again in 0\\.1 s \\(restart 1\\)\\.$`));
    expect(handle.pid).toBe(forking.starts()[1]!.pid);
    expect(handle.restarts).toBe(1);
    // The orphan went with its parent's group (it would otherwise hold what the new process needs, e.g. a port).
    await until("the orphaned grandchild to be gone", () => isAlive(grandchild), (alive) => !alive, 5_000);
  });
});

describe("while Ferry is starting", () => {
  it("a process that ends is not started again: the caller is told how it ended", async () => {
    const told: unknown[] = [];
    const { sup, lines } = supervisor({ onExitWhileStarting: (ended) => told.push(ended) });
    const broken = child({ LIVES: "0", EXIT_CODE: "7" });
    sup.add(broken.spec);
    await until("the report", () => told.length, (n) => n === 1, 10_000);
    expect(told[0]).toEqual({ name: broken.name, label: `The ${broken.name}`, pid: broken.starts()[0]!.pid, code: 7, signal: null, how: "exited with code 7" });
    await new Promise((r) => setTimeout(r, 400));
    expect(broken.starts()).toHaveLength(1);
    expect(lines).toEqual([]);
  });
});

describe("stop()", () => {
  it("stops every process with SIGTERM, kills one that ignores it, and starts nothing again, not even a restart that was waiting", async () => {
    const { sup, lines } = supervisor({ initialDelayMs: 300, stopTimeoutMs: 500 });
    const steady = child({});
    const stubborn = child({ IGNORE_TERM: "1" });
    const crashy = child({ LIVES: "0" });
    for (const c of [steady, stubborn, crashy]) sup.add(c.spec);
    sup.startupDone();
    await until("the crash and its waiting restart", () => lines, (l) => l.some((x) => x.includes("starting it again in 0.3 s")), 10_000);
    // Each child records its start once it runs; on a loaded machine that can come after the crash.
    await until("the steady one to have started", steady.starts, (s) => s.length === 1);
    await until("the stubborn one to have started", stubborn.starts, (s) => s.length === 1);

    await sup.stop();
    expect(steady.stopped()).toEqual([steady.starts()[0]!.pid]);
    expect(isAlive(steady.starts()[0]!.pid)).toBe(false);
    expect(isAlive(stubborn.starts()[0]!.pid)).toBe(false);
    expect(lines).toContain(`The ${stubborn.name} (pid ${stubborn.starts()[0]!.pid}) did not stop within 0.5 s; killing it.`);

    await new Promise((r) => setTimeout(r, 700));
    expect(crashy.starts()).toHaveLength(1);
    expect(steady.starts()).toHaveLength(1);
    expect(lines.filter((l) => l.includes("is running again"))).toEqual([]);
    expect(() => sup.add(child({}).spec)).toThrow("stopping");
  });
});

describe("the state file", () => {
  it("names each process's pid (mode 0600), follows a restart, and is removed by stop()", async () => {
    const stateFile = path.join(dir, "processes.json");
    const { sup } = supervisor({ stateFile });
    const a = child({});
    const b = child({});
    const ha = sup.add(a.spec);
    const hb = sup.add(b.spec);
    sup.startupDone();
    const read = () => JSON.parse(fs.readFileSync(stateFile, "utf8")) as StateFile;
    expect(fs.statSync(stateFile).mode & 0o777).toBe(0o600);
    expect(read()).toMatchObject({ supervisor: process.pid, processes: { [a.name]: { pid: ha.pid, running: true, restarts: 0 }, [b.name]: { pid: hb.pid, running: true, restarts: 0 } } });

    const old = ha.pid!;
    process.kill(old, "SIGKILL");
    const state = await until("the restarted pid", read, (s) => s.processes[a.name]!.pid !== old && s.processes[a.name]!.running, 10_000);
    expect(state.processes[a.name]).toMatchObject({ pid: ha.pid, restarts: 1 });
    expect(isAlive(state.processes[a.name]!.pid!)).toBe(true);
    expect(fs.statSync(stateFile).mode & 0o777).toBe(0o600);

    await sup.stop();
    expect(fs.existsSync(stateFile)).toBe(false);
  });
});

describe("stopOnSignals", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`${signal} to the supervising process stops every child, restarts none, and it exits 0`, async () => {
      const stateFile = path.join(dir, `signal-${signal}.json`);
      const a = child({});
      const b = child({});
      const parentFile = path.join(dir, `parent-${signal}.mjs`);
      fs.writeFileSync(
        parentFile,
        `import { createSupervisor, stopOnSignals } from ${JSON.stringify(pathToFileURL(path.resolve("scripts/supervisor.mjs")).href)};
const sup = createSupervisor({ stateFile: ${JSON.stringify(stateFile)}, initialDelayMs: 50 });
stopOnSignals(sup, { onSignal: (s) => console.log("stopping on " + s), onStopped: () => console.log("stopped") });
sup.add(${JSON.stringify(a.spec)});
sup.add(${JSON.stringify(b.spec)});
sup.startupDone();
`,
      );
      const parent = spawn(process.execPath, [parentFile], { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      parent.stdout.on("data", (c: Buffer) => (out += c));
      parent.stderr.on("data", (c: Buffer) => (out += c));
      const exited = new Promise<number | null>((resolve) => parent.on("exit", (code) => resolve(code)));
      const state = await until("both children", () => (fs.existsSync(stateFile) ? (JSON.parse(fs.readFileSync(stateFile, "utf8")) as StateFile) : null), (s) => Object.values(s?.processes ?? {}).filter((p) => p.running).length === 2, 10_000);
      const pids = Object.values(state!.processes).map((p) => p.pid!);
      // Both have got as far as listening for SIGTERM (they record their start after that is set up).
      await until("both children to run", () => a.starts().length + b.starts().length, (n) => n === 2, 10_000);

      parent.kill(signal);
      expect(await exited).toBe(0);
      expect(out).toContain(`stopping on ${signal}`);
      expect(out).toContain("stopped");
      expect(out).not.toContain("starting it again");
      for (const pid of pids) expect(isAlive(pid)).toBe(false);
      expect([...a.stopped(), ...b.stopped()].sort()).toEqual([...pids].sort());
      expect(a.starts()).toHaveLength(1);
      expect(b.starts()).toHaveLength(1);
      expect(fs.existsSync(stateFile)).toBe(false);
    });
  }
});

/** A supervising process of its own (as `npm start` is) with two children, its state in `stateFile`. */
async function supervisingProcess(stateFile: string, a: ReturnType<typeof child>, b: ReturnType<typeof child>) {
  const parentFile = path.join(dir, `parent-${path.basename(stateFile)}.mjs`);
  fs.writeFileSync(
    parentFile,
    `import { createSupervisor, stopOnSignals } from ${JSON.stringify(pathToFileURL(path.resolve("scripts/supervisor.mjs")).href)};
const sup = createSupervisor({ stateFile: ${JSON.stringify(stateFile)}, initialDelayMs: 50 });
stopOnSignals(sup);
sup.add(${JSON.stringify(a.spec)});
sup.add(${JSON.stringify(b.spec)});
sup.startupDone();
`,
  );
  const parent = spawn(process.execPath, [parentFile], { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => parent.on("exit", (_code, signal) => resolve(signal)));
  const state = await until("both children", () => (fs.existsSync(stateFile) ? (JSON.parse(fs.readFileSync(stateFile, "utf8")) as StateFile) : null), (s) => Object.values(s?.processes ?? {}).filter((p) => p.running).length === 2, 10_000);
  await until("both children to run", () => a.starts().length + b.starts().length, (n) => n === 2, 10_000);
  return { parent, exited, pids: Object.values(state!.processes).map((p) => p.pid!) };
}

describe("when the supervisor dies", () => {
  it("killed with SIGKILL, its children stop as on SIGTERM (their lifeline closes) instead of running on unsupervised", async () => {
    const stateFile = path.join(dir, "killed.json");
    const a = child({});
    const b = child({});
    const { parent, exited, pids } = await supervisingProcess(stateFile, a, b);
    parent.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    await until("the children to end", () => pids.filter(isAlive), (alive) => alive.length === 0, 10_000);
    // Each stopped through its own SIGTERM handler, as when the supervisor stops them.
    expect([...a.stopped(), ...b.stopped()].sort()).toEqual([...pids].sort());
  });

  it("a second start on the same state file is refused naming the running supervisor; once it has died, the stale file is cleaned up and taken", async () => {
    const stateFile = path.join(dir, "claimed.json");
    const { parent, exited, pids } = await supervisingProcess(stateFile, child({}), child({}));
    const refused = await claimStateFile(stateFile);
    expect(refused).toEqual({ ok: false, pid: parent.pid, message: expect.stringContaining(`Ferry is already running on this data directory (supervisor pid ${parent.pid}`) as string });
    expect((JSON.parse(fs.readFileSync(stateFile, "utf8")) as StateFile).supervisor).toBe(parent.pid);

    parent.kill("SIGKILL");
    await exited;
    // The file still names the dead supervisor and its children until a new start finds it.
    expect((JSON.parse(fs.readFileSync(stateFile, "utf8")) as StateFile).supervisor).toBe(parent.pid);
    expect(await claimStateFile(stateFile)).toEqual({ ok: true });
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    const claimed = JSON.parse(fs.readFileSync(stateFile, "utf8")) as StateFile;
    expect(claimed).toMatchObject({ supervisor: process.pid, processes: {} });
    expect(fs.statSync(stateFile).mode & 0o777).toBe(0o600);
    fs.rmSync(stateFile);
  });

  it("npm start (scripts/start.mjs) refuses a data directory another Ferry runs on, naming its pid, and starts nothing", async () => {
    const dataDir = path.join(dir, "data-in-use");
    fs.mkdirSync(dataDir);
    const stateFile = path.join(dataDir, "processes.json");
    const { parent, exited } = await supervisingProcess(stateFile, child({}), child({}));
    // Ports nobody could take, so that a start that is not refused fails at once rather than starting Ferry.
    const start = spawn(process.execPath, ["scripts/start.mjs"], { cwd: process.cwd(), env: { ...process.env, FERRY_DATA_DIR: dataDir, PORT: "70000", SANDBOX_PORT: "70000" }, stdio: ["ignore", "pipe", "pipe"] });
    try {
      let out = "";
      start.stdout.on("data", (c: Buffer) => (out += c));
      start.stderr.on("data", (c: Buffer) => (out += c));
      const code = await new Promise<number | null>((resolve) => start.on("exit", (c) => resolve(c)));
      expect(out).toContain(`Ferry is already running on this data directory (supervisor pid ${parent.pid}`);
      expect(code).toBe(1);
      expect(fs.existsSync(path.join(dataDir, "local-secrets.json"))).toBe(false);
      expect((JSON.parse(fs.readFileSync(stateFile, "utf8")) as StateFile).supervisor).toBe(parent.pid);
    } finally {
      if (start.exitCode === null) start.kill("SIGTERM");
      parent.kill("SIGTERM");
      await exited;
    }
  });
});

describe("words", () => {
  it("say how a process ended and how long a delay is", () => {
    expect(howItEnded(137, null)).toBe("exited with code 137");
    expect(howItEnded(null, "SIGKILL")).toBe("was killed by SIGKILL");
    expect(howItEnded(null, null)).toBe("could not be started");
    expect([100, 1_000, 2_500, 30_000, 300_000].map(formatDelay)).toEqual(["0.1 s", "1 s", "2.5 s", "30 s", "5 min"]);
  });
});
