/**
 * What the bulk-run benches (migrate, crash, faults) share: a real sandbox and real migration
 * workers in processes of their own (so neither shares the bench's event loop, nor each other's),
 * real temporary SQLite files, and engagements taken to step 6 through the real flows. The benches
 * read Ferry's database through the dialect-neutral layer (`bed.database`: awaited queries), as
 * the workers write it.
 *
 * - `startSandboxProcess(dir)`: `server/sandbox/main.ts` on a random port, its own SQLite file.
 * - `startWorkerProcess(bed, sandbox)`: `server/migration/worker-main.ts` (what `npm run worker`
 *   starts) on the bench's database with its key; `kill("SIGKILL")` ends it at once.
 * - `createBenchBed(dir, name)`: a database file with a person of each role and the key ring
 *   (`database`, and `db`, its SQLite handle, for benches not on the layer yet).
 * - `readyBulk(bed, sandbox, companies)`: an engagement at step 6 (steps 1–4 through their flows,
 *   step 5 passed), its bulk run not yet started.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { workerNodeArgs } from "../scripts/worker-node.mjs";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, count, eq } from "drizzle-orm";
import { openDb } from "@/db/client";
import { databaseOf, readSteps, type Database } from "@/db/database";
import { migrationItems, serviceCalls } from "@/db/schema";
import { createControlClient, type SandboxControl } from "@/server/sandbox/controls/control-client";
import { createServiceClient } from "@/server/service-client";
import { generateKeySpec, keyRingFrom, type KeyRing } from "@/server/security/secrets";
import { passSingleCompanyTest } from "@/server/testing/engagement-flows";
import { seedPeople, type People } from "@/server/testing/test-db";
import { ITEM_TAG } from "@/server/migration/engine/pipeline";
import { findRun, type RunRow } from "@/server/migration/engine/run-repository";
import { readyEngagement, type ReadyCompany, type ReadyEngagement } from "@/server/testing/ready-engagement";

/** The benches wait on the worker through the database as the tests do (an awaited read). */
export { until } from "@/server/testing/until";

export const ROOT = path.join(__dirname, "..");

export type SandboxProcess = { url: string; adminToken: string; control: SandboxControl; child: ChildProcess; close(): Promise<void> };

/** What the helpers below need of a sandbox: where it is and its controls (a process of this bench's, or another's). */
export type SandboxAccess = Pick<SandboxProcess, "url" | "adminToken" | "control">;

/** Resolves with the first line of the child's output that matches, or rejects when it exits first. */
function lineMatching(child: ChildProcess, lines: string[], pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms: ${lines.join(" | ")}`)), timeoutMs);
    const check = () => {
      for (const line of lines) {
        const m = pattern.exec(line);
        if (m) {
          clearTimeout(timer);
          child.stdout?.off("data", onData);
          resolve(m);
          return true;
        }
      }
      return false;
    };
    const onData = () => void check();
    child.stdout?.on("data", onData);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (!check()) reject(new Error(`exited (${code ?? signal}) before printing ${pattern}: ${lines.join(" | ")}`));
    });
    check();
  });
}

/** Collects a child's output lines (stdout and stderr). */
function collect(child: ChildProcess): string[] {
  const lines: string[] = [];
  const add = (chunk: Buffer) => lines.push(...chunk.toString().split("\n").filter(Boolean));
  child.stdout?.on("data", add);
  child.stderr?.on("data", add);
  return lines;
}

/** The sandbox (`npm run sandbox`'s entry) in its own process on a random port and a temporary file. */
export async function startSandboxProcess(dir: string): Promise<SandboxProcess> {
  const adminToken = crypto.randomBytes(18).toString("base64url");
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "server", "sandbox", "main.ts")], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, SANDBOX_PORT: "0", SANDBOX_HOST: "127.0.0.1", SANDBOX_DB_FILE: path.join(dir, "sandbox.db"), SANDBOX_ADMIN_TOKEN: adminToken },
  });
  const lines = collect(child);
  const m = await lineMatching(child, lines, /listening on (http:\/\/\S+)/, 60_000);
  const url = m[1]!;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url,
    adminToken,
    control: createControlClient({ url, adminToken }),
    child,
    close: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

export type BenchBed = { database: Database; db: Database["db"]; file: string; keySpec: string; ring: KeyRing; people: People; close(): Promise<void> };

/** A database file of its own in `dir`, people of each role, and a key ring (its key spec for worker processes). */
export async function createBenchBed(dir: string, name: string): Promise<BenchBed> {
  const file = path.join(dir, `${name}.db`);
  const db = openDb(file);
  const database = databaseOf(db);
  const keySpec = generateKeySpec("bench");
  return { database, db, file, keySpec, ring: keyRingFrom(keySpec), people: await seedPeople(database), close: () => database.close() };
}

export type WorkerProcess = {
  child: ChildProcess;
  lines: string[];
  /** performance.now() at the spawn. */
  spawnedAt: number;
  /** Wall clock (epoch ms) at the spawn. */
  spawnedAtEpoch: number;
  /** Resolves once the worker printed that it started. */
  ready: Promise<void>;
  exited: Promise<void>;
  kill(signal: NodeJS.Signals): void;
};

/** A migration worker process (`server/migration/worker-main.ts`, as `npm run worker` runs it) on the bench's database. */
export function startWorkerProcess(bed: BenchBed, sandbox: SandboxAccess, extraEnv: Record<string, string> = {}): WorkerProcess {
  const spawnedAt = performance.now();
  const spawnedAtEpoch = Date.now();
  const child = spawn(process.execPath, workerNodeArgs(path.join(ROOT, "server/migration/worker-main.ts"), { ...process.env, ...extraEnv }), {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      NODE_ENV: "production",
      ...(bed.file ? { DATABASE_FILE: bed.file } : {}),
      FERRY_ENCRYPTION_KEY: bed.keySpec,
      NEXTAUTH_SECRET: "bench-worker-secret-not-used",
      SANDBOX_URL: sandbox.url,
      SANDBOX_ADMIN_TOKEN: sandbox.adminToken,
      ...extraEnv,
    },
  });
  const lines = collect(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = lineMatching(child, lines, /^Migration worker \S+ started/, 60_000).then(() => undefined);
  ready.catch(() => {});
  return {
    child,
    lines,
    spawnedAt,
    spawnedAtEpoch,
    ready,
    exited,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** Companies of the sandbox's default volume (50 records per data type), named and referenced in order. */
export function benchCompanies(n: number, extra: (i: number) => Partial<ReadyCompany> = () => ({})): ReadyCompany[] {
  return Array.from({ length: n }, (_, i) => ({ name: `Bench Company ${String(i + 1).padStart(5, "0")}`, externalRef: `B-${i + 1}`, ...extra(i) }));
}

/** An engagement at step 6 on a new paid sandbox client: steps 1–4 through their flows, step 5 passed. */
export async function readyBulk(bed: BenchBed, sandbox: SandboxAccess, companies: ReadyCompany[]): Promise<ReadyEngagement> {
  const eng = await readyEngagement(bed.database, { ring: bed.ring, support: bed.people.support, sandbox: { url: sandbox.url, control: sandbox.control }, companies });
  await passSingleCompanyTest(bed.database, bed.people.support, eng.engagementId);
  return eng;
}

/** Items per state of an engagement. */
export async function statesOf(database: Database, engagementId: string): Promise<Record<string, number>> {
  const rows = await database.db
    .select({ state: migrationItems.state, n: count() })
    .from(migrationItems)
    .where(eq(migrationItems.engagementId, engagementId))
    .groupBy(migrationItems.state);
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

/** HTTP requests of a run as Ferry recorded them (one service_calls row per answer or failure). */
export async function recordedCalls(database: Database, runId: string): Promise<{ all: number; rateLimited: number }> {
  const [all] = await database.db.select({ n: count() }).from(serviceCalls).where(eq(serviceCalls.runId, runId));
  const [rateLimited] = await database.db.select({ n: count() }).from(serviceCalls).where(and(eq(serviceCalls.runId, runId), eq(serviceCalls.status, 429)));
  return { all: all?.n ?? 0, rateLimited: rateLimited?.n ?? 0 };
}

/** A run as stored now (the benches wait on it as the tests do). */
export async function runNow(database: Database, runId: string): Promise<RunRow> {
  const run = await readSteps(database, (tx) => findRun(tx, runId));
  if (!run) throw new Error(`No run ${runId}`);
  return run;
}

/**
 * What the sandbox holds for each item, read through its API: the companies carrying the item's
 * tag, and the connections of each. A duplicate is a second company for one item or a second
 * connection in one company.
 */
export async function sandboxDuplicates(sandbox: SandboxAccess, apiKey: string, itemIds: readonly string[]): Promise<{ companies: number; duplicateCompanies: number; duplicateConnections: number; missing: number }> {
  const client = createServiceClient({ baseUrl: sandbox.url, apiKey });
  let companies = 0;
  let duplicateCompanies = 0;
  let duplicateConnections = 0;
  let missing = 0;
  const queue = [...itemIds];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const found = (await client.findCompaniesByTag({ name: ITEM_TAG, value: id })).data;
      companies += found.length;
      if (found.length === 0) missing += 1;
      duplicateCompanies += Math.max(0, found.length - 1);
      for (const company of found) {
        const connections = (await client.listConnections({ companyId: company.id })).data;
        duplicateConnections += Math.max(0, connections.length - 1);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { companies, duplicateCompanies, duplicateConnections, missing };
}

/** The machine's load, for the printed figures. */
export function machineLoad(): string {
  const [one, five] = os.loadavg();
  return `load average ${one?.toFixed(2)} (1 min), ${five?.toFixed(2)} (5 min) on ${os.cpus().length} cores`;
}

/** A temporary folder for a bench's files, removed by the returned function. */
export function benchDir(name: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ferry-${name}-bench-`));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Ends a bench: the worker stopped (SIGTERM), the databases closed, the sandbox stopped, its files removed (kept with BENCH_KEEP=1). */
export async function tearDown(p: { worker: WorkerProcess | null; beds: BenchBed[]; sandbox: SandboxProcess; tmp: { dir: string; remove(): void } }): Promise<void> {
  if (p.worker) {
    p.worker.kill("SIGTERM");
    await p.worker.exited;
  }
  for (const bed of p.beds) await bed.close();
  await p.sandbox.close();
  if (process.env.BENCH_KEEP) console.error(`kept ${p.tmp.dir}`);
  else p.tmp.remove();
}
