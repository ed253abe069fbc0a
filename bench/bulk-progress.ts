/**
 * The bulk run's live progress at 100,000 companies: what the console polls every 1.5 s while a
 * run is active — the overview (run, counts per state, pace, controls) and a page of the companies
 * table (first page, one state, a search, the last page) — through the tRPC caller on a real
 * database (a SQLite file; PostgreSQL with DATABASE_URL), against the named baseline "load-all":
 * reading every company of the engagement and counting, filtering and paging in JavaScript.
 * Run: npm run bench -- bulk-progress (last line: {"bench":"bulk-progress","items":…,…})
 */
import os from "node:os";
import { performance } from "node:perf_hooks";
import { eq, sql } from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import { q } from "@/db/database";
import { migrationItems } from "@/db/schema";
import { callerAs, testConfig } from "@/server/testing/caller";
import type { MigrationItemState } from "@/core/migration/states";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import { createServiceTarget } from "@/server/targets/targets";
import { engagementThroughFlows, passSingleCompanyTest } from "@/server/testing/engagement-flows";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type TestDatabase, TEST_NOTIFY } from "@/server/testing/test-db";

const N = Number(process.argv[2] ?? 100_000);
const ITER = 40;
/** A sealed credential envelope of realistic size (a row of the real table carries one). */
const FILLER = "v1:" + "x".repeat(900);

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

/** Fresh planner statistics after the bulk insert, as each database gathers them. */
async function analyse(t: TestDatabase): Promise<void> {
  if (t.dialect === "sqlite") await t.db.run(sql`pragma optimize`);
  else await (t.db as unknown as NodePgDatabase).execute(sql`analyze migration_items`);
}

async function main() {
  const t = await createTestDatabase();
  const people = await seedPeople(t.database);
  const target = await createServiceTarget(t.database, TEST_KEY_RING, null, { name: "Bench target", baseUrl: "http://127.0.0.1:9", apiKey: "bench-api-key-0001", kind: "sandbox", organizationId: people.orgA });
  const flows = await engagementThroughFlows({ db: t.database, config: testConfig(), support: people.support, customer: people.customerA, serviceTargetId: target.id });
  await passSingleCompanyTest(t.database, people.support, flows.engagementId);
  // The flows agree a window a week on: the bench starts before it, saying why as support must.
  const { runId } = await startBulkRun(t.database, TEST_NOTIFY, people.support, { engagementId: flows.engagementId, reason: "A benchmark of the progress reads, run before the window." });
  const [template] = await t.db.select().from(migrationItems).where(eq(migrationItems.id, flows.itemIds[0]!)).limit(1);

  const rows: (typeof migrationItems.$inferInsert)[] = [];
  for (let i = 0; i < N; i++) {
    const r = ((i * 7919) % N) / N;
    let cut = 0;
    let state: MigrationItemState = STATES[0][0];
    for (const [st, share] of STATES) {
      cut += share;
      if (r < cut) {
        state = st;
        break;
      }
    }
    const migrated = state === "verified" || state === "sync_requested";
    rows.push({
      id: crypto.randomUUID(),
      engagementId: flows.engagementId,
      submissionId: template!.submissionId,
      position: i + 10,
      sourceRef: `line ${i + 12}`,
      name: `Company ${String(i).padStart(6, "0")}`,
      externalRef: `EXT-${i}`,
      recordsHint: 50,
      credentialsMask: {},
      credentialsCipher: FILLER,
      checks: migrated ? { connection: { status: "Linked" }, sync: { finishedAt: "2026-11-28T10:00:00Z" }, dataTypes: [{ dataType: "invoices", totalResults: 1 }] } : null,
      state,
      companyId: migrated ? `co-${i}` : null,
      connectionId: migrated ? `conn-${i}` : null,
      attempts: state === "failed" ? 5 : 0,
      lastError: state === "failed" ? { kind: "server_error", status: 500, error: "Internal error", correlationId: `corr-${i}`, at: new Date().toISOString() } : null,
      outcomeReason: state === "reauth_required" ? "400 Bad Request: invalid_grant" : null,
      runId,
      updatedAt: new Date(),
    });
  }
  // One transaction, a few hundred rows a statement (within either database's limit on parameters).
  await t.database.transaction(
    function* (tx) {
      for (let start = 0; start < rows.length; start += 500) yield* q.run(tx.insert(migrationItems).values(rows.slice(start, start + 500)));
    },
    { isolation: "read committed" },
  );
  await analyse(t);

  const support = callerAs(t.database, people.support, testConfig());
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
  const all = () => t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, flows.engagementId));
  const baseline = {
    overview: await time(async () => {
      const counts: Record<string, number> = {};
      for (const row of await all()) counts[row.state] = (counts[row.state] ?? 0) + 1;
      return counts;
    }),
    failedPage: await time(async () => (await all()).filter((r) => r.state === "failed").slice(0, 50)),
    search: await time(async () => (await all()).filter((r) => r.name.includes("Company 09999")).slice(0, 50)),
  };
  const f = (ms: number) => ms.toFixed(1).padStart(8);
  console.log(`${N.toLocaleString("en-GB")} companies; load average ${os.loadavg()[0]?.toFixed(2)} on ${os.cpus().length} cores; p50 of ${ITER} calls, ms`);
  console.log("what the console polls         Ferry (SQL, indexes)   baseline: load-all in JS");
  console.log(`overview (counts, pace)     ${f(ours.overview)}            ${f(baseline.overview)}`);
  console.log(`first page of companies     ${f(ours.firstPage)}`);
  console.log(`page of failed companies    ${f(ours.failedPage)}            ${f(baseline.failedPage)}`);
  console.log(`search by name              ${f(ours.search)}            ${f(baseline.search)}`);
  console.log(`last page                   ${f(ours.lastPage)}`);
  await t.close();
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
