/**
 * The engagement list with 10,000 engagements: latency of one page (server-side filters, search,
 * counts per step, pagination) through the tRPC caller, against the named baseline "load-all":
 * reading every engagement and filtering, counting and paging in JavaScript.
 * Run: npx tsx bench/engagement-list.ts [engagements=10000]
 */
import { performance } from "node:perf_hooks";
import { eq } from "drizzle-orm";
import { engagements, organizations, users } from "@/db/schema";
import { callerAs } from "@/server/testing/caller";
import { createTestDb, seedPeople } from "@/server/testing/test-db";
import { MANAGED_PLATFORM_KEYS } from "@/server/platforms";

const N = Number(process.argv[2] ?? 10_000);
const ITER = 60;

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

async function time(fn: () => Promise<unknown> | unknown): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 5; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < ITER; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}

async function main() {
  const t = createTestDb();
  const people = await seedPeople(t.db);
  const sqlite = t.db.$client;
  const orgIds: string[] = [];
  const insertOrg = sqlite.prepare("insert into organizations (id, name, created_at) values (?, ?, ?)");
  sqlite.transaction(() => {
    for (let i = 0; i < 2000; i++) {
      const id = crypto.randomUUID();
      insertOrg.run(id, `Customer ${i} Ltd`, Date.now());
      orgIds.push(id);
    }
  })();
  const owners = [people.support.id, people.support2.id, people.admin.id];
  const insertEng = sqlite.prepare(
    "insert into engagements (id, reference, organization_id, platform_key, owner_id, status, current_step, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const insertStep = sqlite.prepare("insert into engagement_steps (engagement_id, step, state, updated_at) values (?, ?, ?, ?)");
  const statuses = ["active", "active", "active", "on_hold", "completed", "cancelled"] as const;
  const t0 = performance.now();
  sqlite.transaction(() => {
    for (let i = 0; i < N; i++) {
      const id = crypto.randomUUID();
      const step = 1 + (i % 7);
      const now = Date.now() - i * 60_000;
      insertEng.run(id, `FER-${10001 + i}`, orgIds[i % orgIds.length], MANAGED_PLATFORM_KEYS[i % 6], owners[i % 3], statuses[i % 6], step, now, now);
      for (let s = 1; s <= 6; s++) insertStep.run(id, s, s < step ? "done" : "pending", now);
    }
  })();
  console.log(`Seeded ${N} engagements (${orgIds.length} organisations) in ${(performance.now() - t0).toFixed(0)} ms\n`);

  const caller = callerAs(t.db, people.support);
  const cases: [string, Parameters<typeof caller.engagements.list>[0]][] = [
    ["first page, no filter", { page: 1, pageSize: 25 }],
    ["filter: step 3", { step: 3, page: 1, pageSize: 25 }],
    ["filter: active + owner", { status: ["active"], ownerId: people.support2.id, page: 1, pageSize: 25 }],
    ["filter: platform", { platformKey: "qhyg", page: 1, pageSize: 25 }],
    ["search: organisation name", { search: "Customer 1234", page: 1, pageSize: 25 }],
    ["search: reference", { search: "FER-15000", page: 1, pageSize: 25 }],
    ["deep page (page 300)", { page: 300, pageSize: 25 }],
  ];

  // Baseline "load-all": every row with its organisation and owner, then filter/count/page in JS.
  const loadAll = (filter: { step?: number; search?: string; page: number; pageSize: number }) => {
    const rows = t.db
      .select({ e: engagements, orgName: organizations.name, ownerName: users.name })
      .from(engagements)
      .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
      .innerJoin(users, eq(users.id, engagements.ownerId))
      .all();
    const q = filter.search?.toLowerCase();
    const matching = rows.filter((r) => !q || r.orgName.toLowerCase().includes(q) || r.e.reference.toLowerCase().includes(q));
    const counts: Record<number, number> = {};
    for (const r of matching) counts[r.e.currentStep] = (counts[r.e.currentStep] ?? 0) + 1;
    const stepped = filter.step ? matching.filter((r) => r.e.currentStep === filter.step) : matching;
    stepped.sort((a, b) => b.e.updatedAt.getTime() - a.e.updatedAt.getTime());
    return { total: stepped.length, counts, items: stepped.slice((filter.page - 1) * filter.pageSize, filter.page * filter.pageSize) };
  };

  console.log("case                          ferry p50   ferry p99   load-all p50   speed-up");
  const figures: Record<string, number> = {};
  for (const [name, input] of cases) {
    const ferry = await time(() => caller.engagements.list(input));
    const base = await time(() => loadAll(input as { page: number; pageSize: number }));
    console.log(
      `${name.padEnd(30)}${ferry.p50.toFixed(2).padStart(8)} ms${ferry.p99.toFixed(2).padStart(9)} ms${base.p50.toFixed(2).padStart(12)} ms${(base.p50 / ferry.p50).toFixed(1).padStart(9)}×`,
    );
    figures.worst_p50_ms = Math.max(figures.worst_p50_ms ?? 0, ferry.p50);
    figures.worst_p99_ms = Math.max(figures.worst_p99_ms ?? 0, ferry.p99);
    figures.baseline_worst_p50_ms = Math.max(figures.baseline_worst_p50_ms ?? 0, base.p50);
  }
  const rss = process.memoryUsage().rss / 1024 / 1024;
  console.log(`\nTarget: a page in under 50 ms p99 with ${N} engagements. RSS ${rss.toFixed(0)} MB.`);
  t.close();
  const r = (ms: number) => Math.round(ms * 100) / 100;
  console.log(
    JSON.stringify({
      bench: "engagement-list",
      engagements: N,
      worst_p50_ms: r(figures.worst_p50_ms ?? 0),
      worst_p99_ms: r(figures.worst_p99_ms ?? 0),
      baseline_worst_p50_ms: r(figures.baseline_worst_p50_ms ?? 0),
      peak_rss_mb: Math.round(rss),
    }),
  );
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
