/**
 * Real worker processes (server/migration/worker-main.ts, as `npm run worker` starts it) on
 * one test database (a SQLite file, or a PostgreSQL database on its pass: each process with its
 * own connections): three at once share the queued tests without ever taking the same one; the
 * one carrying out a test is killed with SIGKILL in the middle of it, and another takes it over
 * within the lease and finishes it without a second company or connection; then the coordinator of
 * a bulk run is killed mid-run, and the run is taken over within the lease and ends with every
 * company migrated once (its syncs held, so the kill surely lands mid-run).
 *
 * Runs on both databases: worker processes sharing runs, one killed and taken over.
 * @module-tag both-databases
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSteps } from "@/db/database";
import { migrationItems, serviceCalls } from "@/db/schema";
import { createServiceClient } from "@/server/service-client";
import { until } from "@/server/testing/until";
import { startTestSandbox, type TestSandbox } from "@/server/testing/test-sandbox";
import { generateKeySpec, keyRingFrom } from "@/server/security/secrets";
import { createTestDatabase, seedPeople, type People, type TestDatabase, TEST_NOTIFY } from "@/server/testing/test-db";
import { passSingleCompanyTest } from "@/server/testing/engagement-flows";
import { startBulkRun } from "../bulk/bulk-controls";
import { findItem } from "./item-repository";
import { ITEM_TAG } from "./pipeline";
import { requestTestRun } from "../test-run/request-test-run";
import { findRun } from "./run-repository";
import { readyEngagement, type ReadyEngagement } from "../../testing/ready-engagement";
import type { SyncMode } from "@/server/sandbox/controls/control-client";
import { workerNodeArgs } from "../../../scripts/worker-node.mjs";

const KEY_SPEC = generateKeySpec("proc");
const ring = keyRingFrom(KEY_SPEC);
/** The workers' lease and idle look (4 s and 1 s by default; FERRY_WORKER_LEASE_MS/IDLE_MS): a killed worker's work must be taken over within them. */
const LEASE_MS = 1_500;
const IDLE_MS = 300;

type WorkerProcess = { child: ChildProcess; lines: string[]; exited: Promise<number | null>; owner(): string | undefined };

let sb: TestSandbox;
let t: TestDatabase;
let people: People;
const started: WorkerProcess[] = [];

function startWorker(): WorkerProcess {
  // Started as `npm run worker` and `npm start` start it (one Node process with tsx's loader, not
  // tsx's command line and the Node child it would start), in its own process group.
  const child = spawn(process.execPath, workerNodeArgs(path.join("server", "migration", "worker-main.ts")), {
    cwd: process.cwd(),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // The test database: DATABASE_FILE (and an empty DATABASE_URL) on SQLite, DATABASE_URL on PostgreSQL.
    env: {
      ...process.env,
      ...t.env,
      FERRY_ENCRYPTION_KEY: KEY_SPEC,
      NEXTAUTH_SECRET: "worker-process-test-secret",
      NODE_ENV: "test",
      FERRY_WORKER_LEASE_MS: String(LEASE_MS),
      FERRY_WORKER_IDLE_MS: String(IDLE_MS),
    },
  });
  const lines: string[] = [];
  child.stdout!.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
  child.stderr!.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const owner = () => lines.map((l) => /^Migration worker (\S+) started/.exec(l)?.[1]).find(Boolean);
  const w = { child, lines, exited, owner };
  started.push(w);
  return w;
}

const runNow = async (runId: string) => (await readSteps(t.database, (tx) => findRun(tx, runId)))!;
const itemNow = async (itemId: string) => (await readSteps(t.database, (tx) => findItem(tx, itemId)))!;
const ready = (companies: { name: string; records: number }[], syncs: SyncMode = "instant") =>
  readyEngagement(t.database, { ring, support: people.support, sandbox: { url: sb.url, control: sb.control }, companies, syncs });

/** Kills a worker's whole process group at once (no chance to let go of its leases). */
async function kill(w: WorkerProcess): Promise<number> {
  process.kill(-w.child.pid!, "SIGKILL");
  await w.exited;
  return Date.now();
}

/** What the sandbox holds for each item: its companies (by tag) and each one's connections. */
async function onService(eng: ReadyEngagement): Promise<{ companies: number; connections: number }[]> {
  const client = createServiceClient({ baseUrl: sb.url, apiKey: eng.apiKey });
  return Promise.all(
    eng.items.map(async (item) => {
      const companies = (await client.findCompaniesByTag({ name: ITEM_TAG, value: item.id })).data;
      const connections = await Promise.all(companies.map(async (c) => (await client.listConnections({ companyId: c.id })).data.length));
      return { companies: companies.length, connections: connections.reduce((x, y) => x + y, 0) };
    }),
  );
}

beforeAll(async () => {
  sb = await startTestSandbox();
  t = await createTestDatabase();
  people = await seedPeople(t.database);
});
afterAll(async () => {
  for (const w of started) {
    if (w.child.exitCode === null && w.child.signalCode === null && w.child.pid) process.kill(-w.child.pid, "SIGTERM");
    await w.exited;
  }
  await t.close();
  await sb.close();
});

describe("three worker processes on one database", () => {
  it("share the queued tests, each taken once; the one killed mid-test is taken over within the lease; a bulk run's killed coordinator too, every company migrated once", async () => {
    const workers = [startWorker(), startWorker(), startWorker()];
    await until("the three workers to start", () => workers.map((w) => w.owner() ?? null), (owners) => owners.every(Boolean), 30_000);

    // Six tests queued at once: each taken by exactly one worker, each company made once.
    const engs = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => ready([{ name: `Shared ${n}`, records: 3 }])));
    const runIds: string[] = [];
    for (const e of engs) runIds.push((await requestTestRun(t.database, people.support, { engagementId: e.engagementId, kind: "pilot" })).runId);
    await until("the six tests to end", () => Promise.all(runIds.map(async (id) => (await runNow(id)).status)), (statuses) => statuses.every((s) => s === "passed"), 90_000);
    for (const id of runIds) expect(workers.flatMap((w) => w.lines).filter((l) => l === `took pilot run ${id}`)).toHaveLength(1);
    for (const e of engs) expect(await onService(e)).toEqual([{ companies: 1, connections: 1 }]);

    // A test whose sync is held: whichever worker takes it is killed while it waits for the sync.
    const slow = await ready([{ name: "Killed Midway", records: 2_000 }], "held");
    const { runId } = await requestTestRun(t.database, people.support, { engagementId: slow.engagementId, kind: "pilot" });
    const itemId = slow.items[0]!.id;
    await until("the slow test to reach its sync", async () => (await itemNow(itemId)).state, (s) => s === "sync_requested", 60_000);
    const victim = workers.find((w) => w.lines.includes(`took pilot run ${runId}`))!;
    const survivors = workers.filter((w) => w !== victim);
    const killedAt = await kill(victim);
    expect(await runNow(runId)).toMatchObject({ status: "running", leaseOwner: victim.owner() });

    // Taken over once the dead worker's lease has run out (and a survivor looked for work again).
    const taker = await until("a survivor to take the test over", () => survivors.find((w) => w.lines.includes(`took pilot run ${runId}`)) ?? null, Boolean, 30_000);
    expect(Date.now() - killedAt).toBeLessThanOrEqual(LEASE_MS + 1.25 * IDLE_MS + 2_000);
    expect(survivors.filter((w) => w.lines.includes(`took pilot run ${runId}`))).toEqual([taker]);
    expect((await sb.control.releaseSyncs(slow.sandboxClientId!)).released).toBeGreaterThan(0);
    await until("the survivor to finish the test", async () => (await runNow(runId)).status, (s) => s === "passed", 90_000);
    expect(await onService(slow)).toEqual([{ companies: 1, connections: 1 }]);
    // The item's lease is let go just after the run's end is written (its own step): wait for it.
    await until("the item's lease to be let go", async () => (await itemNow(itemId)).leaseOwner, (o) => o === null, 10_000);
    expect(await itemNow(itemId)).toMatchObject({ state: "verified", leaseOwner: null });

    // A bulk run carried out by the two left: its coordinator is killed mid-run.
    // Its syncs are held, so the run is surely still under way when its coordinator is killed
    // (timed syncs of about a second once let all ten companies finish before the kill).
    const bulk = await ready(Array.from({ length: 10 }, (_, i) => ({ name: `Bulk ${i + 1}`, records: 300 })), "held");
    await passSingleCompanyTest(t.database, people.support, bulk.engagementId);
    const { runId: bulkId } = await startBulkRun(t.database, TEST_NOTIFY, people.support, { engagementId: bulk.engagementId });
    const coordinator = (await until("a worker to take the bulk run", () => survivors.find((w) => w.lines.includes(`took bulk run ${bulkId}`)) ?? null, Boolean, 30_000))!;
    const inState = async (state: (typeof migrationItems.$inferSelect)["state"]) =>
      (await t.db.select({ n: count() }).from(migrationItems).where(and(eq(migrationItems.engagementId, bulk.engagementId), eq(migrationItems.state, state))))[0]!.n;
    await until("a few companies to wait for their syncs", () => inState("sync_requested"), (n) => n >= 2, 60_000);
    expect((await runNow(bulkId)).status).toBe("running");
    const last = survivors.find((w) => w !== coordinator)!;
    const coordinatorKilledAt = await kill(coordinator);
    // The last worker, helping with the run, takes its lease over where it stands (or, were it not helping then, claims the run).
    await until("the last worker to take the bulk run over", () => last.lines.some((l) => l.startsWith(`took bulk run ${bulkId}`)), Boolean, 30_000);
    expect(Date.now() - coordinatorKilledAt).toBeLessThanOrEqual(LEASE_MS + 1.25 * IDLE_MS + 2_000);
    // The syncs end now: those held at once, and any asked for later as soon as they are queued.
    await sb.control.setSyncs(bulk.sandboxClientId!, "instant");
    await sb.control.releaseSyncs(bulk.sandboxClientId!);
    await until("the bulk run to end", async () => (await runNow(bulkId)).status, (s) => s === "completed", 120_000);

    // Nothing lost, nothing done twice.
    const items = await t.db.select().from(migrationItems).where(eq(migrationItems.engagementId, bulk.engagementId));
    expect(items.map((i) => i.state)).toEqual(items.map(() => "verified"));
    expect(await onService(bulk)).toEqual(bulk.items.map(() => ({ companies: 1, connections: 1 })));
    const creates = await t.db
      .select({ itemId: serviceCalls.itemId, n: count() })
      .from(serviceCalls)
      .where(and(eq(serviceCalls.runId, bulkId), eq(serviceCalls.operation, "createCompany"), eq(serviceCalls.ok, true)))
      .groupBy(serviceCalls.itemId);
    expect(creates).toHaveLength(bulk.items.length);
    expect(creates.every((c) => c.n === 1)).toBe(true);
  }, 420_000);
});
