/**
 * Real worker processes (server/migration/engine/worker-main.ts, as `npm run worker` starts it) on one
 * SQLite file: two at once share the queued tests without ever taking the same one, and when one
 * is killed with SIGKILL in the middle of a test, the other takes it over once the lease expires
 * and finishes it without a second company or connection.
 */
import { runSync } from "@/db/database";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceClient } from "@/server/service-client";
import { startTestSandbox, type TestSandbox } from "@/server/testing/test-sandbox";
import { generateKeySpec, keyRingFrom } from "@/server/security/secrets";
import { createTestDb, seedPeople, type People, type TestDb } from "@/server/testing/test-db";
import { findItem } from "./item-repository";
import { ITEM_TAG } from "./pipeline";
import { requestTestRun } from "../test-run/request-test-run";
import { findRun } from "./run-repository";
import { readyEngagement } from "../../testing/ready-engagement";
import { until } from "@/server/testing/until";

const KEY_SPEC = generateKeySpec("proc");
const ring = keyRingFrom(KEY_SPEC);

type WorkerProcess = { child: ChildProcess; lines: string[]; exited: Promise<number | null> };

let sb: TestSandbox;
let t: TestDb;
let people: People;
const started: WorkerProcess[] = [];

function startWorker(): WorkerProcess {
  // Its own process group, so SIGKILL reaches tsx's node child too.
  const child = spawn(path.join(process.cwd(), "node_modules", ".bin", "tsx"), ["server/migration/engine/worker-main.ts"], {
    cwd: process.cwd(),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, DATABASE_FILE: t.file, FERRY_ENCRYPTION_KEY: KEY_SPEC, NEXTAUTH_SECRET: "worker-process-test-secret", NODE_ENV: "test" },
  });
  const lines: string[] = [];
  child.stdout!.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
  child.stderr!.on("data", (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean)));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const w = { child, lines, exited };
  started.push(w);
  return w;
}

beforeAll(async () => {
  sb = await startTestSandbox();
  t = createTestDb();
  people = await seedPeople(t.db);
});
afterAll(async () => {
  for (const w of started) {
    if (w.child.exitCode === null && w.child.signalCode === null && w.child.pid) process.kill(-w.child.pid, "SIGTERM");
    await w.exited;
  }
  t.close();
  await sb.close();
});

describe("worker processes on one database", () => {
  it("two share the queued tests, each taken once; one killed mid-test is taken over after its lease expires", async () => {
    const a = startWorker();
    const b = startWorker();
    await until("both workers to start", () => [a, b].every((w) => w.lines.some((l) => l.startsWith("Migration worker"))), Boolean, 30_000);

    const engs = await Promise.all([1, 2, 3, 4].map((n) => readyEngagement(t.db, { ring, support: people.support, sandbox: { url: sb.url, control: sb.control }, companies: [{ name: `Shared ${n}`, records: 3 }] })));
    const runIds = engs.map((e) => requestTestRun(t.db, people.support, { engagementId: e.engagementId, kind: "pilot" }).runId);
    await until("the four tests to end", () => runIds.every((id) => runSync(findRun(t.db, id))?.status === "passed"), Boolean);
    for (const id of runIds) {
      const takers = [a, b].flatMap((w) => w.lines).filter((l) => l === `took pilot run ${id}`);
      expect(takers).toHaveLength(1);
    }
    for (const e of engs) {
      const client = createServiceClient({ baseUrl: sb.url, apiKey: e.apiKey });
      expect((await client.findCompaniesByTag({ name: ITEM_TAG, value: e.items[0]!.id })).data).toHaveLength(1);
    }

    // A test with a long sync: whichever worker takes it is killed while it waits for the sync.
    const slow = await readyEngagement(t.db, { ring, support: people.support, sandbox: { url: sb.url, control: sb.control }, companies: [{ name: "Killed Midway", records: 2_000 }] });
    const runId = requestTestRun(t.db, people.support, { engagementId: slow.engagementId, kind: "pilot" }).runId;
    const itemId = slow.items[0]!.id;
    await until("the slow test to reach its sync", () => runSync(findItem(t.db, itemId))?.state === "sync_requested", Boolean);
    const victim = [a, b].find((w) => w.lines.includes(`took pilot run ${runId}`))!;
    const survivor = victim === a ? b : a;
    process.kill(-victim.child.pid!, "SIGKILL");
    await victim.exited;
    expect(runSync(findRun(t.db, runId))).toMatchObject({ status: "running", leaseOwner: expect.any(String) as string });

    await until("the survivor to finish the test", () => runSync(findRun(t.db, runId))?.status === "passed", Boolean, 90_000);
    expect(survivor.lines).toContain(`took pilot run ${runId}`);
    const client = createServiceClient({ baseUrl: sb.url, apiKey: slow.apiKey });
    const companies = (await client.findCompaniesByTag({ name: ITEM_TAG, value: itemId })).data;
    expect(companies).toHaveLength(1);
    expect((await client.listConnections({ companyId: companies[0]!.id })).data).toHaveLength(1);
    expect(runSync(findItem(t.db, itemId))).toMatchObject({ state: "verified", leaseOwner: null });
  }, 180_000);
});
