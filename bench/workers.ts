/**
 * Several workers, one rate budget: a bulk run of 1,000 companies of the sandbox's default volume
 * carried out by three worker processes (`worker-main.ts`, as `npm run worker` starts them) on one
 * SQLite database, against one sandbox target (a sandbox process of its own, limited to R = 100
 * requests a second for the account), compared in the same run with one worker process migrating
 * another 1,000 companies on another account of the same sandbox. (workers-pg.ts does the same on
 * PostgreSQL, with worker kills.)
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
 * Each run is measured in a process of its own (_workers-run.ts).
 *
 * Run: npm run bench -- workers [companies]
 * Last line: {"bench":"workers","workers":3,"companies":…,"utilisation":…,"share_429":…,"duplicates":…,"lost":…,"one_worker_utilisation":…}
 */
import { benchDir, machineLoad, startSandboxProcess } from "./_bulk";
import { measureRun, printRun } from "./_workers";

const COMPANIES = Number(process.argv[2] ?? 1000);
const R = 100;

async function main(): Promise<void> {
  const tmp = benchDir("workers");
  const sandbox = await startSandboxProcess(tmp.dir);
  try {
    console.log(`Workers benchmark: ${COMPANIES} companies, sandbox limit R = ${R} requests/s per account, SQLite; ${machineLoad()} at the start`);
    await sandbox.control.setFaults({ rateLimitPerSecond: R });
    console.log(`three worker processes on one database, one target:`);
    const three = await measureRun({ sandbox, dir: tmp.dir, r: R, workers: 3, companies: COMPANIES });
    console.log(`one worker process (the same, on another account of the sandbox):`);
    const one = await measureRun({ sandbox, dir: tmp.dir, r: R, workers: 1, companies: COMPANIES });
    console.log("");
    printRun("three workers, one shared budget (SQLite)", three, R);
    printRun("baseline: one worker (SQLite)", one, R);
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
    await sandbox.close();
    if (process.env.BENCH_KEEP) console.error(`kept ${tmp.dir}`);
    else tmp.remove();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
