/**
 * The bulk run's own writes to its run are fenced on the coordinator's claim, as the engine's are
 * (engine/fencing.test.ts): a worker whose claim of the run was lost (and taken again, with a new
 * token) can no longer stop the run, nor write the pace samples and the hold the screens show;
 * the requests it made are still counted. Support's controls name no claim and are not fenced.
 * The clock is the `now` each statement is given.
 *
 * Runs on both databases: the fences are conditional updates.
 * @module-tag both-databases
 */
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { migrationItems, migrationRuns } from "@/db/schema";
import { engineTestBed } from "../../testing/test-bed";
import { claimRun, findRun, insertRun } from "../engine/run-repository";
import { addPace, setBulkStatus, type BulkOutcome } from "./bulk-repository";

const bed = engineTestBed();
const inTx = <T>(database: Database, body: (tx: Tx) => Steps<T>) => database.transaction(body, { isolation: "read committed" });
const LEASE_MS = 1_000;

/** A bulk run claimed twice by worker-a (its lease ran out in between): the first claim's token and the second's. */
async function claimedTwice(): Promise<{ runId: string; stale: string; fresh: string; later: Date }> {
  await bed.t.db.update(migrationRuns).set({ status: "completed", leaseOwner: null, leaseExpiresAt: null }).where(inArray(migrationRuns.status, ["queued", "running"]));
  const eng = await bed.ready([{ name: "Fenced bulk", records: 1 }]);
  const runId = crypto.randomUUID();
  await inTx(bed.t.database, (tx) => insertRun(tx, { id: runId, engagementId: eng.engagementId, kind: "bulk", serviceTargetId: eng.serviceTargetId, itemId: null, requestedById: bed.people.support.id, now: new Date(Date.now() - 60_000) }));
  await bed.t.db.update(migrationItems).set({ runId }).where(eq(migrationItems.engagementId, eng.engagementId));
  const t0 = new Date();
  const first = (await inTx(bed.t.database, (tx) => claimRun(tx, { owner: "worker-a", kinds: ["bulk"], leaseMs: LEASE_MS, now: t0 })))!;
  const later = new Date(t0.getTime() + LEASE_MS + 1);
  const second = (await inTx(bed.t.database, (tx) => claimRun(tx, { owner: "worker-a", kinds: ["bulk"], leaseMs: LEASE_MS, now: later })))!;
  expect(second.id).toBe(runId);
  return { runId, stale: first.leaseToken!, fresh: second.leaseToken!, later };
}

const outcomeOf = async (runId: string) => ((await readSteps(bed.t.database, (tx) => findRun(tx, runId)))!.outcome ?? {}) as BulkOutcome;

describe("the bulk run's writes fenced on its claim", () => {
  it("a lost claim cannot stop the run; the claim that holds it can", async () => {
    const { runId, stale, fresh, later } = await claimedTwice();
    const stop = (token: string) =>
      inTx(bed.t.database, (tx) => setBulkStatus(tx, { runId, from: ["running"], to: "stopped", reason: "The key was refused.", now: later, claim: { owner: "worker-a", token } }));
    expect(await stop(stale)).toBe(false);
    expect(await readSteps(bed.t.database, (tx) => findRun(tx, runId))).toMatchObject({ status: "running", leaseOwner: "worker-a", leaseToken: fresh });
    expect(await stop(fresh)).toBe(true);
    expect(await readSteps(bed.t.database, (tx) => findRun(tx, runId))).toMatchObject({ status: "stopped", statusReason: "The key was refused.", leaseOwner: null });
  });

  it("support's pause names no claim and is not fenced", async () => {
    const { runId, later } = await claimedTwice();
    expect(await inTx(bed.t.database, (tx) => setBulkStatus(tx, { runId, from: ["queued", "running"], to: "paused", reason: "Paused by Sam.", now: later }))).toBe(true);
    expect(await readSteps(bed.t.database, (tx) => findRun(tx, runId))).toMatchObject({ status: "paused" });
  });

  it("a lost claim's pace adds its requests but no sample or hold; the holding claim's adds both", async () => {
    const { runId, stale, fresh, later } = await claimedTwice();
    const hold = { kind: "quota", text: "The daily quota is spent.", until: null };
    const pace = (token: string, requests: number) =>
      addPace(bed.t.database, { runId, delta: { requests, rateLimited: 1 }, coordinator: { claim: { owner: "worker-a", token }, finished: 3, limit: { requests: 10, perSeconds: 1 }, hold }, now: later });
    await pace(stale, 5);
    expect(await outcomeOf(runId)).toEqual({ requests: 5, rateLimited: 1 });
    await pace(fresh, 7);
    expect(await outcomeOf(runId)).toEqual({ requests: 12, rateLimited: 2, samples: [[later.getTime(), 12, 3]], limit: { requests: 10, perSeconds: 1 }, hold });
  });
});
