/**
 * Fault drill: a 500-company bulk run by a real worker process against a real sandbox
 * in a process of its own (R = 100 requests a second per client), on a real temporary SQLite file,
 * while the sandbox answers 10 % of requests 500 (`errorRate: 0.1`) throughout, refuses a burst
 * with 429s (its limit dropped to 2 a second for 5 s once 15 % of the companies are final) and
 * goes into a 30-second maintenance window (503, once 35 % are final). 25 of the companies' tenants
 * were rotated after the token file was exported (every 20th), on purpose.
 *
 * Every company must end in its correct final state with no manual action: `verified` for a good
 * tenant (its connection Linked, its sync finished, its data read with the tenant's 50 records, and
 * exactly one company with one connection on the sandbox for it), `reconnect_pending` (refused with the
 * platform's invalid_grant, then handed to its end customer) for a rotated one. Manual actions: audit events by a person on the
 * engagement after the run's start (pause, resume, retry, set aside…): must be 0. Baseline, in the
 * same run: the limit's floor for the requests made plus the two fault windows, against the wall
 * time; also printed, what the faults cost (500s, 429s and 503s answered, attempts).
 *
 * Run: npm run bench -- faults
 * Last line: {"bench":"faults","companies":500,"correct":…,"wrong":…,"manual_actions":0}
 */
import { TEST_NOTIFY } from "@/server/testing/test-db";
import { and, count, desc, eq, gt, isNotNull, lte } from "drizzle-orm";
import { auditEvents, migrationItems, serviceCalls } from "@/db/schema";
import type { ItemChecks } from "@/server/migration/engine/pipeline";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import { FINAL_ITEM_STATES } from "@/core/migration/states";
import {
  benchCompanies,
  benchDir,
  createBenchBed,
  machineLoad,
  readyBulk,
  runNow,
  recordedCalls,
  sandboxDuplicates,
  startSandboxProcess,
  startWorkerProcess,
  statesOf,
  tearDown,
  until,
  type WorkerProcess,
} from "./_bulk";

const COMPANIES = Number(process.argv[2] ?? 500);
const R = 100;
const RECORDS = 50;
const BURST = { atFinished: 0.15, limit: 2, seconds: 5 };
const MAINTENANCE = { atFinished: 0.35, seconds: 30 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const tmp = benchDir("faults");
  const sandbox = await startSandboxProcess(tmp.dir);
  const bed = await createBenchBed(tmp.dir, "ferry");
  let worker: WorkerProcess | null = null;
  try {
    console.log(
      `Fault drill: ${COMPANIES} companies (every 20th rotated after the export), 10 % injected 500s, a ${BURST.seconds}-second burst of 429s, a ${MAINTENANCE.seconds}-second maintenance window; sandbox limit R = ${R}/s; ${machineLoad()} at the start`,
    );
    await sandbox.control.setFaults({ rateLimitPerSecond: R });
    const eng = await readyBulk(bed, sandbox, benchCompanies(COMPANIES, (i) => ({ records: RECORDS, ...((i + 1) % 20 === 0 ? { rotatedAfterExport: true } : {}) })));
    const rotated = new Set(eng.items.filter((_, i) => (i + 1) % 20 === 0).map((it) => it.id));

    await sandbox.control.setFaults({ errorRate: 0.1 });
    const { runId } = await startBulkRun(bed.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId });
    const startedAt = new Date();
    worker = startWorkerProcess(bed, sandbox);
    const finished = async () => {
      const s = await statesOf(bed.database, eng.engagementId);
      return FINAL_ITEM_STATES.reduce((n, st) => n + (s[st] ?? 0), 0);
    };

    // The burst of 429s.
    await until("15 % of companies final", finished, (n) => n >= BURST.atFinished * COMPANIES, 10 * 60_000);
    const burstAt = Date.now();
    await sandbox.control.setFaults({ rateLimitPerSecond: BURST.limit });
    await sleep(BURST.seconds * 1000);
    await sandbox.control.setFaults({ rateLimitPerSecond: R });
    const burstEnd = Date.now();

    // The maintenance window; the run's screens must say so meanwhile.
    await until("35 % of companies final", finished, (n) => n >= MAINTENANCE.atFinished * COMPANIES, 10 * 60_000);
    await sandbox.control.setFaults({ maintenance: true });
    const maintenanceAt = Date.now();
    let holdShown: string | null = null;
    while (Date.now() - maintenanceAt < MAINTENANCE.seconds * 1000) {
      const hold = ((await runNow(bed.database, runId)).outcome as { hold?: { kind: string } }).hold;
      if (hold) holdShown = hold.kind;
      await sleep(500);
    }
    await sandbox.control.setFaults({ maintenance: false });
    const finishedAtMaintenanceEnd = await finished();

    const run = await until("the run to end", () => runNow(bed.database, runId), (r) => !["queued", "running"].includes(r.status), 15 * 60_000);
    const wallS = (run.finishedAt!.getTime() - run.requestedAt.getTime()) / 1000;
    await sandbox.control.setFaults({ errorRate: 0, rateLimitPerSecond: null });

    // Each company's final state against the one it must have.
    const rows = await bed.database.db.select().from(migrationItems).where(eq(migrationItems.engagementId, eng.engagementId));
    const wrong: string[] = [];
    for (const row of rows) {
      const checks = (row.checks ?? {}) as ItemChecks;
      if (rotated.has(row.id)) {
        // Refused on their tokens, then handed to their end customers with their reconnect links when the run ended.
        if (row.state !== "reconnect_pending" || !/invalid_grant/.test(row.outcomeReason ?? "")) wrong.push(`${row.name}: ${row.state} (${row.outcomeReason ?? "no reason"}), expected reconnect_pending`);
      } else if (row.state !== "verified" || checks.connection?.status !== "Linked" || !checks.sync?.finishedAt || checks.read?.records !== RECORDS) {
        wrong.push(`${row.name}: ${row.state}, connection ${checks.connection?.status ?? "–"}, read ${checks.read?.records ?? "–"} (${row.outcomeReason ?? ""}), expected verified with ${RECORDS} records`);
      }
    }
    const dup = await sandboxDuplicates(sandbox, eng.apiKey, eng.items.map((i) => i.id));
    for (let i = 0; i < dup.duplicateCompanies + dup.duplicateConnections; i++) wrong.push("a duplicate on the sandbox");
    const correct = rows.length - Math.min(rows.length, wrong.length);
    const [manual] = await bed.database.db
      .select({ n: count() })
      .from(auditEvents)
      .where(and(eq(auditEvents.engagementId, eng.engagementId), isNotNull(auditEvents.actorId), gt(auditEvents.at, startedAt)));
    const manualActions = manual?.n ?? 0;

    const outcome = run.outcome as { requests?: number; rateLimited?: number };
    const calls = await recordedCalls(bed.database, runId);
    const byStatus = Object.fromEntries(
      (
        await bed.database.db
          .select({ status: serviceCalls.status, n: count() })
          .from(serviceCalls)
          .where(and(eq(serviceCalls.runId, runId), eq(serviceCalls.ok, false)))
          .groupBy(serviceCalls.status)
      ).map((r) => [String(r.status ?? "none"), r.n]),
    );
    const [most] = await bed.database.db
      .select({ n: count() })
      .from(serviceCalls)
      .where(and(eq(serviceCalls.runId, runId), eq(serviceCalls.status, 500)))
      .groupBy(serviceCalls.itemId)
      .orderBy(desc(count()))
      .limit(1);
    const most500 = most?.n ?? 0;
    // Requests in flight when the limit dropped count too (a call's `at` is when it was made).
    const burst429 = await db429Between(runId, burstAt - 2_000, burstEnd + 2_000);

    console.log("");
    console.log(`run ${run.status} in ${wallS.toFixed(1)} s by itself; items: ${JSON.stringify(await statesOf(bed.database, eng.engagementId))}`);
    console.log(`faults met: ${byStatus["500"] ?? 0} answers 500, ${byStatus["429"] ?? 0} answers 429 (${burst429} during the burst), ${byStatus["503"] ?? 0} answers 503; the screens showed the hold "${holdShown ?? "none"}" during maintenance; ${finishedAtMaintenanceEnd} companies final when it ended`);
    console.log(`requests: ${outcome.requests ?? 0} (Ferry's call records: ${calls.all}); 429 share ${(((outcome.rateLimited ?? 0) / Math.max(1, outcome.requests ?? 0)) * 100).toFixed(2)} %; the most 500s met by one company: ${most500}`);
    console.log(`baseline: the limit's floor for these requests is ${((outcome.requests ?? 0) / R).toFixed(1)} s + the ${MAINTENANCE.seconds} s window + the ${BURST.seconds} s burst = ${((outcome.requests ?? 0) / R + MAINTENANCE.seconds + BURST.seconds).toFixed(1)} s, against ${wallS.toFixed(1)} s measured`);
    console.log(`correct final states: ${correct} of ${rows.length} (${rows.length - rotated.size} verified with their data, ${rotated.size} reconnect_pending expected: refused on their tokens, with their end customers); wrong: ${wrong.length}`);
    for (const w of wrong.slice(0, 10)) console.log(`  wrong: ${w}`);
    console.log(`manual actions: ${manualActions}   target: every company correct with none → ${wrong.length === 0 && manualActions === 0 && run.status === "completed" ? "MET" : "MISSED"}`);
    console.log(`\nAt the end: ${machineLoad()}.`);
    console.log(JSON.stringify({ bench: "faults", companies: COMPANIES, correct, wrong: wrong.length, manual_actions: manualActions }));

    async function db429Between(id: string, from: number, to: number): Promise<number> {
      const [row] = await bed.database.db
        .select({ n: count() })
        .from(serviceCalls)
        .where(and(eq(serviceCalls.runId, id), eq(serviceCalls.status, 429), gt(serviceCalls.at, new Date(from)), lte(serviceCalls.at, new Date(to))));
      return row?.n ?? 0;
    }
  } finally {
    await tearDown({ worker, beds: [bed], sandbox, tmp });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
