/**
 * The bulk run's live progress at 100,000 companies: what the console polls every 1.5 s while a
 * run is active — the overview (run, counts per state, pace, controls) and a page of the companies
 * table (first page, one state, a search, the last page) — through the tRPC caller on a real
 * SQLite file, against the named baseline "load-all": reading every company of the engagement and
 * counting, filtering and paging in JavaScript.
 * Run: npm run bench -- bulk-progress (last line: {"bench":"bulk-progress","items":…,…})
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import { eq } from "drizzle-orm";
import { migrationItems } from "@/db/schema";
import { callerAs, testConfig } from "@/server/testing/caller";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import { createServiceTarget } from "@/server/targets/targets";
import { engagementThroughFlows, passSingleCompanyTest } from "@/server/testing/engagement-flows";
import { createTestDb, seedPeople, TEST_KEY_RING } from "@/server/testing/test-db";

const N = Number(process.argv[2] ?? 100_000);
const ITER = 40;

async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < 3; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < ITER; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

const STATES = [
  ["verified", 0.6],
  ["sync_requested", 0.12],
  ["pending", 0.2],
  ["failed", 0.05],
  ["reauth_required", 0.03],
] as const;

async function main() {
  const t = createTestDb();
  const people = await seedPeople(t.db);
  const target = await createServiceTarget(t.database, TEST_KEY_RING, null, { name: "Bench target", baseUrl: "http://127.0.0.1:9", apiKey: "bench-api-key-0001", kind: "sandbox", organizationId: people.orgA });
  const flows = await engagementThroughFlows({ db: t.db, config: testConfig(), support: people.support, customer: people.customerA, serviceTargetId: target.id });
  await passSingleCompanyTest(t.db, people.support, flows.engagementId);
  // The flows agree a window a week on: the bench starts before it, saying why as support must.
  const { runId } = startBulkRun(t.db, people.support, { engagementId: flows.engagementId, reason: "A benchmark of the progress reads, run before the window." });
  const template = t.db.select().from(migrationItems).where(eq(migrationItems.id, flows.itemIds[0]!)).get()!;

  const sqlite = t.db.$client;
  const insert = sqlite.prepare(
    `insert into migration_items (id, engagement_id, submission_id, position, source_ref, name, external_ref, records_hint, credentials_mask, state,
       company_id, connection_id, attempts, last_error, outcome_reason, run_id, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, '{}', ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  sqlite.transaction(() => {
    let cut = 0;
    for (let i = 0; i < N; i++) {
      const r = (i * 7919) % N / N;
      cut = 0;
      let state: string = STATES[0][0];
      for (const [s, share] of STATES) {
        cut += share;
        if (r < cut) {
          state = s;
          break;
        }
      }
      const migrated = state === "verified" || state === "sync_requested";
      const error = state === "failed" ? JSON.stringify({ kind: "server_error", status: 500, error: "Internal error", correlationId: `corr-${i}`, at: new Date().toISOString() }) : null;
      insert.run(
        crypto.randomUUID(),
        flows.engagementId,
        template.submissionId,
        i + 10,
        `line ${i + 12}`,
        `Company ${String(i).padStart(6, "0")}`,
        `EXT-${i}`,
        50,
        state,
        migrated ? `co-${i}` : null,
        migrated ? `conn-${i}` : null,
        state === "failed" ? 5 : 0,
        error,
        state === "reauth_required" ? "400 Bad Request: invalid_grant" : null,
        runId,
        Date.now(),
      );
    }
  })();
  sqlite.pragma("optimize");

  const support = callerAs(t.db, people.support, testConfig());
  const e = { engagementId: flows.engagementId };
  const last = Math.ceil((N + 3) / 50);
  const ours = {
    overview: await time(() => support.bulk.overview(e)),
    firstPage: await time(() => support.bulk.items({ ...e, page: 1, pageSize: 50 })),
    failedPage: await time(() => support.bulk.items({ ...e, state: "failed", page: 1, pageSize: 50 })),
    search: await time(() => support.bulk.items({ ...e, search: "Company 09999", page: 1, pageSize: 50 })),
    lastPage: await time(() => support.bulk.items({ ...e, page: last, pageSize: 50 })),
  };
  // Baseline: every company read and counted, filtered and paged in JavaScript.
  const all = () => t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, flows.engagementId)).all();
  const baseline = {
    overview: await time(() => {
      const counts: Record<string, number> = {};
      for (const row of all()) counts[row.state] = (counts[row.state] ?? 0) + 1;
      return counts;
    }),
    failedPage: await time(() => all().filter((r) => r.state === "failed").slice(0, 50)),
    search: await time(() => all().filter((r) => r.name.includes("Company 09999")).slice(0, 50)),
  };
  const f = (ms: number) => ms.toFixed(1).padStart(8);
  console.log(`${N.toLocaleString("en-GB")} companies; load average ${os.loadavg()[0]?.toFixed(2)} on ${os.cpus().length} cores; p50 of ${ITER} calls, ms`);
  console.log("what the console polls         Ferry (SQL, indexes)   baseline: load-all in JS");
  console.log(`overview (counts, pace)     ${f(ours.overview)}            ${f(baseline.overview)}`);
  console.log(`first page of companies     ${f(ours.firstPage)}`);
  console.log(`page of failed companies    ${f(ours.failedPage)}            ${f(baseline.failedPage)}`);
  console.log(`search by name              ${f(ours.search)}            ${f(baseline.search)}`);
  console.log(`last page                   ${f(ours.lastPage)}`);
  t.close();
  const r = (ms: number) => Math.round(ms * 10) / 10;
  console.log(
    JSON.stringify({
      bench: "bulk-progress",
      items: N,
      overview_ms: r(ours.overview),
      first_page_ms: r(ours.firstPage),
      state_page_ms: r(ours.failedPage),
      search_ms: r(ours.search),
      last_page_ms: r(ours.lastPage),
      baseline_overview_ms: r(baseline.overview),
    }),
  );
}

void main();
