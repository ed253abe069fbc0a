/**
 * A fencing token per claim, not per worker: every claim and takeover of a run or a company sets a
 * fresh token, and every write and renewal names it. A worker that lost a lease and claimed the
 * same run or company again can never write or renew with the claim it lost — only with the new one.
 * The clock is the `now` each statement is given: no test waits for a lease to run out.
 *
 * Runs on both databases: the fences are conditional updates, whose answers may differ.
 * @module-tag both-databases
 */
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { migrationItems, migrationRuns, serviceCalls } from "@/db/schema";
import { engineTestBed } from "../../testing/test-bed";
import { claimItem, claimItems, failItemAlone, findItem, LeaseLostError, markInFlight, releaseItemLease, renewItemLeases, storeCallResult, type CallRecord } from "./item-repository";
import type { Transition } from "./pipeline";
import { claimRun, findRun, finishRunRow, insertRun, releaseRun, renewRunLease, takeOverRun, updateRunProgress } from "./run-repository";

const bed = engineTestBed();
const inTx = <T>(database: Database, body: (tx: Tx) => Steps<T>) => database.transaction(body, { isolation: "read committed" });
const LEASE_MS = 1_000;

async function bulkRun(n: number): Promise<{ runId: string; itemIds: string[] }> {
  // Only this run is there to claim.
  await bed.t.db.update(migrationRuns).set({ status: "completed", leaseOwner: null, leaseExpiresAt: null }).where(inArray(migrationRuns.status, ["queued", "running"]));
  const eng = await bed.ready(Array.from({ length: n }, (_, i) => ({ name: `Fenced ${i}`, records: 1 })));
  const runId = crypto.randomUUID();
  await inTx(bed.t.database, (tx) => insertRun(tx, { id: runId, engagementId: eng.engagementId, kind: "bulk", serviceTargetId: eng.serviceTargetId, itemId: null, requestedById: bed.people.support.id, now: new Date(Date.now() - 60_000) }));
  await bed.t.db.update(migrationItems).set({ runId }).where(eq(migrationItems.engagementId, eng.engagementId));
  return { runId, itemIds: eng.items.map((i) => i.id) };
}

describe("a fencing token per claim", () => {
  it("a company claimed again by the same worker: the lost claim's writes, renewal and release are refused, the new claim's pass", async () => {
    const { runId, itemIds } = await bulkRun(1);
    const itemId = itemIds[0]!;
    const db = bed.t.database;
    const t0 = new Date();
    const first = await inTx(db, (tx) => claimItems(tx, { runId, owner: "worker-a", limit: 1, leaseMs: LEASE_MS, now: t0 }));
    const stale = first[0]!.leaseToken!;
    // worker-a stalls past its lease and claims the company again: a new claim, a new token.
    const later = new Date(t0.getTime() + LEASE_MS + 1);
    const again = await inTx(db, (tx) => claimItem(tx, { itemId, runId, owner: "worker-a", leaseMs: LEASE_MS, now: later }));
    const fresh = again!.leaseToken!;
    expect(fresh).not.toBe(stale);

    const transition: Transition = { state: "company_created", companyId: "c-stale", connectionId: null, inFlightCall: null, checks: null, attempts: 0, nextAttemptAt: null, lastError: null, outcomeReason: null, runEffect: null };
    const record: CallRecord = { at: later, operation: "createCompany", method: "POST", path: "/companies", status: 200, ok: true, errorKind: null, errorText: null, correlationId: "stale", durationMs: 1, attempts: 1, detail: null };
    // The lost claim: same owner, old token — nothing is written, nothing renewed, nothing let go.
    await expect(inTx(db, (tx) => markInFlight(tx, { itemId, owner: "worker-a", token: stale, call: "createCompany", now: later }))).rejects.toThrow(LeaseLostError);
    await expect(storeCallResult(db, { itemId, runId, owner: "worker-a", token: stale, record, transition, now: later })).rejects.toThrow(LeaseLostError);
    expect(await inTx(db, (tx) => renewItemLeases(tx, { owner: "worker-a", tokens: [stale], runId, leaseMs: 60_000, now: later }))).toBe(0);
    await failItemAlone(db, { itemId, owner: "worker-a", token: stale, now: later, error: { operation: "run", kind: "internal", status: null, service: null, error: "stale", correlationId: null, at: later.toISOString() } });
    await inTx(db, (tx) => releaseItemLease(tx, { itemId, owner: "worker-a", token: stale }));
    const untouched = (await readSteps(db, (tx) => findItem(tx, itemId)))!;
    expect(untouched).toMatchObject({ state: "pending", companyId: null, inFlightCall: null, leaseOwner: "worker-a", leaseToken: fresh });
    expect(untouched.leaseExpiresAt!.getTime()).toBe(later.getTime() + LEASE_MS);
    expect(await bed.t.db.select().from(serviceCalls).where(eq(serviceCalls.itemId, itemId))).toEqual([]);

    // The new claim: renewed and written.
    expect(await inTx(db, (tx) => renewItemLeases(tx, { owner: "worker-a", tokens: [fresh], runId, leaseMs: 60_000, now: later }))).toBe(1);
    await storeCallResult(db, { itemId, runId, owner: "worker-a", token: fresh, record: { ...record, correlationId: "fresh" }, transition: { ...transition, companyId: "c-fresh" }, now: later });
    expect(await readSteps(db, (tx) => findItem(tx, itemId))).toMatchObject({ state: "company_created", companyId: "c-fresh" });
  });

  it("a run claimed again by the same worker: the lost claim cannot renew, store progress, end or let go of it; a takeover's token fences the same way", async () => {
    const { runId } = await bulkRun(1);
    const db = bed.t.database;
    const t0 = new Date();
    const first = (await inTx(db, (tx) => claimRun(tx, { owner: "worker-a", kinds: ["bulk"], leaseMs: LEASE_MS, now: t0 })))!;
    expect(first.id).toBe(runId);
    const later = new Date(t0.getTime() + LEASE_MS + 1);
    const again = (await inTx(db, (tx) => claimRun(tx, { owner: "worker-a", kinds: ["bulk"], leaseMs: LEASE_MS, now: later })))!;
    expect(again.id).toBe(runId);
    expect(again.leaseToken).not.toBe(first.leaseToken);
    const stale = first.leaseToken!;

    expect(await inTx(db, (tx) => renewRunLease(tx, { runId, owner: "worker-a", token: stale, leaseMs: 60_000, now: later }))).toBe(false);
    expect(await inTx(db, (tx) => updateRunProgress(tx, { runId, owner: "worker-a", token: stale, now: later, outcome: { stale: true } }))).toBe(false);
    expect(await inTx(db, (tx) => finishRunRow(tx, { runId, owner: "worker-a", token: stale, status: "completed", outcome: { stale: true }, statusReason: null, now: later }))).toBe(false);
    await inTx(db, (tx) => releaseRun(tx, { runId, owner: "worker-a", token: stale }));
    expect(await readSteps(db, (tx) => findRun(tx, runId))).toMatchObject({ status: "running", leaseOwner: "worker-a", leaseToken: again.leaseToken, finishedAt: null });

    expect(await inTx(db, (tx) => renewRunLease(tx, { runId, owner: "worker-a", token: again.leaseToken!, leaseMs: LEASE_MS, now: later }))).toBe(true);
    // A helper takes the run over once that lease runs out: a new token again, and the old ones are refused.
    const afterThat = new Date(later.getTime() + LEASE_MS + 1);
    const taken = (await inTx(db, (tx) => takeOverRun(tx, { runId, owner: "worker-b", leaseMs: LEASE_MS, now: afterThat })))!;
    expect(new Set([stale, again.leaseToken, taken.leaseToken]).size).toBe(3);
    expect(await inTx(db, (tx) => updateRunProgress(tx, { runId, owner: "worker-a", token: again.leaseToken!, now: afterThat, outcome: { late: true } }))).toBe(false);
    expect(await inTx(db, (tx) => finishRunRow(tx, { runId, owner: "worker-b", token: taken.leaseToken!, status: "completed", outcome: { done: true }, statusReason: null, now: afterThat }))).toBe(true);
    expect(await readSteps(db, (tx) => findRun(tx, runId))).toMatchObject({ status: "completed", outcome: { done: true }, leaseOwner: null, leaseToken: null });
  });
});
