/**
 * One measured bulk run for the workers benches (workers.ts, workers-pg.ts), in a process of its
 * own: Ferry's tables are the dialect this process's environment selects (db/schema.ts reads
 * DATABASE_URL once), so a run on SQLite and a run on PostgreSQL cannot share one process.
 *
 * It makes an engagement of `--companies` sandbox tenants ready for its bulk run on the database
 * (DATABASE_URL set: a fresh database on the PostgreSQL server FERRY_TEST_PG_URL names; unset: a
 * SQLite file in BENCH_DIR), starts `--workers` worker processes (`worker-main.ts`, as
 * `npm run worker` starts them), starts the run and waits for its end. With `--kills K` it kills a
 * worker with SIGKILL K times while the run goes on, round the workers in turn, and starts each
 * again a second later (as the supervisor does); for each kill it measures how long the dead
 * worker's work stayed held: until every company it was driving is driven by another worker (or
 * final, or waiting by design for a later poll) and, when it held the run's lease, another worker
 * holds that.
 *
 * Env: SANDBOX_URL, SANDBOX_ADMIN_TOKEN, BENCH_DIR, BENCH_R (the sandbox's limit per account, for
 * the utilisation), DATABASE_URL + FERRY_TEST_PG_URL for PostgreSQL.
 * Prints progress, then one line `RESULT {…}` (WorkersRun) for the orchestrating bench.
 */
import { and, eq, inArray, isNotNull, notInArray } from "drizzle-orm";
import { migrationItems, migrationRuns, serviceCalls } from "@/db/schema";
import type { Database } from "@/db/database";
import { freshPostgresDatabase } from "./_pg-database";
import { databaseDialect } from "@/db/dialect";
import { FINAL_ITEM_STATES } from "@/core/migration/states";
import { startBulkRun } from "@/server/migration/bulk/bulk-controls";
import { createControlClient } from "@/server/sandbox/controls/control-client";
import { generateKeySpec, keyRingFrom } from "@/server/security/secrets";
import { seedPeople, TEST_NOTIFY } from "@/server/testing/test-db";
import {
  benchCompanies,
  createBenchBed,
  readyBulk,
  recordedCalls,
  runNow,
  sandboxDuplicates,
  startWorkerProcess,
  statesOf,
  until,
  type BenchBed,
  type WorkerProcess,
} from "./_bulk";

/** What one measured run found (printed as `RESULT {…}`). */
export type WorkersRun = {
  database: "SQLite" | "PostgreSQL";
  workers: number;
  companies: number;
  wallS: number;
  requests: number;
  recorded: number;
  /** Seconds from the start control to the first recorded answer, and from the last to the run's end. */
  firstCallS: number;
  tailS: number;
  rateLimited: number;
  utilisation: number;
  share429: number;
  duplicates: number;
  lost: number;
  helped: number;
  kills: number;
  /** Per kill: seconds until the dead worker's work was held by live workers again. */
  resumeS: number[];
};

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** A bench bed on a fresh, migrated PostgreSQL database of the server FERRY_TEST_PG_URL names (dropped on close). */
async function postgresBed(): Promise<BenchBed & { url: string }> {
  const server = process.env.FERRY_TEST_PG_URL!;
  const { url, database, close } = await freshPostgresDatabase(server, { max: 10 });
  const keySpec = generateKeySpec("bench");
  return {
    url,
    database,
    db: database.db,
    file: "",
    keySpec,
    ring: keyRingFrom(keySpec),
    people: await seedPeople(database),
    close,
  };
}

/** The owner id a worker process printed as it started. */
const ownerOf = (w: WorkerProcess) => /^Migration worker (\S+) started/.exec(w.lines.find((l) => l.startsWith("Migration worker ")) ?? "")?.[1] ?? null;

/** Seconds from a kill until the dead owner's work is held by live workers again (see the module comment). */
async function resumeAfterKill(database: Database, params: { runId: string; dead: string; items: readonly string[]; heldRun: boolean; killedAt: number }): Promise<number> {
  await until(
    `the work of ${params.dead} taken over`,
    async () => {
      const now = new Date();
      const stillHeld = params.items.length
        ? await database.db
            .select({ id: migrationItems.id, nextAttemptAt: migrationItems.nextAttemptAt })
            .from(migrationItems)
            .where(and(inArray(migrationItems.id, [...params.items]), eq(migrationItems.leaseOwner, params.dead), notInArray(migrationItems.state, [...FINAL_ITEM_STATES])))
        : [];
      // A company the dead worker held that waits for a later poll is not due: no live worker should take it yet.
      const due = stillHeld.filter((i) => !i.nextAttemptAt || i.nextAttemptAt <= now).length;
      const [run] = await database.db.select({ owner: migrationRuns.leaseOwner, status: migrationRuns.status }).from(migrationRuns).where(eq(migrationRuns.id, params.runId));
      const runHeld = params.heldRun && run?.status === "running" && run.owner === params.dead;
      return due === 0 && !runHeld;
    },
    (done) => done,
    120_000,
  );
  return (Date.now() - params.killedAt) / 1000;
}

async function main(): Promise<void> {
  const workers = arg("workers", 3);
  const companies = arg("companies", 1000);
  const kills = arg("kills", 0);
  const R = Number(process.env.BENCH_R ?? 100);
  const onPostgres = databaseDialect() === "postgresql";
  const sandbox = { url: process.env.SANDBOX_URL!, adminToken: process.env.SANDBOX_ADMIN_TOKEN! };
  const access = { ...sandbox, control: createControlClient(sandbox) };
  const bed: BenchBed & { url?: string } = onPostgres ? await postgresBed() : await createBenchBed(process.env.BENCH_DIR!, `run-${process.pid}`);
  // The workers open the run's own database: a PostgreSQL run's URL, or (an empty URL) the SQLite file.
  const workerEnv = { DATABASE_URL: bed.url ?? "" };
  const started: WorkerProcess[] = [];
  try {
    const setupStart = performance.now();
    const eng = await readyBulk(bed, access, benchCompanies(companies));
    console.log(`  set-up (not timed): ${companies} sandbox tenants, an engagement through steps 1–5 on ${onPostgres ? "PostgreSQL" : "SQLite"}, in ${((performance.now() - setupStart) / 1000).toFixed(1)} s`);

    // The workers are started and idle before the run is.
    const slots = Array.from({ length: workers }, () => startWorkerProcess(bed, access, workerEnv));
    started.push(...slots);
    await Promise.all(slots.map((w) => w.ready));
    const { runId } = await startBulkRun(bed.database, TEST_NOTIFY, bed.people.support, { engagementId: eng.engagementId });
    const runStart = Date.now();

    // The kills: spread over the run's expected length (requests ÷ R, about six per company), round the workers.
    const resumeS: number[] = [];
    const killing = (async () => {
      const expectedMs = ((companies * 6) / R) * 1000;
      const every = Math.max(1_500, expectedMs / (kills + 1));
      for (let k = 0; k < kills; k++) {
        await new Promise((r) => setTimeout(r, runStart + every * (k + 1) - Date.now()));
        const run = await runNow(bed.database, runId);
        if (run.status !== "running" && run.status !== "queued") break;
        const slot = k % workers;
        const victim = slots[slot]!;
        const dead = ownerOf(victim);
        if (!dead) continue;
        const held = await bed.database.db
          .select({ id: migrationItems.id })
          .from(migrationItems)
          .where(and(eq(migrationItems.runId, runId), eq(migrationItems.leaseOwner, dead), isNotNull(migrationItems.leaseExpiresAt)));
        const killedAt = Date.now();
        victim.kill("SIGKILL");
        await victim.exited;
        const measured = resumeAfterKill(bed.database, { runId, dead, items: held.map((h) => h.id), heldRun: run.leaseOwner === dead, killedAt }).then((s) => {
          resumeS.push(s);
          console.log(`  kill ${k + 1}: worker ${slot + 1} (${held.length} companies${run.leaseOwner === dead ? " and the run's lease" : ""}) taken over in ${s.toFixed(2)} s`);
        });
        // Started again a second later, as the supervisor (or systemd) does.
        await new Promise((r) => setTimeout(r, 1_000));
        const again = startWorkerProcess(bed, access, workerEnv);
        slots[slot] = again;
        started.push(again);
        await again.ready;
        await measured;
      }
    })();

    const run = await until("the bulk run to end", () => runNow(bed.database, runId), (r) => !["queued", "running"].includes(r.status), 30 * 60_000);
    await killing;
    if (run.status !== "completed") throw new Error(`the bulk run ended ${run.status}: ${run.statusReason}`);
    await Promise.all(
      slots.map((w) => {
        w.kill("SIGTERM");
        return w.exited;
      }),
    );

    const wallS = (run.finishedAt!.getTime() - run.requestedAt.getTime()) / 1000;
    // Read again once every worker has stopped: a helper adds its last requests as it lets go.
    const outcome = (await runNow(bed.database, runId)).outcome as { requests?: number; rateLimited?: number };
    const requests = outcome.requests ?? 0;
    const rateLimited = outcome.rateLimited ?? 0;
    const recorded = await recordedCalls(bed.database, runId);
    // Where the wall time goes: answers recorded in each second from the start control (the run's
    // last seconds are its companies' last syncs, each worker sending only its part of the limit).
    const calls = await bed.database.db.select({ at: serviceCalls.at }).from(serviceCalls).where(eq(serviceCalls.runId, runId));
    const startedAt = run.requestedAt.getTime();
    const times = calls.map((call) => call.at.getTime());
    const perSecond: number[] = [];
    for (const at of times) {
      const second = Math.max(0, Math.floor((at - startedAt) / 1000));
      perSecond[second] = (perSecond[second] ?? 0) + 1;
    }
    console.log(`  answers recorded per second: ${Array.from(perSecond, (n) => n ?? 0).join(" ")}`);
    const states = await statesOf(bed.database, eng.engagementId);
    const notFinal = Object.entries(states)
      .filter(([state]) => !(FINAL_ITEM_STATES as readonly string[]).includes(state))
      .reduce((n, [, k]) => n + k, 0);
    const dup = await sandboxDuplicates(access, eng.apiKey, eng.items.map((i) => i.id));
    const result: WorkersRun = {
      database: onPostgres ? "PostgreSQL" : "SQLite",
      workers,
      companies,
      wallS,
      requests,
      recorded: recorded.all,
      firstCallS: times.length ? (Math.min(...times) - startedAt) / 1000 : 0,
      tailS: times.length ? (run.finishedAt!.getTime() - Math.max(...times)) / 1000 : 0,
      rateLimited,
      utilisation: requests / R / wallS,
      share429: requests ? rateLimited / requests : 0,
      duplicates: dup.duplicateCompanies + dup.duplicateConnections,
      lost: notFinal + dup.missing,
      helped: started.filter((w) => w.lines.some((l) => l.startsWith("helping with bulk run"))).length,
      kills: resumeS.length,
      resumeS,
    };
    console.log(`RESULT ${JSON.stringify(result)}`);
  } finally {
    for (const w of started) {
      w.kill("SIGTERM");
      await w.exited;
    }
    await bed.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
