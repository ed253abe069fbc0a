/**
 * Several workers, one rate budget: a bulk run of 1,000 companies of the sandbox's default volume
 * carried out by three worker processes (`worker-main.ts`, as `npm run worker` starts them) on one
 * database, against one sandbox target (a sandbox process of its own, limited to R = 100 requests
 * a second for the account), compared in the same run with one worker process migrating another
 * 1,000 companies on another account of the same sandbox.
 *
 * The three share the target's budget through the database (server/service-client/shared-budget.ts):
 * on one machine each spends its part of every second's window, so together they keep to R
 * instead of each learning it alone (three times R tried, and a storm of 429s).
 *
 * Printed, for each: wall seconds (the run's start control to its recorded end); requests (the
 * pacers' count in the run's outcome, cross-checked with Ferry's record of every call);
 * utilisation = (requests ÷ R) ÷ wall (target ≥ 0.95); 429s as a share of requests (≤ 1 %);
 * duplicates — a second company for one item or a second connection in one company, read through
 * the sandbox's API (0); lost — companies not in a final state at the end, or missing on the
 * sandbox (0). Set-up (tenants, steps 1–5 through their flows) happens before any timer starts.
 *
 * The database is a parameter (`BenchDatabase`): SQLite files here; the same measure runs on
 * PostgreSQL once Ferry's domain code does.
 *
 * Run: npm run bench -- workers [companies]
 * Last line: {"bench":"workers","workers":3,"companies":…,"utilisation":…,"share_429":…,"duplicates":…,"lost":…,"one_worker_utilisation":…}
 */
import { FINAL_ITEM_STATES } from "@/core/migration/states";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import {
  benchCompanies,
  benchDir,
  createBenchBed,
  machineLoad,
  readyBulk,
  recordedCalls,
  runNow,
  sandboxDuplicates,
  startSandboxProcess,
  startWorkerProcess,
  statesOf,
  tearDown,
  until,
  type BenchBed,
  type SandboxProcess,
  type WorkerProcess,
} from "./_bulk";

const COMPANIES = Number(process.argv[2] ?? 1000);
const R = 100;

/** Where Ferry's database lives for a measured run, and what a worker process needs to reach it. */
export type BenchDatabase = {
  name: string;
  bed(dir: string, name: string): Promise<BenchBed>;
  workerEnv(bed: BenchBed): Record<string, string>;
};

const SQLITE: BenchDatabase = { name: "SQLite", bed: createBenchBed, workerEnv: () => ({}) };

type Measured = {
  workers: number;
  wallS: number;
  requests: number;
  recorded: number;
  rateLimited: number;
  utilisation: number;
  share429: number;
  duplicates: number;
  lost: number;
  helped: number;
};

/** One bulk run of `companies` carried out by `workers` worker processes on `database`. */
async function measure(params: { database: BenchDatabase; sandbox: SandboxProcess; dir: string; name: string; workers: number; companies: number; beds: BenchBed[]; started: WorkerProcess[] }): Promise<Measured> {
  const { database, sandbox, workers } = params;
  const bed = await database.bed(params.dir, params.name);
  params.beds.push(bed);
  const setupStart = performance.now();
  const eng = await readyBulk(bed, sandbox, benchCompanies(params.companies));
  console.log(`  set-up (not timed): ${params.companies} sandbox tenants, an engagement through steps 1–5 on ${database.name}, in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`);

  // The workers are started and idle before the run is.
  const procs = Array.from({ length: workers }, () => startWorkerProcess(bed, sandbox, database.workerEnv(bed)));
  params.started.push(...procs);
  await Promise.all(procs.map((w) => w.ready));
  const { runId } = await startBulkRun(bed.database, bed.people.support, { engagementId: eng.engagementId });
  const run = await until(
    "the bulk run to end",
    () => runNow(bed.database, runId),
    (r) => !["queued", "running"].includes(r.status),
    20 * 60_000,
  );
  if (run.status !== "completed") throw new Error(`the bulk run ended ${run.status}: ${run.statusReason}`);
  await Promise.all(
    procs.map((w) => {
      w.kill("SIGTERM");
      return w.exited;
    }),
  );

  const wallS = (run.finishedAt!.getTime() - run.requestedAt.getTime()) / 1000;
  // Read again once every worker has stopped: a helper adds its last requests as it lets go.
  const outcome = (await runNow(bed.database, runId)).outcome as { requests?: number; rateLimited?: number };
  const requests = outcome.requests ?? 0;
  const rateLimited = outcome.rateLimited ?? 0;
  const recorded = await recordedCalls(bed.database, runId);
  const states = await statesOf(bed.database, eng.engagementId);
  const notFinal = Object.entries(states)
    .filter(([state]) => !(FINAL_ITEM_STATES as readonly string[]).includes(state))
    .reduce((n, [, k]) => n + k, 0);
  const dup = await sandboxDuplicates(sandbox, eng.apiKey, eng.items.map((i) => i.id));
  return {
    workers,
    wallS,
    requests,
    recorded: recorded.all,
    rateLimited,
    utilisation: requests / R / wallS,
    share429: requests ? rateLimited / requests : 0,
    duplicates: dup.duplicateCompanies + dup.duplicateConnections,
    lost: notFinal + dup.missing,
    helped: procs.filter((w) => w.lines.some((l) => l.startsWith("helping with bulk run"))).length,
  };
}

function print(label: string, m: Measured): void {
  const pct = (x: number) => `${(100 * x).toFixed(2)} %`;
  console.log(`${label}`);
  console.log(`  wall                                 ${m.wallS.toFixed(1)} s (start control → run finished)`);
  console.log(`  requests (pacers)                    ${m.requests} (Ferry's call records: ${m.recorded})`);
  console.log(`  the limit's floor (requests ÷ R)     ${(m.requests / R).toFixed(1)} s`);
  console.log(`  utilisation (floor ÷ wall)           ${m.utilisation.toFixed(3)}   target ≥ 0.95 → ${m.utilisation >= 0.95 ? "MET" : "MISSED"}`);
  console.log(`  429s                                 ${m.rateLimited} = ${pct(m.share429)} of requests   target ≤ 1 % → ${m.share429 <= 0.01 ? "MET" : "MISSED"}`);
  console.log(`  duplicates                           ${m.duplicates}   target 0 → ${m.duplicates === 0 ? "MET" : "MISSED"}`);
  console.log(`  lost                                 ${m.lost}   target 0 → ${m.lost === 0 ? "MET" : "MISSED"}`);
  if (m.workers > 1) console.log(`  workers that helped the coordinator  ${m.helped} of ${m.workers - 1}`);
}

async function main(): Promise<void> {
  const database = SQLITE;
  const tmp = benchDir("workers");
  const sandbox = await startSandboxProcess(tmp.dir);
  const beds: BenchBed[] = [];
  const started: WorkerProcess[] = [];
  try {
    console.log(`Workers benchmark: ${COMPANIES} companies, sandbox limit R = ${R} requests/s per account, ${database.name}; ${machineLoad()} at the start`);
    await sandbox.control.setFaults({ rateLimitPerSecond: R });
    console.log(`three worker processes on one database, one target:`);
    const three = await measure({ database, sandbox, dir: tmp.dir, name: "three", workers: 3, companies: COMPANIES, beds, started });
    console.log(`one worker process (the same, on another account of the sandbox):`);
    const one = await measure({ database, sandbox, dir: tmp.dir, name: "one", workers: 1, companies: COMPANIES, beds, started });
    console.log("");
    print(`three workers, one shared budget (${database.name})`, three);
    print(`baseline: one worker (${database.name})`, one);
    console.log(`\nAt the end: ${machineLoad()}.`);
    console.log(
      JSON.stringify({
        bench: "workers",
        workers: 3,
        companies: COMPANIES,
        utilisation: Number(three.utilisation.toFixed(3)),
        share_429: Number(three.share429.toFixed(4)),
        duplicates: three.duplicates,
        lost: three.lost,
        one_worker_utilisation: Number(one.utilisation.toFixed(3)),
      }),
    );
  } finally {
    for (const w of started) {
      w.kill("SIGTERM");
      await w.exited;
    }
    await tearDown({ worker: null, beds, sandbox, tmp });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
