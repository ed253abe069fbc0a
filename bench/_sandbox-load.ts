/**
 * Load generator for bench/sandbox.ts, run as a separate process so it does not share the
 * server's event loop: N keep-alive connections each send requests back to back for a fixed time;
 * latencies after the warm-up are kept. Prints one JSON line with the figures.
 *
 * Argument: JSON {url, method, path, headers, bodyTemplate?, concurrency, durationMs, warmupMs};
 * `{n}` in bodyTemplate is replaced by a request counter (unique company names).
 */
import http from "node:http";

type Job = {
  url: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  bodyTemplate?: string;
  concurrency: number;
  durationMs: number;
  warmupMs: number;
};

const job = JSON.parse(process.argv[2] ?? "{}") as Job;
const target = new URL(job.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: job.concurrency });

function once(n: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = job.bodyTemplate?.replaceAll("{n}", String(n));
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: job.method,
        path: job.path,
        agent,
        headers: body === undefined ? job.headers : { ...job.headers, "Content-Length": String(Buffer.byteLength(body)) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function main(): Promise<void> {
  const start = performance.now();
  const measureFrom = start + job.warmupMs;
  const stopAt = measureFrom + job.durationMs;
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let counter = 0;
  let total = 0;
  const worker = async () => {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= stopAt) return;
      const status = await once(counter++);
      total += 1;
      const t1 = performance.now();
      if (t0 >= measureFrom) {
        latencies.push(t1 - t0);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  process.stdout.write(
    `${JSON.stringify({
      requests: latencies.length,
      total,
      perSecond: latencies.length / (job.durationMs / 1000),
      p50: at(0.5),
      p99: at(0.99),
      statuses,
    })}\n`,
  );
  agent.destroy();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
