/**
 * The hypercare watch at 10,000 migrated companies: a real sandbox in a process of its own holds
 * the companies (each with a Linked connection, tagged with its engagement), Ferry's real SQLite
 * file holds them verified after a real bulk run and the handover report, and the watcher (the
 * one every worker runs) checks them for the 7 hypercare days on the sandbox's clock, moved forward
 * to each due check. Connections drop on the platform at random moments of random days (the
 * sandbox's scheduled drops); the end customers do not reconnect during the bench, so from the
 * first drop on the watch also looks up the waiting companies every 5 minutes between its daily
 * listings, at the real service's pace.
 *
 * Counted: every HTTP request the watcher makes (its fetch), per simulated day, against the
 * service's published daily quota for the account (1,000 × (1 + connected companies)); each drop's
 * detection delay on the sandbox's clock (drop → the check that reported it); drops never reported.
 *
 * Baseline, measured in the same run: "one call per company", a check that reads each company's
 * connections with its own request (GET /companies/{id}/connections), once, timed and counted,
 * against the daily listing's pages.
 *
 * Run: npm run bench -- watch [companies] [drops]
 * Last line: {"bench":"watch","companies":…,"days":…,"requests":…,"quota_share":…,"missed":…,"detect_s":…}
 */
import { readSteps } from "@/db/database";
import { performance } from "node:perf_hooks";
import { and, eq, isNotNull } from "drizzle-orm";
import { migrationItems, watches } from "@/db/schema";
import { confirmHandover } from "@/server/migration/handover/confirm-handover";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import { findRun } from "@/server/migration/engine/run-repository";
import { createMigrationWorker } from "@/server/migration/migration-worker";
import { ENGAGEMENT_TAG } from "@/server/migration/engine/pipeline";
import { createWatcher } from "@/server/migration/watch/watcher";
import { DAY_MS, pagesFor, RECONNECT_EVERY_MS, WATCH_QUOTA_SHARE } from "@/server/migration/watch/watch-rules";
import { serviceTargets } from "@/db/schema";
import { createServiceClient } from "@/server/service-client";
import { REAL_SERVICE_LIMITS } from "@/server/intake";
import { TEST_KEY_RING, TEST_NOTIFY } from "@/server/testing/test-db";
import { benchCompanies, benchDir, createBenchBed, machineLoad, readyBulk, startSandboxProcess, tearDown, until } from "./_bulk";

const COMPANIES = Number(process.argv[2] ?? 10_000);
const DROPS = Number(process.argv[3] ?? 12);
const DAYS = 7;

/** A small seeded generator, so a run's drops can be told again (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function inParallel<T>(items: readonly T[], width: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < items.length; i = next++) await fn(items[i]!, i);
    }),
  );
}

async function main(): Promise<void> {
  const tmp = benchDir("watch");
  const sandbox = await startSandboxProcess(tmp.dir);
  const bed = await createBenchBed(tmp.dir, "ferry");
  try {
    console.log(`Hypercare watch benchmark: ${COMPANIES} migrated companies, ${DAYS} simulated days, ${DROPS} drops; ${machineLoad()} at the start`);
    const setupStart = performance.now();
    await sandbox.control.setFaults({ rateLimitPerSecond: null });
    // A real bulk run of a small engagement (its two companies through the pipeline on the sandbox).
    const eng = await readyBulk(bed, sandbox, benchCompanies(2));
    const { runId } = await startBulkRun(bed.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId, reason: "A benchmark, run before the agreed window." });
    const worker = createMigrationWorker({ database: bed.database, ring: bed.ring, idleMs: 50, watch: false, sandbox: { url: sandbox.url, adminToken: sandbox.adminToken } });
    worker.start();
    await until("the bulk run", async () => (await readSteps(bed.database, (tx) => findRun(tx, runId)))!, (r) => r.status === "completed", 120_000);
    await worker.stop();

    // The engagement's other companies, migrated: on the sandbox (tagged, Linked) and verified in Ferry.
    const client = createServiceClient({ baseUrl: sandbox.url, apiKey: eng.apiKey });
    const template = bed.db.select().from(migrationItems).where(eq(migrationItems.id, eng.items[0]!.id)).get()!;
    const extra = COMPANIES - 2;
    const made: { companyId: string; connectionId: string; linkUrl: string | null }[] = new Array(extra);
    await inParallel(Array.from({ length: extra }, (_, i) => i), 8, async (_, i) => {
      const { data } = await client.createCompany({ name: `Watched Company ${String(i + 1).padStart(5, "0")}`, tags: { [ENGAGEMENT_TAG]: eng.engagementId } });
      const linked = await sandbox.control.linkNewConnection(data.id, eng.platformKey);
      made[i] = { companyId: data.id, connectionId: linked.connection.id, linkUrl: data.redirect ?? null };
    });
    const now = new Date();
    bed.db.transaction((tx) => {
      for (let from = 0; from < extra; from += 500) {
        tx.insert(migrationItems)
          .values(
            made.slice(from, from + 500).map((m, k) => ({
              engagementId: eng.engagementId,
              submissionId: template.submissionId,
              position: from + k + 10,
              sourceRef: `line ${from + k + 12}`,
              name: `Watched Company ${String(from + k + 1).padStart(5, "0")}`,
              externalRef: `W-${from + k + 1}`,
              credentialsMask: {},
              state: "verified" as const,
              companyId: m.companyId,
              connectionId: m.connectionId,
              linkUrl: m.linkUrl,
              attempts: 1,
              runId,
              updatedAt: now,
            })),
          )
          .run();
      }
    });
    // Budgeted as the real service's account: its published daily quota for the connected companies.
    bed.db.update(serviceTargets).set({ dailyQuota: null, requestsPerMinute: null }).where(eq(serviceTargets.id, eng.serviceTargetId)).run();
    const dailyQuota = REAL_SERVICE_LIMITS.target === "service" ? REAL_SERVICE_LIMITS.dailyQuota.base + REAL_SERVICE_LIMITS.dailyQuota.perConnectedCompany * COMPANIES : 0;
    await confirmHandover(bed.database, bed.people.support, { appUrl: "http://ferry.bench", mail: { from: "Ferry <ferry@bench>", log: () => {}, keyRing: TEST_KEY_RING }, purgeAfterDays: 14 }, { engagementId: eng.engagementId });
    console.log(`Set-up (not timed): ${COMPANIES} companies on the sandbox and in Ferry, the handover produced, in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`);

    // Baseline: one call per company, one check.
    const watched = bed.db
      .select({ companyId: migrationItems.companyId })
      .from(migrationItems)
      .where(and(eq(migrationItems.engagementId, eng.engagementId), isNotNull(migrationItems.companyId)))
      .all();
    let baselineRequests = 0;
    const baseStart = performance.now();
    await inParallel(watched, 8, async (w) => {
      await client.listConnections({ companyId: w.companyId! });
      baselineRequests += 1;
    });
    const baselineCheckS = (performance.now() - baseStart) / 1000;

    // The drops: random companies, at random moments of the hypercare days (the last hour left for the final check).
    const rand = random(20261125);
    const clockAt = async () => new Date((await sandbox.control.getClock()).now).getTime();
    const start = await clockAt();
    const chosen = new Set<number>();
    while (chosen.size < Math.min(DROPS, extra)) chosen.add(Math.floor(rand() * extra));
    const drops = [...chosen].map((i) => ({ ...made[i]!, at: start + Math.floor(rand() * (DAYS * DAY_MS - 3_600_000)) }));
    for (const d of drops) await sandbox.control.deauthorize(d.companyId, d.connectionId, { at: new Date(d.at).toISOString(), reason: "revoked" });
    console.log(`Drops on days ${drops.map((d) => 1 + Math.floor((d.at - start) / DAY_MS)).sort((a, b) => a - b).join(", ")}`);

    // The watch: each due check, the sandbox's clock moved to it.
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, init);
    };
    const watcher = createWatcher({
      database: bed.database,
      ring: bed.ring,
      owner: "bench-watch",
      sandbox: { url: sandbox.url, adminToken: sandbox.adminToken },
      reconnectEveryMs: RECONNECT_EVERY_MS.service,
      client: { fetch: counting },
      log: () => {},
    });
    const perDay = Array.from({ length: DAYS + 1 }, () => 0);
    const detected = new Map<string, number>();
    const byCompany = new Map(drops.map((d) => [d.companyId, d]));
    let checks = 0;
    const wallStart = performance.now();
    let checkWallMs = 0;
    for (;;) {
      const w = bed.db.select().from(watches).where(eq(watches.engagementId, eng.engagementId)).get()!;
      if (w.status === "ended") break;
      const clock = await clockAt();
      if (w.nextCheckAt.getTime() > clock) await sandbox.control.advanceClock({ seconds: Math.ceil((w.nextCheckAt.getTime() - clock) / 1000) });
      const at = await clockAt();
      const before = requests;
      const t0 = performance.now();
      checks += await watcher.tick();
      checkWallMs += performance.now() - t0;
      perDay[Math.min(DAYS, Math.floor((at - start) / DAY_MS))]! += requests - before;
      for (const row of bed.db
        .select({ companyId: migrationItems.companyId })
        .from(migrationItems)
        .where(and(eq(migrationItems.engagementId, eng.engagementId), isNotNull(migrationItems.droppedAt)))
        .all()) {
        if (!detected.has(row.companyId!)) detected.set(row.companyId!, at);
      }
      if (checks > 100_000) throw new Error("the watch did not end");
    }
    const wallS = (performance.now() - wallStart) / 1000;

    const delays = drops.filter((d) => detected.has(d.companyId)).map((d) => (detected.get(d.companyId)! - d.at) / 1000);
    const missed = drops.length - delays.length;
    const unexpected = [...detected.keys()].filter((id) => !byCompany.has(id)).length;
    const worstDay = Math.max(...perDay);
    const quotaShare = worstDay / dailyQuota;
    const total = perDay.reduce((a, b) => a + b, 0);
    const meanDetect = delays.length ? delays.reduce((a, b) => a + b, 0) / delays.length : 0;
    const worstDetect = delays.length ? Math.max(...delays) : 0;

    console.log(`Checks: ${checks} in ${wallS.toFixed(1)} s of wall time (${(checkWallMs / Math.max(1, checks)).toFixed(0)} ms per check on average: daily listings and look-ups of the waiting companies)`);
    console.log(`Requests per simulated day: ${perDay.slice(0, DAYS).join(", ")}${perDay[DAYS] ? ` (+${perDay[DAYS]} at the end)` : ""}; ${total} in all`);
    console.log(`Daily quota ${dailyQuota.toLocaleString("en-GB")} (1,000 × (1 + ${COMPANIES} connected)); the busiest day used ${(quotaShare * 100).toFixed(4)} % (target ≤ ${WATCH_QUOTA_SHARE * 100} %)`);
    console.log(`Drops: ${drops.length} injected, ${delays.length} reported, ${missed} missed, ${unexpected} reported that never dropped; detection on the sandbox's clock: mean ${(meanDetect / 60).toFixed(1)} min, worst ${(worstDetect / 3600).toFixed(2)} h`);
    const listing = pagesFor(COMPANIES);
    console.log(
      `Baseline "one call per company": one check of every company took ${baselineRequests} requests and ${baselineCheckS.toFixed(1)} s; Ferry's daily listing takes ${listing} (${Math.round(baselineRequests / listing)}× fewer), and the whole watch ${total} requests in ${DAYS} days`,
    );
    if (missed > 0 || unexpected > 0) process.exitCode = 1;
    console.log(JSON.stringify({ bench: "watch", companies: COMPANIES, days: DAYS, requests: total, quota_share: Number(quotaShare.toFixed(6)), missed, detect_s: Math.round(worstDetect) }));
  } finally {
    await tearDown({ worker: null, beds: [bed], sandbox, tmp });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
