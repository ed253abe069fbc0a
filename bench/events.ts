/**
 * Webhooks against polling (issue 31): 10,000 migrated companies watched for the 7 hypercare days
 * with 12 drops, twice in the same run on the same sandbox (a process of its own) and the same
 * Ferry SQLite file — one engagement whose bulk run registered its webhook consumer (the sandbox's
 * signed deliveries come over HTTP to Ferry's receiver, the inbox work acts on them), and one
 * without (today's polling: the daily listing, then the waiting companies looked up every 5 min).
 * The same companies (by position) drop at the same moments in both. The sandbox's clock is moved
 * to each moment something is due: a drop (plus 1 s) or a watch's check. Detection is measured on
 * the sandbox's clock from the drop to the moment Ferry marked the company dropped; requests are
 * every HTTP request each side makes to the service (the watch's, the inbox's look-ups, the
 * consumer registrations), told apart by their API key.
 *
 * Then a burst at the receiver: 1,000 signed deliveries a second for 5 s, 10 % of them duplicates
 * (same `webhook-id`), over HTTP; the receiver's own time per delivery (p99), the deliveries lost
 * (an id sent and not in the inbox), and the rows processed twice (two inbox processors at once).
 *
 * Run: npm run bench -- events [companies] [drops] [days]
 * Last line: {"bench":"events","companies":…,"detect_p95_s":…,"poll_detect_p95_s":…,"requests":…,"poll_requests":…,"burst_per_s":…,"receiver_p99_ms":…,"lost":…,"processed_twice":…}
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import { readSteps } from "@/db/database";
import { migrationItems, serviceTargets, watches, webhookInbox } from "@/db/schema";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import { createInboxProcessor } from "@/server/migration/events/inbox-work";
import { ENGAGEMENT_TAG } from "@/server/migration/engine/pipeline";
import { findRun } from "@/server/migration/engine/run-repository";
import { confirmHandover } from "@/server/migration/handover/confirm-handover";
import { createMigrationWorker } from "@/server/migration/migration-worker";
import { createWatcher } from "@/server/migration/watch/watcher";
import { DAY_MS, RECONNECT_EVERY_MS } from "@/server/migration/watch/watch-rules";
import { createServiceClient } from "@/server/service-client";
import { startEventsEndpoint } from "@/server/testing/events-endpoint";
import { ensureEventConsumers } from "@/server/targets/events/consumers";
import { TEST_KEY_RING, TEST_NOTIFY } from "@/server/testing/test-db";
import type { ReadyEngagement } from "@/server/testing/ready-engagement";
import { benchCompanies, benchDir, createBenchBed, machineLoad, readyBulk, ROOT, startSandboxProcess, tearDown, until, type BenchBed, type SandboxProcess } from "./_bulk";

const COMPANIES = Number(process.argv[2] ?? 10_000);
const DROPS = Number(process.argv[3] ?? 12);
const DAYS = Number(process.argv[4] ?? 7);
const BURST_PER_S = 1_000;
const BURST_S = 5;

/** mulberry32: the run's drops can be told again. */
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

const quantile = (values: readonly number[], q: number): number => {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
};

type Made = { companyId: string; connectionId: string; linkUrl: string | null };

/** An engagement migrated by a real bulk run of 2 companies, its other companies added migrated (on the sandbox and verified in Ferry), handed over. */
async function watchedEngagement(bed: BenchBed, sandbox: SandboxProcess, publicUrl: string | null): Promise<{ eng: ReadyEngagement; made: Made[] }> {
  const eng = await readyBulk(bed, sandbox, benchCompanies(2));
  const { runId } = await startBulkRun(bed.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId, reason: "A benchmark, run before the agreed window." });
  const worker = createMigrationWorker({ database: bed.database, ring: bed.ring, idleMs: 50, watch: false, inbox: false, bulk: { publicUrl }, sandbox: { url: sandbox.url, adminToken: sandbox.adminToken } });
  worker.start();
  await until("the bulk run", async () => (await readSteps(bed.database, (tx) => findRun(tx, runId)))!, (r) => r.status === "completed", 120_000);
  await worker.stop();
  const client = createServiceClient({ baseUrl: sandbox.url, apiKey: eng.apiKey });
  const template = bed.db.select().from(migrationItems).where(eq(migrationItems.id, eng.items[0]!.id)).get()!;
  const extra = COMPANIES - 2;
  const made: Made[] = new Array(extra);
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
  bed.db.update(serviceTargets).set({ dailyQuota: null, requestsPerMinute: null }).where(eq(serviceTargets.id, eng.serviceTargetId)).run();
  await confirmHandover(bed.database, bed.people.support, { appUrl: "http://ferry.bench", mail: { from: "Ferry <ferry@bench>", log: () => {}, keyRing: TEST_KEY_RING }, purgeAfterDays: 14 }, { engagementId: eng.engagementId });
  return { eng, made };
}

/** The Authorization header of a request, to tell whose request it is. */
function authorizationOf(init: RequestInit | undefined): string {
  const h = init?.headers;
  if (!h) return "";
  if (h instanceof Headers) return h.get("authorization") ?? "";
  if (Array.isArray(h)) return h.find(([k]) => k.toLowerCase() === "authorization")?.[1] ?? "";
  return (h as Record<string, string>).Authorization ?? (h as Record<string, string>).authorization ?? "";
}

const droppedNow = (bed: BenchBed, engagementId: string): string[] =>
  bed.db
    .select({ companyId: migrationItems.companyId })
    .from(migrationItems)
    .where(and(eq(migrationItems.engagementId, engagementId), isNotNull(migrationItems.droppedAt)))
    .all()
    .map((r) => r.companyId!);

/** The 7 days on both engagements: each drop and each due check in turn, the sandbox's clock moved to it. */
async function simulate(p: { bed: BenchBed; sandbox: SandboxProcess; events: ReadyEngagement; poll: ReadyEngagement; drops: { events: Made; poll: Made; at: number }[] }) {
  const { bed, sandbox } = p;
  const count = { events: 0, poll: 0 };
  const keyOf = (apiKey: string) => `Basic ${Buffer.from(apiKey).toString("base64")}`;
  const keys = { events: keyOf(p.events.apiKey), poll: keyOf(p.poll.apiKey) };
  const counting: typeof fetch = (input, init) => {
    const auth = authorizationOf(init);
    if (auth === keys.events) count.events += 1;
    else if (auth === keys.poll) count.poll += 1;
    return fetch(input, init);
  };
  const watcher = createWatcher({ database: bed.database, ring: bed.ring, owner: "bench-watch", sandbox: { url: sandbox.url, adminToken: sandbox.adminToken }, reconnectEveryMs: RECONNECT_EVERY_MS.service, client: { fetch: counting }, log: () => {} });
  const inbox = createInboxProcessor({ database: bed.database, ring: bed.ring, notify: null, log: () => {}, client: { fetch: counting } });
  const clockAt = async () => new Date((await sandbox.control.getClock()).now).getTime();
  const detected = { events: new Map<string, number>(), poll: new Map<string, number>() };
  const record = async (side: "events" | "poll", engagementId: string) => {
    const at = await clockAt();
    for (const id of droppedNow(bed, engagementId)) if (!detected[side].has(id)) detected[side].set(id, at);
  };
  const pendingDrops = [...p.drops].sort((a, b) => a.at - b.at);
  let checks = 0;
  for (;;) {
    const ws = bed.db.select().from(watches).where(inArray(watches.engagementId, [p.events.engagementId, p.poll.engagementId])).all();
    const open = ws.filter((w) => w.status !== "ended");
    if (open.length === 0) break;
    const clock = await clockAt();
    const nextCheck = Math.min(...open.map((w) => w.nextCheckAt.getTime()));
    const drop = pendingDrops[0];
    const next = drop && drop.at + 1_000 < nextCheck ? drop.at + 1_000 : nextCheck;
    if (next > clock) await sandbox.control.advanceClock({ seconds: Math.ceil((next - clock) / 1000) });
    if (drop && drop.at + 1_000 <= (await clockAt())) {
      pendingDrops.shift();
      // The sandbox settles the drop and delivers its event within its tick; the inbox acts on it.
      const companyId = drop.events.companyId;
      await until("the drop's event", async () => (await inbox.processDue(), droppedNow(bed, p.events.engagementId).includes(companyId)), (seen) => seen, 10_000).catch(() => {});
      await record("events", p.events.engagementId);
    }
    checks += await watcher.tick();
    await inbox.processDue();
    await record("events", p.events.engagementId);
    await record("poll", p.poll.engagementId);
    if (checks > 100_000) throw new Error("the watch did not end");
  }
  await watcher.close();
  const delays = (side: "events" | "poll") => p.drops.filter((d) => detected[side].has(d[side].companyId)).map((d) => (detected[side].get(d[side].companyId)! - d.at) / 1000);
  return { count, checks, detected, delays: { events: delays("events"), poll: delays("poll") } };
}

/** 1,000 signed deliveries a second for BURST_S seconds, 10 % duplicates, at the receiver over HTTP (sent by a process of its own); then two inbox processors at once. */
async function burst(bed: BenchBed, endpoint: Awaited<ReturnType<typeof startEventsEndpoint>>, target: { id: string; secret: string }) {
  endpoint.durationsMs.length = 0;
  const url = `${endpoint.baseUrl}/api/targets/${target.id}/events`;
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "bench", "_events-burst-child.ts"), url, target.secret, String(BURST_PER_S), String(BURST_S)], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  await new Promise<void>((resolve, reject) => child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the burst's sender exited ${code}`)))));
  const sent = JSON.parse(out.trim().split("\n").at(-1)!) as { ids: string[]; sent: number; seconds: number; statuses: Record<string, number> };
  const { ids } = sent;
  const stored = new Set<string>();
  for (let from = 0; from < ids.length; from += 500) {
    for (const r of bed.db.select({ messageId: webhookInbox.messageId }).from(webhookInbox).where(and(eq(webhookInbox.targetId, target.id), inArray(webhookInbox.messageId, ids.slice(from, from + 500)))).all()) stored.add(r.messageId);
  }
  const lost = ids.filter((id) => !stored.has(id)).length;
  // Two processors at once, as two workers would.
  const processors = [0, 1].map(() => createInboxProcessor({ database: bed.database, ring: bed.ring, notify: null, log: () => {}, client: {} }));
  let processed = 0;
  await Promise.all(
    processors.map(async (proc) => {
      for (let n = await proc.processDue(); n > 0; n = await proc.processDue()) processed += n;
    }),
  );
  const rows = bed.db.select({ processedAt: webhookInbox.processedAt }).from(webhookInbox).where(eq(webhookInbox.targetId, target.id)).all();
  const unprocessed = rows.filter((r) => r.processedAt === null).length;
  return {
    perSecond: Math.round(sent.sent / sent.seconds),
    p99: quantile(endpoint.durationsMs, 0.99),
    p50: quantile(endpoint.durationsMs, 0.5),
    lost: lost + unprocessed,
    processedTwice: Math.max(0, processed - (rows.length - unprocessed)),
    sent: sent.sent,
    unique: ids.length,
    statuses: sent.statuses,
  };
}

async function main(): Promise<void> {
  const tmp = benchDir("events");
  const sandbox = await startSandboxProcess(tmp.dir);
  const bed = await createBenchBed(tmp.dir, "ferry");
  const endpoint = await startEventsEndpoint({ database: bed.database, ring: bed.ring });
  try {
    console.log(`Events benchmark: ${COMPANIES} migrated companies watched ${DAYS} simulated days, ${DROPS} drops, with webhooks and with polling only; ${machineLoad()} at the start`);
    const setupStart = performance.now();
    await sandbox.control.setFaults({ rateLimitPerSecond: null });
    const withEvents = await watchedEngagement(bed, sandbox, endpoint.baseUrl);
    const pollOnly = await watchedEngagement(bed, sandbox, null);
    const consumers = (await sandbox.control.webhookConsumers()).results.filter((c) => c.url.includes(withEvents.eng.serviceTargetId));
    console.log(`Set-up (not timed): 2 × ${COMPANIES} companies, ${consumers.length} consumers registered for the events side, in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`);

    const rand = random(20261129);
    const start = new Date((await sandbox.control.getClock()).now).getTime();
    const chosen = new Set<number>();
    while (chosen.size < Math.min(DROPS, COMPANIES - 2)) chosen.add(Math.floor(rand() * (COMPANIES - 2)));
    const drops = [...chosen].map((i) => ({ events: withEvents.made[i]!, poll: pollOnly.made[i]!, at: start + 60_000 + Math.floor(rand() * (DAYS * DAY_MS - 3_600_000)) }));
    for (const d of drops) {
      for (const m of [d.events, d.poll]) await sandbox.control.deauthorize(m.companyId, m.connectionId, { at: new Date(d.at).toISOString(), reason: "revoked" });
    }
    // The set-up's own events (a connection.connected per company made) are delivered and processed first: they are not what is measured.
    const drain = createInboxProcessor({ database: bed.database, ring: bed.ring, notify: null, log: () => {}, client: {} });
    const tagged = consumers.find((c) => (c.companyTags ?? []).length > 0)!;
    await until("the set-up's deliveries", async () => (await sandbox.control.webhookDeliveries(tagged.id)).results.filter((d) => d.status === "pending").length, (n) => n === 0, 300_000);
    let drained = 0;
    for (let n = await drain.processDue(); n > 0; n = await drain.processDue()) drained += n;
    console.log(`The set-up's ${drained} events processed before the days begin`);
    const wallStart = performance.now();
    const sim = await simulate({ bed, sandbox, events: withEvents.eng, poll: pollOnly.eng, drops });
    // The consumers' registration at the bulk run's start went through the run's own client: counted here.
    sim.count.events += consumers.length;
    const missed = { events: drops.length - sim.delays.events.length, poll: drops.length - sim.delays.poll.length };
    const fmt = (s: number) => (s < 120 ? `${s.toFixed(1)} s` : `${(s / 3600).toFixed(2)} h`);
    for (const d of drops) {
      const e = sim.detected.events.get(d.events.companyId);
      const q = sim.detected.poll.get(d.poll.companyId);
      console.log(`  drop on day ${1 + Math.floor((d.at - start) / DAY_MS)} at ${new Date(d.at).toISOString().slice(11, 19)}: webhooks ${e === undefined ? "missed" : fmt((e - d.at) / 1000)}, polling ${q === undefined ? "missed" : fmt((q - d.at) / 1000)}`);
    }
    console.log(`Simulated ${DAYS} days in ${((performance.now() - wallStart) / 1000).toFixed(1)} s of wall time (${sim.checks} watch checks)`);
    console.log(`With webhooks: detection p50 ${fmt(quantile(sim.delays.events, 0.5))}, p95 ${fmt(quantile(sim.delays.events, 0.95))}, ${missed.events} missed; ${sim.count.events} requests`);
    console.log(`Polling only:  detection p50 ${fmt(quantile(sim.delays.poll, 0.5))}, p95 ${fmt(quantile(sim.delays.poll, 0.95))}, ${missed.poll} missed; ${sim.count.poll} requests`);

    // The watch's end removed its consumers: the burst goes to a consumer registered again for it.
    const client = createServiceClient({ baseUrl: sandbox.url, apiKey: withEvents.eng.apiKey });
    const again = await ensureEventConsumers(
      { database: bed.database, ring: bed.ring, client, defaultPublicUrl: endpoint.baseUrl, log: (line) => console.log(line) },
      { targetId: withEvents.eng.serviceTargetId, engagementId: withEvents.eng.engagementId, engagementTag: `${ENGAGEMENT_TAG}:${withEvents.eng.engagementId}` },
    );
    const live = (await sandbox.control.webhookConsumers()).results.filter((c) => c.url.includes(withEvents.eng.serviceTargetId) && (c.companyTags ?? []).length > 0);
    if (again !== "registered" || live.length !== 1) throw new Error(`the burst's consumer: ${again}, ${live.length} live`);
    const secret = live[0]!.secret;
    const b = await burst(bed, endpoint, { id: withEvents.eng.serviceTargetId, secret });
    console.log(`Burst: ${b.sent} deliveries (${b.unique} distinct) at ${b.perSecond}/s, answered ${JSON.stringify(b.statuses)}; receiver p50 ${b.p50.toFixed(1)} ms, p99 ${b.p99.toFixed(1)} ms; ${b.lost} lost, ${b.processedTwice} processed twice`);
    const detectP95 = quantile(sim.delays.events, 0.95);
    const ok = detectP95 <= 60 && missed.events === 0 && sim.count.events <= sim.count.poll && b.p99 <= 100 && b.lost === 0 && b.processedTwice === 0;
    if (!ok) process.exitCode = 1;
    console.log(
      JSON.stringify({
        bench: "events",
        companies: COMPANIES,
        detect_p95_s: Number(detectP95.toFixed(1)),
        poll_detect_p95_s: Math.round(quantile(sim.delays.poll, 0.95)),
        requests: sim.count.events,
        poll_requests: sim.count.poll,
        burst_per_s: b.perSecond,
        receiver_p99_ms: Number(b.p99.toFixed(1)),
        lost: b.lost,
        processed_twice: b.processedTwice,
      }),
    );
  } finally {
    await endpoint.close();
    await tearDown({ worker: null, beds: [bed], sandbox, tmp });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
