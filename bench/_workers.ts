/**
 * What the workers benches (workers.ts, workers-pg.ts) share: one measured bulk run in a process of
 * its own (_workers-run.ts, on the database its environment names), and how its figures are printed.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { ROOT, type SandboxProcess } from "./_bulk";
import type { WorkersRun } from "./_workers-run";

export type { WorkersRun };

/**
 * Runs _workers-run.ts: `workers` worker processes migrate `companies` companies on SQLite (a file
 * in `dir`) or, with `postgres`, on a fresh database of that PostgreSQL server; `kills` SIGKILLs
 * while it runs. Its progress lines are passed on; resolves with its RESULT.
 */
export function measureRun(params: { sandbox: SandboxProcess; dir: string; r: number; workers: number; companies: number; kills?: number; postgres?: string | null }): Promise<WorkersRun> {
  const { sandbox, postgres } = params;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "bench", "_workers-run.ts"), "--workers", String(params.workers), "--companies", String(params.companies), "--kills", String(params.kills ?? 0)],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "inherit"],
        env: {
          ...process.env,
          SANDBOX_URL: sandbox.url,
          SANDBOX_ADMIN_TOKEN: sandbox.adminToken,
          BENCH_DIR: params.dir,
          BENCH_R: String(params.r),
          // Both set for PostgreSQL (the dialect, and the server to make the run's database on); neither for SQLite.
          DATABASE_URL: postgres ?? "",
          FERRY_TEST_PG_URL: postgres ?? "",
        },
      },
    );
    let result: WorkersRun | null = null;
    let buffered = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        if (line.startsWith("RESULT ")) result = JSON.parse(line.slice(7)) as WorkersRun;
        else if (line.trim()) console.log(line);
      }
    });
    child.once("exit", (code) => (result && code === 0 ? resolve(result) : reject(new Error(`the measured run exited with ${code}${result ? "" : " and no result"}`))));
  });
}

/**
 * A throwaway PostgreSQL server (scripts/postgres.mjs in a process of its own: Debian's binaries,
 * installed by apt-get as root when missing, a temporary folder, a random port) and how to stop it.
 */
export function startThrowawayPostgres(): Promise<{ url: string; stop(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, "scripts", "postgres.mjs")], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const m = /DATABASE_URL=(\S+)/.exec(out);
      if (m) {
        child.stdout!.removeAllListeners("data");
        resolve({
          url: m[1]!,
          stop: async () => {
            child.kill("SIGTERM");
            await exited;
          },
        });
      }
    });
    child.once("exit", (code) => reject(new Error(`scripts/postgres.mjs exited with ${code} before printing its DATABASE_URL: ${out.trim()}`)));
  });
}

/** The figures of one run against the targets. */
export function printRun(label: string, m: WorkersRun, r: number): void {
  const pct = (x: number) => `${(100 * x).toFixed(2)} %`;
  const met = (ok: boolean) => (ok ? "MET" : "MISSED");
  console.log(label);
  console.log(`  wall                                 ${m.wallS.toFixed(1)} s (start control → run finished)`);
  console.log(`  requests (pacers)                    ${m.requests} (Ferry's call records: ${m.recorded})`);
  console.log(`  the limit's floor (requests ÷ R)     ${(m.requests / r).toFixed(1)} s`);
  console.log(`  first answer after the start         ${m.firstCallS.toFixed(2)} s; the run finished ${m.tailS.toFixed(2)} s after the last`);
  if (m.kills) console.log(`  utilisation (floor ÷ wall)           ${m.utilisation.toFixed(3)}   (workers killed every few seconds: no target)`);
  else console.log(`  utilisation (floor ÷ wall)           ${m.utilisation.toFixed(3)}   target ≥ 0.95 → ${met(m.utilisation >= 0.95)}`);
  console.log(`  429s                                 ${m.rateLimited} = ${pct(m.share429)} of requests   target ≤ 1 % → ${met(m.share429 <= 0.01)}`);
  console.log(`  duplicates                           ${m.duplicates}   target 0 → ${met(m.duplicates === 0)}`);
  console.log(`  lost                                 ${m.lost}   target 0 → ${met(m.lost === 0)}`);
  if (m.workers > 1 && !m.kills) console.log(`  workers that helped the coordinator  ${m.helped} of ${m.workers - 1}`);
  if (m.kills) {
    const worst = Math.max(...m.resumeS);
    const mean = m.resumeS.reduce((a, b) => a + b, 0) / m.resumeS.length;
    console.log(`  SIGKILLs                             ${m.kills}, each dead worker's work taken over in ${mean.toFixed(2)} s on average, at worst ${worst.toFixed(2)} s   target ≤ 5 s → ${met(worst <= 5)}`);
  }
}
