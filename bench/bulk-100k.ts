/**
 * The engine at 100,000 companies: a bulk run of N companies of small volume (1 record per data
 * type, syncs `instant` on the sandbox) carried out by one real worker process (`worker-main.ts`, as
 * `npm run worker` starts it) against a real sandbox in a process of its own whose per-client limit
 * is R requests a second, on a real temporary SQLite file. While the run goes, the bench samples the
 * worker's resident memory (/proc/<pid>/status, every second) and polls what the console polls
 * (the bulk panel's overview and first page of companies, through the tRPC caller on a connection
 * of its own, as the web process reads) every 1.5 s.
 *
 * Printed: wall (the start control to the run's recorded end); requests (the pacer's count, and
 * Ferry's call records); utilisation of the limit = requests ÷ (R × wall) (target ≥ 0.95); the
 * worker's RSS, its largest and its growth from the first tenth of the run to the end (the median
 * of the last tenth's samples less the first tenth's; targets < 300 MB and < 50 MB); the poll's
 * p50 during the run (target < 50 ms); duplicates — companies created twice for an item, or
 * connections twice in a company, read from the sandbox's own database file (0); lost — companies not final
 * at the end (0). Set-up (N sandbox tenants, steps 1–5 through their flows) is not timed.
 *
 * Run: npm run bench -- bulk-100k [N=100000] [R=200] (what a 2-core machine sustains beside its sandbox)
 * Last line: {"bench":"bulk-100k","companies":…,"rate":…,"utilisation":…,"worker_rss_max_mb":…,"worker_rss_growth_mb":…,"poll_p50_ms":…,"duplicates":…,"lost":…}
 */
import { TEST_NOTIFY } from "@/server/testing/test-db";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { FINAL_ITEM_STATES } from "@/core/migration/states";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import { callerAs, testConfig } from "@/server/testing/caller";
import { benchCompanies, benchDir, createBenchBed, machineLoad, readyBulk, recordedCalls, runNow, startSandboxProcess, startWorkerProcess, statesOf, tearDown, type WorkerProcess } from "./_bulk";

const COMPANIES = Number(process.argv[2] ?? 100_000);
const R = Number(process.argv[3] ?? 200);
const POLL_EVERY_MS = 1_500;

/** The process's resident set in MB (Linux), or null once it is gone. */
function rssMb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

function quantile(values: number[], q: number): number {
  if (!values.length) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Duplicates as the sandbox stores them, read from its own database file (read-only, beside the
 * running sandbox): companies per item tag, connections per company. Through its API (one tag
 * lookup per item, as the crash drill does) 100,000 items take hours on 2 cores.
 */
function sandboxFileDuplicates(file: string, engagementId: string, itemIds: readonly string[]): { companies: number; duplicateCompanies: number; duplicateConnections: number; missing: number } {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db
      .prepare<[string], { id: string; item: string | null }>("SELECT id, json_extract(tags, '$.ferryItem') AS item FROM companies WHERE json_extract(tags, '$.ferryEngagement') = ?")
      .all(engagementId);
    const perItem = new Map<string, number>();
    for (const r of rows) if (r.item) perItem.set(r.item, (perItem.get(r.item) ?? 0) + 1);
    const ours = new Set(rows.map((r) => r.id));
    const extraConnections = db
      .prepare<[], { companyId: string; n: number }>("SELECT company_id AS companyId, COUNT(*) AS n FROM connections GROUP BY company_id HAVING COUNT(*) > 1")
      .all()
      .filter((c) => ours.has(c.companyId))
      .reduce((n, c) => n + c.n - 1, 0);
    return {
      companies: rows.length,
      duplicateCompanies: [...perItem.values()].reduce((n, k) => n + Math.max(0, k - 1), 0),
      duplicateConnections: extraConnections,
      missing: itemIds.filter((id) => !perItem.has(id)).length,
    };
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const tmp = benchDir("bulk-100k");
  const sandbox = await startSandboxProcess(tmp.dir);
  const bed = await createBenchBed(tmp.dir, "ferry");
  let worker: WorkerProcess | null = null;
  try {
    console.log(`Bulk run at scale: ${COMPANIES.toLocaleString("en-GB")} companies of 1 record per data type, syncs instant; sandbox limit R = ${R}/s; ${machineLoad()} at the start`);
    const setupStart = performance.now();
    const eng = await readyBulk(bed, sandbox, benchCompanies(COMPANIES, () => ({ records: 1 })));
    await sandbox.control.setFaults({ rateLimitPerSecond: R });
    console.log(`Set-up (not timed): ${COMPANIES.toLocaleString("en-GB")} sandbox tenants, the engagement through steps 1–5 in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`);

    worker = startWorkerProcess(bed, sandbox);
    await worker.ready;
    const pid = worker.child.pid!;
    const { runId } = await startBulkRun(bed.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId });
    const startedAt = Date.now();

    // Sampled while the run goes: the worker's memory every second, the console's poll every 1.5 s.
    const rss: { at: number; mb: number }[] = [];
    const polls: number[] = [];
    const support = callerAs(bed.database, bed.people.support, testConfig());
    const e = { engagementId: eng.engagementId };
    let running = true;
    const sampler = (async () => {
      while (running) {
        const mb = rssMb(pid);
        if (mb !== null) rss.push({ at: Date.now(), mb });
        await sleep(1_000);
      }
    })();
    const poller = (async () => {
      while (running) {
        const t0 = performance.now();
        await support.bulk.overview(e);
        await support.bulk.items({ ...e, page: 1, pageSize: 50 });
        polls.push(performance.now() - t0);
        await sleep(POLL_EVERY_MS);
      }
    })();
    let lastLog = Date.now();
    let run = await runNow(bed.database, runId);
    while (["queued", "running"].includes(run.status)) {
      await sleep(1_000);
      run = await runNow(bed.database, runId);
      if (Date.now() - lastLog >= 30_000) {
        lastLog = Date.now();
        const sent = (run.outcome as { requests?: number }).requests ?? 0;
        console.log(`  ${((Date.now() - startedAt) / 1000).toFixed(0)} s: ${sent} requests (${(sent / ((Date.now() - startedAt) / 1000)).toFixed(0)}/s), worker RSS ${rss.at(-1)?.mb.toFixed(0)} MB, poll p50 ${quantile(polls, 0.5).toFixed(1)} ms`);
      }
    }
    running = false;
    await Promise.all([sampler, poller]);
    if (run.status !== "completed") throw new Error(`the bulk run ended ${run.status}: ${run.statusReason}`);

    const wallS = (run.finishedAt!.getTime() - run.requestedAt.getTime()) / 1000;
    const requests = (run.outcome as { requests?: number }).requests ?? 0;
    const recorded = await recordedCalls(bed.database, runId);
    const utilisation = requests / (R * wallS);
    const states = await statesOf(bed.database, eng.engagementId);
    const lost = Object.entries(states)
      .filter(([state]) => !(FINAL_ITEM_STATES as readonly string[]).includes(state))
      .reduce((n, [, k]) => n + k, 0);
    const span = Math.max(1, (rss.at(-1)?.at ?? startedAt) - startedAt);
    const firstTenth = rss.filter((s) => s.at - startedAt <= span / 10).map((s) => s.mb);
    const lastTenth = rss.filter((s) => s.at - startedAt >= (span * 9) / 10).map((s) => s.mb);
    const rssMax = Math.max(...rss.map((s) => s.mb));
    const growth = quantile(lastTenth, 0.5) - quantile(firstTenth, 0.5);
    const pollP50 = quantile(polls, 0.5);

    const dup = sandboxFileDuplicates(path.join(tmp.dir, "sandbox.db"), eng.engagementId, eng.items.map((i) => i.id));
    const duplicates = dup.duplicateCompanies + dup.duplicateConnections;

    const met = (ok: boolean) => (ok ? "MET" : "MISSED");
    console.log("");
    console.log(`run ${run.status} in ${wallS.toFixed(1)} s; items: ${JSON.stringify(states)}`);
    console.log(`requests ${requests} (pacer; Ferry's call records ${recorded.all}, 429s recorded ${recorded.rateLimited}), ${(requests / COMPANIES).toFixed(2)} per company`);
    console.log(`utilisation of the limit: ${requests} ÷ (${R}/s × ${wallS.toFixed(1)} s) = ${utilisation.toFixed(3)}   target ≥ 0.95 → ${met(utilisation >= 0.95)}`);
    console.log(`worker RSS: ${rss.length} samples, first tenth median ${quantile(firstTenth, 0.5).toFixed(0)} MB, last tenth median ${quantile(lastTenth, 0.5).toFixed(0)} MB, max ${rssMax.toFixed(0)} MB   targets max < 300 MB → ${met(rssMax < 300)}, growth ${growth.toFixed(1)} MB < 50 MB → ${met(growth < 50)}`);
    console.log(`progress poll (overview + first page) during the run: ${polls.length} polls, p50 ${pollP50.toFixed(1)} ms, p95 ${quantile(polls, 0.95).toFixed(1)} ms   target p50 < 50 ms → ${met(pollP50 < 50)}`);
    console.log(`duplicates: ${dup.duplicateCompanies} companies and ${dup.duplicateConnections} connections created twice (${dup.missing} items without a company) → ${duplicates}   target 0 → ${met(duplicates === 0)}`);
    console.log(`lost (not final at the end): ${lost}   target 0 → ${met(lost === 0)}`);
    console.log(`\nAt the end: ${machineLoad()}.`);
    console.log(
      JSON.stringify({
        bench: "bulk-100k",
        companies: COMPANIES,
        rate: R,
        utilisation: Number(utilisation.toFixed(3)),
        worker_rss_max_mb: Math.round(rssMax),
        worker_rss_growth_mb: Number(growth.toFixed(1)),
        poll_p50_ms: Number(pollP50.toFixed(1)),
        duplicates,
        lost,
      }),
    );
  } finally {
    await tearDown({ worker, beds: [bed], sandbox, tmp });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
