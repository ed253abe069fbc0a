/**
 * Crash drill: a 500-company bulk run whose worker process (`worker-main.ts`, as
 * `npm run worker` starts it) is killed with SIGKILL at 20 random moments and started again each
 * time, against a real sandbox in a process of its own (R = 50 requests a second per client, so the
 * run lasts long enough for 20 kills) and a real temporary SQLite file. Each kill comes at a random
 * moment 0.3–1.5 s after the restarted worker's first successful call, so every kill lands in the
 * middle of work.
 *
 * Printed: duplicates — companies created twice for one item (the sandbox's companies per item
 * tag, read through its API) and connections created twice in one company (must be 0); lost items
 * (not in a final state when the run ends: 0); and per restart the time from the new process's
 * spawn to its first successful call (the end of the first call with ok=1 started after the
 * restart, from Ferry's call records), the longest of them (target ≤ 2 s: the restarted worker
 * finds the killed one's process gone — same host — and takes its run and companies over at once,
 * instead of waiting out its 4-second leases; engine/liveness.ts). Baseline, in the same run: the first start (the run
 * started, then the worker spawned) — the same time with no dead worker's leases in the way.
 *
 * Run: npm run bench -- crash
 * Last line: {"bench":"crash","companies":500,"kills":20,"duplicates":…,"lost":…,"max_resume_s":…,"median_resume_s":…}
 */
import { TEST_NOTIFY } from "@/server/testing/test-db";
import { and, asc, count, eq, gte, inArray } from "drizzle-orm";
import type { Database } from "@/db/database";
import { serviceCalls } from "@/db/schema";
import { FINAL_ITEM_STATES } from "@/core/migration/states";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import {
  benchCompanies,
  benchDir,
  createBenchBed,
  machineLoad,
  readyBulk,
  runNow,
  sandboxDuplicates,
  startSandboxProcess,
  startWorkerProcess,
  statesOf,
  tearDown,
  until,
  type WorkerProcess,
} from "./_bulk";

const COMPANIES = Number(process.argv[2] ?? 500);
const KILLS = Number(process.argv[3] ?? 20);
const R = 50;

/**
 * The end (epoch ms) of the first successful call of the run that started at or after `from`: the
 * earliest to end of the first calls to start (their ends worked out here, not in SQL, where a
 * timestamp plus milliseconds means something else on each database).
 */
async function firstSuccessAfter(database: Database, runId: string, from: number): Promise<number | null> {
  const first = await database.db
    .select({ at: serviceCalls.at, durationMs: serviceCalls.durationMs })
    .from(serviceCalls)
    .where(and(eq(serviceCalls.runId, runId), eq(serviceCalls.ok, true), gte(serviceCalls.at, new Date(from))))
    .orderBy(asc(serviceCalls.at))
    .limit(64);
  return first.length ? Math.min(...first.map((c) => c.at.getTime() + c.durationMs)) : null;
}

/** Lookups the pipeline made because a create was in flight when its worker died (it looks before creating again). */
async function healed(database: Database, runId: string): Promise<number> {
  const [row] = await database.db
    .select({ n: count() })
    .from(serviceCalls)
    .where(and(eq(serviceCalls.runId, runId), inArray(serviceCalls.operation, ["findCompaniesByTag", "listConnections"])));
  return row?.n ?? 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const tmp = benchDir("crash");
  const sandbox = await startSandboxProcess(tmp.dir);
  const bed = await createBenchBed(tmp.dir, "ferry");
  let worker: WorkerProcess | null = null;
  try {
    console.log(`Crash drill: ${COMPANIES} companies, the worker process SIGKILLed ${KILLS} times; sandbox limit R = ${R}/s; ${machineLoad()} at the start`);
    await sandbox.control.setFaults({ rateLimitPerSecond: R });
    const eng = await readyBulk(bed, sandbox, benchCompanies(COMPANIES));

    const { runId } = await startBulkRun(bed.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId });
    worker = startWorkerProcess(bed, sandbox);
    const active = async () => ["queued", "running"].includes((await runNow(bed.database, runId)).status);
    const starts: { at: number; kind: "first start" | "restart" }[] = [{ at: worker.spawnedAtEpoch, kind: "first start" }];
    let kills = 0;
    const restarted: WorkerProcess[] = [];
    while (kills < KILLS && (await active())) {
      // Wait for the current worker's first successful call, then kill it at a random moment after.
      const since = starts.at(-1)!.at;
      await until("the worker's first successful call", async () => (await firstSuccessAfter(bed.database, runId, since)) !== null || !(await active()), Boolean, 60_000);
      if (!(await active())) break;
      await sleep(300 + Math.random() * 1_200);
      if (!(await active())) break;
      worker.kill("SIGKILL");
      await worker.exited;
      kills += 1;
      worker = startWorkerProcess(bed, sandbox);
      restarted.push(worker);
      starts.push({ at: worker.spawnedAtEpoch, kind: "restart" });
    }
    const run = await until("the run to end", () => runNow(bed.database, runId), (r) => !["queued", "running"].includes(r.status), 15 * 60_000);
    const wallS = (run.finishedAt!.getTime() - run.requestedAt.getTime()) / 1000;

    const states = await statesOf(bed.database, eng.engagementId);
    const lost = Object.entries(states)
      .filter(([state]) => !(FINAL_ITEM_STATES as readonly string[]).includes(state))
      .reduce((n, [, k]) => n + k, 0);
    const resumes = await Promise.all(
      starts.map(async (s) => {
        const end = await firstSuccessAfter(bed.database, runId, s.at);
        return { ...s, seconds: end === null ? null : (end - s.at) / 1000 };
      }),
    );
    const restarts = resumes.filter((r) => r.kind === "restart");
    const measured = restarts.map((r) => r.seconds).filter((s): s is number => s !== null);
    const maxResume = measured.length ? Math.max(...measured) : null;
    const baseline = resumes[0]!.seconds;

    await sandbox.control.setFaults({ rateLimitPerSecond: null });
    const dup = await sandboxDuplicates(sandbox, eng.apiKey, eng.items.map((i) => i.id));
    const state = (await sandbox.control.state()) as { clients: { name: string; companies: number }[] };
    const onClient = state.clients.filter((c) => c.companies > 0).reduce((n, c) => n + c.companies, 0);
    const duplicates = dup.duplicateCompanies + dup.duplicateConnections;

    console.log("");
    console.log(`run ${run.status} in ${wallS.toFixed(1)} s with ${kills} kills; items: ${JSON.stringify(states)}`);
    console.log(`duplicates: ${dup.duplicateCompanies} companies created twice, ${dup.duplicateConnections} connections created twice → ${duplicates}   target 0 → ${duplicates === 0 ? "MET" : "MISSED"}`);
    console.log(`  (the sandbox holds ${dup.companies} companies tagged with the ${COMPANIES} items, ${dup.missing} items without one; ${onClient} companies on its clients)`);
    console.log(`  (lookups made because a kill left a create marked in flight — sent or still queued — instead of creating again: ${await healed(bed.database, runId)})`);
    console.log(`lost (not final at the end): ${lost}   target 0 → ${lost === 0 ? "MET" : "MISSED"}`);
    console.log(`restart → first successful call, per restart (s): ${restarts.map((r) => (r.seconds === null ? "–" : r.seconds.toFixed(2))).join(" ")}`);
    console.log(`  longest ${maxResume === null ? "–" : maxResume.toFixed(2)} s, median ${median(measured).toFixed(2)} s   target ≤ 2 s → ${maxResume !== null && maxResume <= 2 ? "MET" : "MISSED"}`);
    const recognised = restarted.filter((w) => w.lines.some((l) => / found dead: /.test(l))).length;
    console.log(`restarts that found their killed predecessor dead at once (its process gone) and took its leases over: ${recognised} of ${restarted.length}`);
    console.log(`baseline: the first start (no dead worker's leases) → first successful call: ${baseline === null ? "–" : baseline.toFixed(2)} s`);
    console.log(`\nAt the end: ${machineLoad()}.`);
    console.log(JSON.stringify({ bench: "crash", companies: COMPANIES, kills, duplicates, lost, max_resume_s: maxResume === null ? null : Number(maxResume.toFixed(2)), median_resume_s: measured.length ? Number(median(measured).toFixed(2)) : null }));
  } finally {
    await tearDown({ worker, beds: [bed], sandbox, tmp });
  }
}

function median(values: number[]): number {
  if (!values.length) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
