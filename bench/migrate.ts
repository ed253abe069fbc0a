/**
 * The bulk run at the service's rate limit: 1,000 companies of the sandbox's default
 * volume (50 records per data type) migrated by a real worker process (`worker-main.ts`, as
 * `npm run worker` starts it) against a real sandbox in a process of its own whose per-client limit
 * is R = 100 requests a second, on real temporary SQLite files.
 *
 * Baseline, measured in the same run on the same sandbox: a plain sequential migration of 50
 * companies of another engagement — one company at a time, the same calls through `driveItem`
 * with a plain service client, no pacer, no concurrency, the same pipeline policy — scaled to 1,000.
 *
 * Printed: wall seconds (the run's start control to its recorded end); requests (the pacer's count
 * in the run's outcome, cross-checked with Ferry's record of every call); requests per company;
 * the limit's floor (requests ÷ R); utilisation = floor ÷ wall (target ≥ 0.9); 429s as a share of
 * requests (target ≤ 1 %); the sequential baseline and the speed-up over it (target ≥ 10×).
 * Set-up (1,050 sandbox tenants, steps 1–4 through their flows) happens before any timer starts.
 *
 * Run: npm run bench -- migrate
 * Last line: {"bench":"migrate","companies":1000,"wall_s":…,"requests":…,"utilisation":…,"share_429":…,"sequential_s":…,"speedup":…}
 */
import { TEST_NOTIFY } from "@/server/testing/test-db";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import { bulkPipelinePolicy } from "@/server/migration/bulk/bulk-runner";
import { claimItem, platformOf } from "@/server/migration/engine/item-repository";
import { driveItem } from "@/server/migration/engine/runner";
import { createServiceClient } from "@/server/service-client";
import { benchCompanies, benchDir, createBenchBed, machineLoad, readyBulk, recordedCalls, runNow, startSandboxProcess, startWorkerProcess, statesOf, tearDown, until } from "./_bulk";

const COMPANIES = Number(process.argv[2] ?? 1000);
const SEQUENTIAL = Math.min(Number(process.argv[3] ?? 50), COMPANIES);
const R = 100;

async function main(): Promise<void> {
  const tmp = benchDir("migrate");
  const sandbox = await startSandboxProcess(tmp.dir);
  const bed = await createBenchBed(tmp.dir, "ferry");
  const baseBed = await createBenchBed(tmp.dir, "baseline");
  let worker: ReturnType<typeof startWorkerProcess> | null = null;
  try {
    console.log(`Bulk migration benchmark: ${COMPANIES} companies of default volume, sandbox limit R = ${R} requests/s per client; ${machineLoad()} at the start`);
    const setupStart = performance.now();
    await sandbox.control.setFaults({ rateLimitPerSecond: R });
    const eng = await readyBulk(bed, sandbox, benchCompanies(COMPANIES));
    const baseEng = await readyBulk(baseBed, sandbox, benchCompanies(SEQUENTIAL));
    console.log(`Set-up (not timed): ${COMPANIES + SEQUENTIAL} sandbox tenants, two engagements through steps 1–5 in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`);

    // Baseline: one company at a time, the same calls and policy, a plain client, no pacer.
    const { runId: baseRunId } = await startBulkRun(baseBed.database, TEST_NOTIFY, baseBed.people.support, { engagementId: baseEng.engagementId });
    const baseRun = await runNow(baseBed.database, baseRunId);
    const owner = "sequential-baseline";
    const client = createServiceClient({ baseUrl: sandbox.url, apiKey: baseEng.apiKey });
    const seqStart = performance.now();
    for (const item of baseEng.items) {
      const claimed = await baseBed.database.transaction((tx) => claimItem(tx, { itemId: item.id, runId: baseRun.id, owner, leaseMs: 3_600_000, now: new Date() }), { isolation: "read committed" });
      if (!claimed?.leaseToken) throw new Error(`could not claim ${item.id}`);
      const result = await driveItem(
        {
          database: baseBed.database,
          ring: baseBed.ring,
          client,
          runId: baseRun.id,
          owner,
          engagement: { id: baseEng.engagementId, organizationId: baseEng.organizationId, reference: baseEng.reference },
          platform: platformOf(baseEng.platformKey),
          rehearsal: false,
          policy: bulkPipelinePolicy("sandbox", baseEng.platformKey),
        },
        item.id,
        claimed.leaseToken,
      );
      if (result.state !== "verified") throw new Error(`sequential baseline: ${item.name} ended ${result.state}`);
    }
    const seqS = (performance.now() - seqStart) / 1000;
    const seqCalls = await recordedCalls(baseBed.database, baseRun.id);
    const sequentialScaled = (seqS * COMPANIES) / SEQUENTIAL;

    // The bulk run through a real worker process (started and idle before the run is).
    worker = startWorkerProcess(bed, sandbox);
    await worker.ready;
    const { runId } = await startBulkRun(bed.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId });
    const run = await until(
      "the bulk run to end",
      () => runNow(bed.database, runId),
      (r) => !["queued", "running"].includes(r.status),
      20 * 60_000,
    );
    if (run.status !== "completed") throw new Error(`the bulk run ended ${run.status}: ${run.statusReason}`);
    const states = await statesOf(bed.database, eng.engagementId);
    if (states.verified !== COMPANIES) throw new Error(`expected ${COMPANIES} verified, got ${JSON.stringify(states)}`);
    const wallS = (run.finishedAt!.getTime() - run.requestedAt.getTime()) / 1000;
    const outcome = run.outcome as { requests?: number; rateLimited?: number };
    const requests = outcome.requests ?? 0;
    const rateLimited = outcome.rateLimited ?? 0;
    const recorded = await recordedCalls(bed.database, runId);
    const floorS = requests / R;
    const utilisation = floorS / wallS;
    const share429 = requests ? rateLimited / requests : 0;
    const speedup = sequentialScaled / wallS;

    const pct = (x: number) => `${(100 * x).toFixed(2)} %`;
    console.log("");
    console.log(`bulk run (worker process, pacer)      ${COMPANIES} companies, all verified`);
    console.log(`  wall                                 ${wallS.toFixed(1)} s (start control → run finished)`);
    console.log(`  requests made (pacer)                ${requests} (Ferry's call records: ${recorded.all}; 429 answers recorded: ${recorded.rateLimited})`);
    console.log(`  requests per company                 ${(requests / COMPANIES).toFixed(2)}`);
    console.log(`  the limit's floor (requests ÷ R)     ${floorS.toFixed(1)} s`);
    console.log(`  utilisation (floor ÷ wall)           ${utilisation.toFixed(3)}   target ≥ 0.9 → ${utilisation >= 0.9 ? "MET" : "MISSED"}`);
    console.log(`  429s                                 ${rateLimited} = ${pct(share429)} of requests   target ≤ 1 % → ${share429 <= 0.01 ? "MET" : "MISSED"}`);
    console.log(`baseline: sequential (one company at a time, plain client, no pacer)`);
    console.log(`  ${SEQUENTIAL} companies                         ${seqS.toFixed(1)} s, ${seqCalls.all} requests (${(seqCalls.all / SEQUENTIAL).toFixed(2)} per company)`);
    console.log(`  scaled to ${COMPANIES}                       ${sequentialScaled.toFixed(0)} s`);
    console.log(`  speed-up of the bulk run             ${speedup.toFixed(1)}×   target ≥ 10× → ${speedup >= 10 ? "MET" : "MISSED"}`);
    console.log(`\nAt the end: ${machineLoad()}.`);
    console.log(
      JSON.stringify({
        bench: "migrate",
        companies: COMPANIES,
        wall_s: Number(wallS.toFixed(1)),
        requests,
        utilisation: Number(utilisation.toFixed(3)),
        share_429: Number(share429.toFixed(4)),
        sequential_s: Number(sequentialScaled.toFixed(0)),
        speedup: Number(speedup.toFixed(1)),
      }),
    );
  } finally {
    await tearDown({ worker, beds: [bed, baseBed], sandbox, tmp });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
