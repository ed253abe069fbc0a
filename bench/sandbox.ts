/**
 * The service sandbox under load on loopback: throughput and p50/p99 latency of
 * GET /companies/{id} and POST /companies (paid client, so the 50-company limit does not apply),
 * each against the named baseline "bare-http": a plain node:http server answering a fixed JSON
 * body of the same size, driven by the same load generator in a separate process.
 *
 * Run: npx tsx bench/sandbox.ts [seconds=5] [connections=16]
 * Targets (2 cores): ≥ 1,500 reads/s and ≥ 400 creates/s.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { basicAuth, createControlClient } from "@/server/sandbox/controls/control-client";
import { createSandbox } from "@/server/sandbox/server";

const SECONDS = Number(process.argv[2] ?? 5);
const CONNECTIONS = Number(process.argv[3] ?? 16);
const TARGETS = { read: 1500, create: 400 };

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

  const cases = [
    { name: "GET /companies/{id}", kind: "read" as const, sandbox: { method: "GET", path: `/companies/${companyId}`, headers: { Authorization: auth } } },
    { name: "POST /companies", kind: "create" as const, sandbox: { method: "POST", path: "/companies", headers: jsonHeaders, bodyTemplate: createBody } },
  ];
  const rows: string[] = [];
  const verdicts: string[] = [];
  for (const c of cases) {
    const baseline = await load({ url: bare.url, ...c.sandbox });
    const measured = await load({ url: sandbox.url, ...c.sandbox });
    const failures = measured.requests - okCount(measured);
    rows.push(
      `${c.name.padEnd(22)} ${"sandbox".padEnd(10)} ${measured.perSecond.toFixed(0).padStart(8)} ${measured.p50.toFixed(2).padStart(8)} ${measured.p99.toFixed(2).padStart(8)} ${measured.cpuMicros.toFixed(0).padStart(10)} ${String(failures).padStart(8)}`,
      `${"".padEnd(22)} ${"bare-http".padEnd(10)} ${baseline.perSecond.toFixed(0).padStart(8)} ${baseline.p50.toFixed(2).padStart(8)} ${baseline.p99.toFixed(2).padStart(8)} ${baseline.cpuMicros.toFixed(0).padStart(10)} ${"0".padStart(8)}   sandbox = ${((100 * measured.perSecond) / baseline.perSecond).toFixed(0)}% of baseline req/s`,
    );
    const target = TARGETS[c.kind];
    const ok = okCount(measured) / SECONDS;
    verdicts.push(`${c.name}: ${ok.toFixed(0)} successful/s, target ≥ ${target}/s → ${ok >= target && failures === 0 ? "PASS" : "MISS"}`);
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
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
