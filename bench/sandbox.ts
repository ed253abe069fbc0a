/**
 * The service sandbox under load on loopback: throughput and p50/p99 latency of
 * GET /companies/{id} and POST /companies (paid client, so the 50-company limit does not apply),
 * and of the same read in quota mode (daily quota and per-minute limit on, counted per request),
 * each against the named baseline "bare-http": a plain node:http server answering a fixed JSON
 * body of the same size, driven by the same load generator in a separate process.
 *
 * Run: npx tsx bench/sandbox.ts [seconds=5] [connections=16]
 * Targets (2 cores): ≥ 1,500 reads/s (also in quota mode) and ≥ 400 creates/s. The last line
 * printed is one JSON object: {"bench":"sandbox","seconds":…,"connections":…,"read_per_s":…,
 * "read_p99_ms":…,"read_cpu_us":…,"read_baseline_per_s":…,"read_pass":…, and the same five for
 * "create" and "quota_read"}.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { basicAuth, createControlClient, type SandboxControl } from "@/server/sandbox/controls/control-client";
import { createSandbox } from "@/server/sandbox/server";

const SECONDS = Number(process.argv[2] ?? 5);
const CONNECTIONS = Number(process.argv[3] ?? 16);
const TARGETS = { read: 1500, create: 400, quota_read: 1500 };

type LoadResult = {
  requests: number;
  /** Requests including the warm-up. */
  total: number;
  perSecond: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  /** Server CPU time (user + system) per request, in µs: this process serves both servers. */
  cpuMicros: number;
};

function load(job: { url: string; method: string; path: string; headers: Record<string, string>; bodyTemplate?: string }): Promise<LoadResult> {
  const args = JSON.stringify({ ...job, concurrency: CONNECTIONS, durationMs: SECONDS * 1000, warmupMs: 1000 });
  const cpuBefore = process.cpuUsage();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "_sandbox-load.ts"), args], {
      cwd: path.join(__dirname, ".."),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`load generator exited with ${code}`));
      else {
        const cpu = process.cpuUsage(cpuBefore);
        const result = JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as Omit<LoadResult, "cpuMicros">;
        resolve({ ...result, cpuMicros: (cpu.user + cpu.system) / Math.max(1, result.total) });
      }
    });
  });
}

function bareServer(body: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)) });
      res.end(body);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** A company with a Linked connection (it counts toward its client's daily quota). */
async function connectCompany(params: { url: string; auth: string; control: SandboxControl; name: string }): Promise<string> {
  const post = async (path: string, body: unknown, method = "POST") => {
    const response = await fetch(`${params.url}${path}`, {
      method,
      headers: { Authorization: params.auth, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  const tenant = await params.control.createTenant("fztf", { name: params.name });
  const company = await post("/companies", { name: params.name });
  const connection = await post(`/companies/${company.id}/connections`, { platformKey: "fztf" });
  await post(`/companies/${company.id}/connections/${connection.id}/authorization`, tenant.credentials, "PUT");
  return company.id;
}

function okCount(result: LoadResult): number {
  return Object.entries(result.statuses)
    .filter(([status]) => status.startsWith("2"))
    .reduce((sum, [, n]) => sum + n, 0);
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-sandbox-bench-"));
  const sandbox = await createSandbox({ dbFile: path.join(dir, "sandbox.db"), port: 0 });
  const control = createControlClient({ url: sandbox.url, adminToken: sandbox.adminToken });
  const { apiKey } = await control.createClient({ plan: "paid" });
  // The default per-client limit (10,000/s) is within reach of this load: lift it so the figures
  // measure serving, while the limiter itself still runs on every request.
  await control.setFaults({ rateLimitPerSecond: 1_000_000 });
  const auth = basicAuth(apiKey);
  const created = await fetch(`${sandbox.url}/companies`, {
    method: "POST",
    headers: { Authorization: auth, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Bench read target", description: "a company read by the benchmark", tags: { item: "bench" } }),
  });
  const companyJson = await created.text();
  const companyId = (JSON.parse(companyJson) as { id: string }).id;
  const bare = await bareServer(companyJson);

  const jsonHeaders = { Authorization: auth, "Content-Type": "application/json" };
  const createBody = '{"name":"Bench company {n}","tags":{"item":"m-{n}"}}';
  console.log(`Sandbox benchmark: ${SECONDS} s per case after 1 s warm-up, ${CONNECTIONS} keep-alive connections, load from a separate process, ${os.cpus().length} CPUs\n`);

  // Quota mode stores a count per request: a client with 100 connected companies (a quota of
  // 101,000 a day, out of reach of one case) measures what that costs.
  const { apiKey: quotaKey } = await control.createClient({ plan: "paid" });
  const quotaAuth = basicAuth(quotaKey);
  let quotaCompanyId = "";
  for (let i = 0; i < 100; i++) quotaCompanyId = await connectCompany({ url: sandbox.url, auth: quotaAuth, control, name: `Quota company ${i}` });

  const readCase = { method: "GET", path: `/companies/${companyId}`, headers: { Authorization: auth } };
  const cases = [
    { name: "GET /companies/{id}", kind: "read" as const, sandbox: readCase },
    { name: "POST /companies", kind: "create" as const, sandbox: { method: "POST", path: "/companies", headers: jsonHeaders, bodyTemplate: createBody } },
    {
      name: "GET …, quota mode",
      kind: "quota_read" as const,
      faults: { quotaPerDay: true, requestsPerMinute: 1_000_000 },
      sandbox: { method: "GET", path: `/companies/${quotaCompanyId}`, headers: { Authorization: quotaAuth } },
    },
  ];
  const rows: string[] = [];
  const verdicts: string[] = [];
  const figures: Record<string, number | boolean> = {};
  for (const c of cases) {
    if ("faults" in c && c.faults) await control.setFaults(c.faults);
    const baseline = await load({ url: bare.url, ...c.sandbox });
    const measured = await load({ url: sandbox.url, ...c.sandbox });
    const failures = measured.requests - okCount(measured);
    rows.push(
      `${c.name.padEnd(22)} ${"sandbox".padEnd(10)} ${measured.perSecond.toFixed(0).padStart(8)} ${measured.p50.toFixed(2).padStart(8)} ${measured.p99.toFixed(2).padStart(8)} ${measured.cpuMicros.toFixed(0).padStart(10)} ${String(failures).padStart(8)}`,
      `${"".padEnd(22)} ${"bare-http".padEnd(10)} ${baseline.perSecond.toFixed(0).padStart(8)} ${baseline.p50.toFixed(2).padStart(8)} ${baseline.p99.toFixed(2).padStart(8)} ${baseline.cpuMicros.toFixed(0).padStart(10)} ${"0".padStart(8)}   sandbox = ${((100 * measured.perSecond) / baseline.perSecond).toFixed(0)}% of baseline req/s`,
    );
    const target = TARGETS[c.kind];
    const ok = okCount(measured) / SECONDS;
    const pass = ok >= target && failures === 0;
    verdicts.push(`${c.name}: ${ok.toFixed(0)} successful/s, target ≥ ${target}/s → ${pass ? "PASS" : "MISS"}`);
    Object.assign(figures, {
      [`${c.kind}_per_s`]: Math.round(ok),
      [`${c.kind}_p99_ms`]: Number(measured.p99.toFixed(2)),
      [`${c.kind}_cpu_us`]: Math.round(measured.cpuMicros),
      [`${c.kind}_baseline_per_s`]: Math.round(baseline.perSecond),
      [`${c.kind}_pass`]: pass,
    });
  }
  console.log(
    `${"case".padEnd(22)} ${"server".padEnd(10)} ${"req/s".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"CPU µs/req".padStart(10)} ${"non-2xx".padStart(8)}`,
  );
  for (const row of rows) console.log(row);
  console.log("");
  for (const verdict of verdicts) console.log(verdict);
  console.log(
    `\nCPU µs/req: server CPU time per request, less sensitive to other load than req/s. Load average ${os.loadavg()[0]?.toFixed(2)}; RSS ${(process.memoryUsage().rss / 1_048_576).toFixed(0)} MB.`,
  );

  await bare.close();
  await sandbox.close();
  fs.rmSync(dir, { recursive: true, force: true });
  // The last line: one JSON object for scripts.
  console.log(JSON.stringify({ bench: "sandbox", seconds: SECONDS, connections: CONNECTIONS, ...figures }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
