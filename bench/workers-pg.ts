/**
 * Ferry on PostgreSQL with several workers: a bulk run of 1,000 companies of the sandbox's default
 * volume carried out by three worker processes (`worker-main.ts`, as `npm run worker` starts them)
 * on one PostgreSQL database, against one sandbox target limited to R = 100 requests a second for
 * the account; compared in the same bench with one worker process migrating another 1,000 on
 * SQLite (the embedded default). Then a third run of 1,000 on PostgreSQL during which the three
 * workers are killed with SIGKILL 20 times, in turn, each started again a second later as the
 * supervisor does.
 *
 * PostgreSQL is a throwaway server of Debian's binaries (scripts/postgres.mjs: a temporary folder,
 * a random port; installed by apt-get as root when missing, as `npm test` does); each run has a
 * database of its own on it and is measured in a process of its own (_workers-run.ts).
 *
 * Printed for each run: wall seconds; requests; utilisation = (requests ÷ R) ÷ wall (target ≥ 0.95
 * of the limit's floor); 429s as a share of requests (≤ 1 %); duplicates — a second company for one
 * item or a second connection in one company, read through the sandbox's API (0); lost — companies
 * not final at the end or missing on the sandbox (0); for the kills, per kill, the seconds until the
 * dead worker's companies and lease were held by live workers again (resume ≤ 5 s). Duplicates and
 * lost in the last line count both PostgreSQL runs.
 *
 * Run: npm run bench -- workers-pg [companies] [kills]
 * Last line: {"bench":"workers-pg","workers":3,"companies":…,"utilisation":…,"share_429":…,"duplicates":…,"lost":…,"max_resume_s":…,"sqlite_utilisation":…}
 */
import { benchDir, machineLoad, startSandboxProcess } from "./_bulk";
import { measureRun, printRun, startThrowawayPostgres } from "./_workers";

const COMPANIES = Number(process.argv[2] ?? 1000);
const KILLS = Number(process.argv[3] ?? 20);
const R = 100;

async function main(): Promise<void> {
  const tmp = benchDir("workers-pg");
  const postgres = await startThrowawayPostgres();
  console.log(`PostgreSQL (a throwaway server of its own): ${postgres.url}`);
  const sandbox = await startSandboxProcess(tmp.dir);
  try {
    console.log(`Workers on PostgreSQL: ${COMPANIES} companies, sandbox limit R = ${R} requests/s per account; ${machineLoad()} at the start`);
    await sandbox.control.setFaults({ rateLimitPerSecond: R });
    console.log("three worker processes on one PostgreSQL database, one target:");
    const three = await measureRun({ sandbox, dir: tmp.dir, r: R, workers: 3, companies: COMPANIES, postgres: postgres.url });
    console.log("baseline: one worker process on SQLite (another account of the same sandbox):");
    const one = await measureRun({ sandbox, dir: tmp.dir, r: R, workers: 1, companies: COMPANIES });
    console.log(`three worker processes on PostgreSQL, ${KILLS} SIGKILLs spread over them (another account):`);
    const killed = await measureRun({ sandbox, dir: tmp.dir, r: R, workers: 3, companies: COMPANIES, kills: KILLS, postgres: postgres.url });
    console.log("");
    printRun("three workers, one shared budget (PostgreSQL)", three, R);
    printRun("baseline: one worker (SQLite)", one, R);
    printRun(`three workers (PostgreSQL), ${KILLS} SIGKILLs`, killed, R);
    console.log(`\nAt the end: ${machineLoad()}.`);
    console.log(
      JSON.stringify({
        bench: "workers-pg",
        workers: 3,
        companies: COMPANIES,
        utilisation: Number(three.utilisation.toFixed(3)),
        share_429: Number(three.share429.toFixed(4)),
        duplicates: three.duplicates + killed.duplicates,
        lost: three.lost + killed.lost,
        max_resume_s: Number(Math.max(0, ...killed.resumeS).toFixed(2)),
        sqlite_utilisation: Number(one.utilisation.toFixed(3)),
      }),
    );
  } finally {
    await sandbox.close();
    await postgres.stop();
    if (process.env.BENCH_KEEP) console.error(`kept ${tmp.dir}`);
    else tmp.remove();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
