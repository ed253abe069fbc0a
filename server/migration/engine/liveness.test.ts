/**
 * A dead worker is known at once where that can be known, and its work is taken over without
 * waiting out its lease; a live worker's work, and a worker's that cannot be known dead, are not:
 * - on this host, a registered worker whose process is gone (a real process, killed): its run and
 *   companies are free to claim at once, through a real worker's `runOnce`;
 * - on this host, a registered worker whose process lives: nothing of it is taken;
 * - on another host (on either database, without the advisory lock): the lease decides;
 * - on PostgreSQL, a worker on another host holding its advisory lock on a session of its own is
 *   alive, and dead the moment that session ends.
 * Leases are long (a minute) and every clock is a `now` given: no test waits for a lease.
 *
 * Runs on both databases: the register, the reaping's updates, and PostgreSQL's advisory locks.
 * @module-tag both-databases
 */
import { spawn, type ChildProcess } from "node:child_process";
import { eq, inArray } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openAdvisoryLocks } from "@/db/advisory-locks";
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { migrationItems, migrationRuns, rateBudgetMembers, workerProcesses } from "@/db/schema";
import { otherConnection, TEST_KEY_RING } from "@/server/testing/test-db";
import { engineTestBed } from "../../testing/test-bed";
import { claimItems, findItem } from "./item-repository";
import { createLiveness, hostOf, processGone, registerWorker, WORKER_LOCK_NAMESPACE } from "./liveness";
import { claimRun, findRun, finishRunRow, insertRun, type RunRow } from "./run-repository";
import { createWorker } from "./worker";
import type { RunWork } from "./work";

const bed = engineTestBed();
const inTx = <T>(database: Database, body: (tx: Tx) => Steps<T>) => database.transaction(body, { isolation: "read committed" });
const LEASE_MS = 60_000;
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

/** A real process that waits (alive until killed). */
async function aProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  children.push(child);
  await new Promise((resolve) => child.once("spawn", resolve));
  return child;
}

/** A process that lived and was killed with SIGKILL: its id is gone. */
async function aDeadProcess(): Promise<number> {
  const child = await aProcess();
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
  return child.pid!;
}

/** Only the runs of the test at hand are there to claim. */
async function endOtherRuns(): Promise<void> {
  await bed.t.db.update(migrationRuns).set({ status: "completed", leaseOwner: null, leaseExpiresAt: null }).where(inArray(migrationRuns.status, ["queued", "running"]));
}

/** A bulk run of `n` companies, claimed (run and companies) by `owner` with a long lease. */
async function heldBulkRun(owner: string, n = 2): Promise<{ runId: string; itemIds: string[]; serviceTargetId: string }> {
  const eng = await bed.ready(Array.from({ length: n }, (_, i) => ({ name: `${owner} ${i}`, records: 1 })));
  const runId = crypto.randomUUID();
  await inTx(bed.t.database, (tx) => insertRun(tx, { id: runId, engagementId: eng.engagementId, kind: "bulk", serviceTargetId: eng.serviceTargetId, itemId: null, requestedById: bed.people.support.id, now: new Date(Date.now() - 60_000) }));
  await bed.t.db.update(migrationItems).set({ runId }).where(eq(migrationItems.engagementId, eng.engagementId));
  expect((await inTx(bed.t.database, (tx) => claimRun(tx, { owner, kinds: ["bulk"], leaseMs: LEASE_MS, now: new Date() })))?.id).toBe(runId);
  expect(await inTx(bed.t.database, (tx) => claimItems(tx, { runId, owner, limit: n, leaseMs: LEASE_MS, now: new Date() }))).toHaveLength(n);
  return { runId, itemIds: eng.items.map((i) => i.id), serviceTargetId: eng.serviceTargetId };
}

const register = (owner: string, host: string, pid: number, holdsLock = false) =>
  inTx(bed.t.database, (tx) => registerWorker(tx, { owner, host, pid, holdsLock, startedAt: new Date() }));

/** A worker whose bulk work only notes the runs it was given and the companies it could claim of them. */
function noteTaker() {
  const taken: { run: RunRow; items: string[] }[] = [];
  const work: RunWork = {
    kinds: ["bulk"],
    async carryOut(ctx, run) {
      const items = await inTx(ctx.database, (tx) => claimItems(tx, { runId: run.id, owner: ctx.owner, limit: 10, leaseMs: LEASE_MS, now: new Date() }));
      taken.push({ run, items: items.map((i) => i.id) });
      await inTx(ctx.database, (tx) => finishRunRow(tx, { runId: run.id, owner: ctx.owner, token: run.leaseToken!, status: "completed", outcome: {}, statusReason: null, now: new Date() }));
    },
    async fail() {},
  };
  const worker = createWorker({ database: bed.t.database, ring: TEST_KEY_RING, owner: `live-${crypto.randomUUID().slice(0, 6)}`, work: [work], budget: null, leaseMs: LEASE_MS });
  return { worker, taken };
}

describe("a dead worker is known at once where it can be", () => {
  it("tells a gone process from a live one", async () => {
    const live = await aProcess();
    expect(processGone(live.pid!)).toBe(false);
    expect(processGone(process.pid)).toBe(false);
    expect(processGone(await aDeadProcess())).toBe(true);
  });

  it("on this host: a killed worker's run and companies are taken over at once by a worker's next claim; a live worker's are not", async () => {
    await endOtherRuns();
    const host = hostOf();
    const deadPid = await aDeadProcess();
    const live = await aProcess();
    await register("w-dead", host, deadPid);
    await register("w-live", host, live.pid!);
    const dead = await heldBulkRun("w-dead");
    const living = await heldBulkRun("w-live");
    // Each has a seat in the target's rate budget, heartbeaten just now.
    const seat = (owner: string) => ({ id: `${owner}/${crypto.randomUUID()}`, targetId: dead.serviceTargetId, machineId: "this-machine", joinedAt: new Date(), heartbeatAt: new Date() });
    const [deadSeat, liveSeat] = [seat("w-dead"), seat("w-live")];
    await bed.t.db.insert(rateBudgetMembers).values([deadSeat, liveSeat]);

    const { worker, taken } = noteTaker();
    // Its first claim: the dead worker's run, at once (its lease had a minute to go), with its companies.
    expect((await worker.runOnce())?.id).toBe(dead.runId);
    expect(taken).toHaveLength(1);
    expect(taken[0]!.items.sort()).toEqual([...dead.itemIds].sort());
    // The live worker's run and companies stay its own.
    expect(await worker.runOnce()).toBeNull();
    expect(await readSteps(bed.t.database, (tx) => findRun(tx, living.runId))).toMatchObject({ leaseOwner: "w-live" });
    for (const id of living.itemIds) expect((await readSteps(bed.t.database, (tx) => findItem(tx, id)))?.leaseOwner).toBe("w-live");
    // The dead one's seat is stale at once (its share and quota come back); the live one's is not.
    const seats = await bed.t.db.select().from(rateBudgetMembers).where(inArray(rateBudgetMembers.id, [deadSeat.id, liveSeat.id]));
    expect(seats.find((m) => m.id === deadSeat.id)?.heartbeatAt.getTime()).toBe(0);
    expect(seats.find((m) => m.id === liveSeat.id)?.heartbeatAt.getTime()).toBe(liveSeat.heartbeatAt.getTime());
    // The dead one has left the register; the live one and the new worker are in it.
    const registered = (await bed.t.db.select().from(workerProcesses)).map((w) => w.owner);
    expect(registered).not.toContain("w-dead");
    expect(registered).toEqual(expect.arrayContaining(["w-live", worker.owner]));
    await worker.stop();
    expect((await bed.t.db.select().from(workerProcesses)).map((w) => w.owner)).not.toContain(worker.owner);
  });

  it("on another host (no advisory lock to tell): the lease decides, even though its process id is gone here", async () => {
    await endOtherRuns();
    await register("w-far", "another-machine", await aDeadProcess());
    const far = await heldBulkRun("w-far", 1);
    const reaper = createLiveness({ database: bed.t.database, owner: "w-reaper", log: () => {} });
    await reaper.register();
    const now = new Date();
    expect(await reaper.reap(now)).toEqual([]);
    expect(await inTx(bed.t.database, (tx) => claimRun(tx, { owner: "w-reaper", kinds: ["bulk"], leaseMs: LEASE_MS, now }))).toBeUndefined();
    expect(await inTx(bed.t.database, (tx) => claimItems(tx, { runId: far.runId, owner: "w-reaper", limit: 5, leaseMs: LEASE_MS, now }))).toEqual([]);
    // Once its lease has run out, it is taken over as it always was.
    const after = new Date(now.getTime() + LEASE_MS + 1);
    expect((await inTx(bed.t.database, (tx) => claimRun(tx, { owner: "w-reaper", kinds: ["bulk"], leaseMs: LEASE_MS, now: after })))?.id).toBe(far.runId);
    await reaper.leave();
  });

  it("on PostgreSQL: a worker elsewhere holding its advisory lock is alive, and dead the moment its session ends", async (ctx) => {
    if (bed.t.database.dialect !== "postgresql") return ctx.skip();
    await endOtherRuns();
    // The far worker: a connection of its own holding its lock, as a worker process on another machine does.
    const farDatabase = otherConnection(bed.t, { max: 1 });
    const locks = (await openAdvisoryLocks(farDatabase))!;
    expect(await locks.hold(WORKER_LOCK_NAMESPACE, "w-pg-far")).toBe(true);
    await register("w-pg-far", "another-machine", 1, true);
    const far = await heldBulkRun("w-pg-far", 1);
    const reaper = createLiveness({ database: bed.t.database, owner: "w-pg-reaper", log: () => {} });
    await reaper.register();
    try {
      expect(await reaper.reap()).toEqual([]);
      expect(await inTx(bed.t.database, (tx) => claimRun(tx, { owner: "w-pg-reaper", kinds: ["bulk"], leaseMs: LEASE_MS, now: new Date() }))).toBeUndefined();
      // Its session ends (the process killed, the connection dropped): the server lets go of the lock.
      await locks.close();
      expect(await reaper.reap()).toEqual(["w-pg-far"]);
      expect((await inTx(bed.t.database, (tx) => claimRun(tx, { owner: "w-pg-reaper", kinds: ["bulk"], leaseMs: LEASE_MS, now: new Date() })))?.id).toBe(far.runId);
      expect(await inTx(bed.t.database, (tx) => claimItems(tx, { runId: far.runId, owner: "w-pg-reaper", limit: 5, leaseMs: LEASE_MS, now: new Date() }))).toHaveLength(1);
    } finally {
      await reaper.leave();
      await farDatabase.close();
    }
  });
});
