/**
 * `npm start` as people run it (node scripts/start.mjs, its own data folder and ports): a process
 * killed with SIGKILL is started again while the others go on — the worker in the middle of the
 * demo's single-company test (the run is taken up again and passes), then the sandbox (the app's
 * calls to it work again) — the web app answering all along; SIGTERM then stops everything and
 * starts nothing again. Also what `npm start` shows and serves: the web app on 127.0.0.1 only, no
 * sandbox secret in its log, tRPC answers not to be cached, the sandbox's file owner-only.
 *
 * Here rather than in Vitest because start.mjs serves the production build, which exists only
 * once `next build` has run (npm test builds before the Playwright suite). It does not use the
 * e2e server: it starts a whole Ferry of its own, demo and all, so it runs once the journeys have
 * ended (the "processes" project of playwright.config.ts), with the machine to itself. Its worker's
 * lease is set short (FERRY_WORKER_LEASE_MS), so the restarted worker takes the test up in seconds.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, request as playwrightRequest, test, type APIRequestContext } from "@playwright/test";
import Database from "better-sqlite3";
import { DEMO, signInWithApi, TrpcApi } from "./fixtures";

const ROOT = process.cwd();

/** A free TCP port (start.mjs refuses one in use). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** This machine's first address that is not loopback, if it has one. */
function externalAddress(): string | null {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return null;
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(3000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** A process exists and is not a zombie. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

type Processes = { supervisor: number; processes: Record<"sandbox" | "worker" | "web", { pid: number; running: boolean; restarts: number }> };

/** The web app answered, and how: polled while a process is down. */
type Poll = { at: number; what: string; status: number | string };

/**
 * Polls the web app every 200 ms — a page of Ferry's own (the sign-in's CSRF route) and a tRPC read
 * through the database — until stopped; returns every answer. A slow answer (the machine may be
 * busy with the rest of the suite) still counts; no answer, or an error status, does not.
 */
function pollWebApp(baseURL: string, api: TrpcApi, engagementId: string): { stop: () => Promise<Poll[]> } {
  const polls: Poll[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const [what, ask] of [
        ["csrf", () => fetch(`${baseURL}/api/auth/csrf`, { signal: AbortSignal.timeout(15_000) }).then((r) => r.status)],
        ["engagements.get", () => api.request.get(`/api/trpc/engagements.get?input=${encodeURIComponent(JSON.stringify({ json: { engagementId } }))}`, { timeout: 15_000 }).then((r) => r.status())],
      ] as const) {
        polls.push({ at: Date.now(), what, status: await ask().catch((e: unknown) => String(e)) });
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return polls;
    },
  };
}

test.describe("npm start, when one of its processes dies", () => {
  // One Ferry for the whole journey, in order: started, the worker killed, the sandbox killed, stopped.
  test.describe.configure({ mode: "serial" });
  let dataDir: string;
  let port: number;
  let sandboxPort: number;
  let baseURL: string;
  let ferry: ChildProcess;
  let output = "";
  let exited: Promise<number | null>;
  let context: APIRequestContext;
  let sam: TrpcApi;
  let acmeQbo: string;

  /** The supervisor's pid file; it is removed when Ferry stops. */
  const processes = (): Processes => {
    const file = path.join(dataDir, "processes.json");
    if (!fs.existsSync(file)) throw new Error(`Ferry is not running (no processes.json). Its output ended:\n${output.slice(-1500)}`);
    return JSON.parse(fs.readFileSync(file, "utf8")) as Processes;
  };

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    // start.mjs rebuilds a stale build; that must not happen under the running e2e server.
    const stale = spawnSync(process.execPath, ["-e", "import('./scripts/lib.mjs').then((m) => process.exit(m.buildIsStale() ? 1 : 0))"], { cwd: ROOT });
    if (stale.status !== 0) throw new Error("The production build is older than the sources: run `next build` first (npm test does).");

    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-supervised-"));
    port = await freePort();
    sandboxPort = await freePort();
    baseURL = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      SANDBOX_PORT: String(sandboxPort),
      FERRY_DATA_DIR: dataDir,
      NEXTAUTH_URL: baseURL,
      FERRY_WORKER_LEASE_MS: "1500",
      FERRY_WORKER_IDLE_MS: "300",
    };
    // Nothing of another Ferry's: the embedded defaults under the data folder.
    for (const name of ["DATABASE_FILE", "SANDBOX_DB_FILE", "SANDBOX_URL", "SANDBOX_ADMIN_TOKEN", "NEXTAUTH_SECRET", "FERRY_ENCRYPTION_KEY", "HOST", "NODE_ENV"]) delete env[name];
    ferry = spawn(process.execPath, ["scripts/start.mjs"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    ferry.stdout!.on("data", (c: Buffer) => (output += c));
    ferry.stderr!.on("data", (c: Buffer) => (output += c));
    exited = new Promise((resolve) => ferry.on("exit", (code) => resolve(code)));
    await expect.poll(() => output, { timeout: 200_000, intervals: [500] }).toContain("Ferry is running");

    context = await playwrightRequest.newContext({ baseURL });
    await signInWithApi(context, DEMO.sam);
    sam = new TrpcApi(context);
    const list = await sam.query<{ items: { id: string; organizationName: string; platformKey: string }[] }>("engagements.list", { search: "Acme", page: 1, pageSize: 20 });
    acmeQbo = list.items.find((e) => e.organizationName === "Acme Lending" && e.platformKey === "qhyg")!.id;
  });

  test.afterAll(async () => {
    await context?.dispose();
    // Whatever is left after a failed test: each process leads its own group.
    if (ferry && ferry.exitCode === null && ferry.signalCode === null) {
      let state: Processes | null = null;
      try {
        state = processes();
      } catch {
        // stopped already
      }
      ferry.kill("SIGKILL");
      for (const p of Object.values(state?.processes ?? {})) {
        try {
          process.kill(-p.pid, "SIGKILL");
        } catch {
          // gone
        }
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test("as started: the web app on 127.0.0.1 only, no sandbox secret in the log, tRPC answers not cached, the sandbox's file owner-only", async () => {
    const external = externalAddress();
    expect(await accepts("127.0.0.1", port)).toBe(true);
    if (external) expect(await accepts(external, port)).toBe(false);

    const secrets = JSON.parse(fs.readFileSync(path.join(dataDir, "local-secrets.json"), "utf8")) as { SANDBOX_ADMIN_TOKEN: string };
    const sandboxDb = path.join(dataDir, "sandbox.db");
    const db = new Database(sandboxDb, { readonly: true });
    const demoKey = (db.prepare("SELECT value FROM meta WHERE key = 'demo_api_key'").get() as { value: string }).value;
    db.close();
    expect(output).toContain("[sandbox]   Admin token for the /_sandbox controls: in SANDBOX_ADMIN_TOKEN");
    expect(output).not.toContain(secrets.SANDBOX_ADMIN_TOKEN);
    expect(output).not.toContain(demoKey);
    for (const f of [sandboxDb, `${sandboxDb}-wal`, path.join(dataDir, "ferry.db"), path.join(dataDir, "processes.json")]) {
      expect({ f, mode: fs.statSync(f).mode & 0o777 }).toEqual({ f, mode: 0o600 });
    }

    const read = await context.get("/api/trpc/me.get");
    expect(read.status()).toBe(200);
    expect(read.headers()["cache-control"]).toBe("no-store");
  });

  test("the worker killed with SIGKILL in the middle of a single-company test is started again, takes the test up again and it passes; the web app answers throughout", async () => {
    test.setTimeout(180_000);
    // The demo's largest company: its sync runs for several seconds, so the kill lands mid-run.
    const {
      companies: [atlas],
    } = await sam.query<{ companies: { id: string; name: string }[] }>("tests.items", { engagementId: acmeQbo, search: "Atlas Marine" });
    const { runId } = await sam.mutation<{ runId: string }>("tests.start", { engagementId: acmeQbo, kind: "pilot", itemId: atlas!.id });
    type Run = { status: string; result: string | null; calls: { operation: string; ok: boolean }[] };
    const run = () => sam.query<Run>("tests.get", { engagementId: acmeQbo, runId });
    await expect.poll(async () => (await run()).calls.map((c) => c.operation), { timeout: 60_000 }).toContain("refreshAllData");
    expect((await run()).status).toBe("running");

    const before = processes();
    const polling = pollWebApp(baseURL, sam, acmeQbo);
    process.kill(before.processes.worker.pid, "SIGKILL");

    // Started again, by the supervisor, with its lines.
    await expect.poll(() => processes().processes.worker, { timeout: 30_000 }).toMatchObject({ running: true, restarts: 1 });
    const after = processes();
    expect(after.processes.worker.pid).not.toBe(before.processes.worker.pid);
    expect(isAlive(after.processes.worker.pid)).toBe(true);
    expect(isAlive(before.processes.worker.pid)).toBe(false);
    expect(output).toMatch(new RegExp(`The worker \\(pid ${before.processes.worker.pid}\\) was killed by SIGKILL after [\\d.]+ (s|min); starting it again in 1 s \\(restart 1\\)\\.`));
    expect(output).toContain(`The worker is running again (pid ${after.processes.worker.pid}, restart 1).`);

    // The run goes on to its end: passed, the company created once.
    await expect.poll(async () => (await run()).status, { timeout: 120_000 }).toBe("passed");
    const polls = await polling.stop();
    const finished = await run();
    expect(finished.result).toBe("passed");
    expect(finished.calls.filter((c) => c.operation === "createCompany" && c.ok)).toHaveLength(1);
    // The restarted worker is the one that took it up again (the first took it before the kill).
    const taken = output.split("\n").filter((l) => l.includes(`took pilot run ${runId}`));
    expect(taken).toHaveLength(2);
    // Nothing else was restarted, and the web app answered every request meanwhile.
    expect(after.processes.sandbox).toMatchObject({ pid: before.processes.sandbox.pid, restarts: 0 });
    expect(after.processes.web).toMatchObject({ pid: before.processes.web.pid, restarts: 0 });
    expect(polls.length).toBeGreaterThan(10);
    expect(polls.filter((p) => p.status !== 200)).toEqual([]);
  });

  test("the sandbox killed with SIGKILL is started again and the app's calls to it work again; the web app answers throughout", async () => {
    test.setTimeout(180_000);
    const before = processes();
    const polling = pollWebApp(baseURL, sam, acmeQbo);
    process.kill(before.processes.sandbox.pid, "SIGKILL");

    await expect.poll(() => processes().processes.sandbox, { timeout: 30_000 }).toMatchObject({ running: true, restarts: 1 });
    const after = processes();
    expect(after.processes.sandbox.pid).not.toBe(before.processes.sandbox.pid);
    expect(output).toMatch(new RegExp(`The sandbox \\(pid ${before.processes.sandbox.pid}\\) was killed by SIGKILL after [\\d.]+ (s|min); starting it again in 1 s \\(restart 1\\)\\.`));
    expect(output).toContain(`The sandbox is running again (pid ${after.processes.sandbox.pid}, restart 1).`);
    await expect.poll(() => fetch(`http://127.0.0.1:${sandboxPort}/companies`).then((r) => r.status, String), { timeout: 30_000 }).toBe(401);

    // A rehearsal: the app makes a sandbox client and a simulated company per company of the file
    // through the controls, then runs the test through the service's API — all on the new sandbox.
    const { runId } = await sam.mutation<{ runId: string }>("tests.start", { engagementId: acmeQbo, kind: "rehearsal", itemId: null });
    await expect.poll(async () => (await sam.query<{ status: string }>("tests.get", { engagementId: acmeQbo, runId })).status, { timeout: 120_000 }).toBe("passed");
    const polls = await polling.stop();

    expect(after.processes.worker).toMatchObject({ pid: before.processes.worker.pid, restarts: 1 });
    expect(after.processes.web).toMatchObject({ pid: before.processes.web.pid, restarts: 0 });
    expect(polls.length).toBeGreaterThan(5);
    expect(polls.filter((p) => p.status !== 200)).toEqual([]);
  });

  test("SIGTERM stops every process and starts none again", async () => {
    const state = processes();
    const pids = Object.values(state.processes).map((p) => p.pid);
    const stopAt = output.length;
    ferry.kill("SIGTERM");
    expect(await exited).toBe(0);
    for (const pid of pids) expect({ pid, alive: isAlive(pid) }).toEqual({ pid, alive: false });
    const tail = output.slice(stopAt);
    expect(tail).toContain("Stopping Ferry (SIGTERM)");
    expect(tail).toContain("Ferry stopped.");
    expect(tail).not.toContain("starting it again");
    expect(fs.existsSync(path.join(dataDir, "processes.json"))).toBe(false);
    expect(await accepts("127.0.0.1", port)).toBe(false);
  });
});
