/**
 * Claims on items (what a bulk run's workers share a run's items with) on the test database
 * (SQLite, or PostgreSQL on its pass), from two connections as two worker processes would: each
 * item goes to one worker, waiting and finished items are not handed out, an expired lease is free
 * again, and a store without the lease writes nothing. (claims-pg.test.ts has the same at once.)
 *
 * Runs on both databases: the items' repository: claims, leases and fenced writes.
 * @module-tag both-databases
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { migrationItems, serviceCalls } from "@/db/schema";
import { otherConnection } from "@/server/testing/test-db";
import { claimItems, findItem, LeaseLostError, releaseItemLeases, renewItemLeases, storeCallResult } from "./item-repository";
import { insertRun } from "./run-repository";
import { engineTestBed } from "../../testing/test-bed";

const bed = engineTestBed();

/** A step in a read-committed transaction of its own on `database`, as the worker runs it. */
const inTx = <T>(database: Database, body: (tx: Tx) => Steps<T>) => database.transaction(body, { isolation: "read committed" });

describe("claiming a run's items", () => {
  it("hands each item to one worker, in file order, skipping waiting and finished ones; an expired lease is free again", async () => {
    const eng = await bed.ready(Array.from({ length: 10 }, (_, i) => ({ name: `Bulk ${i}` })));
    const runId = crypto.randomUUID();
    const now = new Date();
    const database = bed.t.database;
    await inTx(database, (tx) => insertRun(tx, { id: runId, engagementId: eng.engagementId, kind: "bulk", serviceTargetId: eng.serviceTargetId, itemId: null, requestedById: bed.people.support.id, now }));
    await bed.t.db.update(migrationItems).set({ runId }).where(eq(migrationItems.engagementId, eng.engagementId));
    const [first, second, , , , , , , waiting, done] = eng.items;
    await bed.t.db.update(migrationItems).set({ nextAttemptAt: new Date(now.getTime() + 60_000) }).where(eq(migrationItems.id, waiting!.id));
    await bed.t.db.update(migrationItems).set({ state: "verified" }).where(eq(migrationItems.id, done!.id));

    const other = otherConnection(bed.t);
    try {
      const a = await inTx(database, (tx) => claimItems(tx, { runId, owner: "a", limit: 3, leaseMs: 1_000, now }));
      const b = await inTx(other, (tx) => claimItems(tx, { runId, owner: "b", limit: 10, leaseMs: 1_000, now }));
      // The first ones in file order (PostgreSQL returns updated rows in no particular order).
      expect(a.map((i) => i.name).sort()).toEqual(["Bulk 0", "Bulk 1", "Bulk 2"]);
      expect(b.map((i) => i.name).sort()).toEqual(["Bulk 3", "Bulk 4", "Bulk 5", "Bulk 6", "Bulk 7"]);
      expect(await inTx(database, (tx) => claimItems(tx, { runId, owner: "c", limit: 10, leaseMs: 1_000, now }))).toEqual([]);

      // a renews; b dies. Once b's leases expire, c takes its items, not a's.
      const later = new Date(now.getTime() + 1_500);
      expect(await inTx(database, (tx) => renewItemLeases(tx, { owner: "a", tokens: a.map((i) => i.leaseToken!), runId, leaseMs: 1_000, now: new Date(now.getTime() + 900) }))).toBe(3);
      const c = await inTx(database, (tx) => claimItems(tx, { runId, owner: "c", limit: 10, leaseMs: 1_000, now: later }));
      expect(c.map((i) => i.name).sort()).toEqual(["Bulk 3", "Bulk 4", "Bulk 5", "Bulk 6", "Bulk 7"]);

      // b, come back, can store nothing; a lets go of one item and it is free at once.
      const transition = { state: "company_created" as const, companyId: "c1", connectionId: null, inFlightCall: null, checks: null, attempts: 0, nextAttemptAt: null, lastError: null, outcomeReason: null, runEffect: null };
      const record = { at: later, operation: "createCompany", method: "POST", path: "/companies", status: 200, ok: true, errorKind: null, errorText: null, correlationId: "x", durationMs: 1, attempts: 1, detail: null };
      await expect(storeCallResult(other, { itemId: eng.items[3]!.id, runId, owner: "b", token: b[0]!.leaseToken!, record, transition, now: later })).rejects.toThrow(LeaseLostError);
      expect(await readSteps(database, (tx) => findItem(tx, eng.items[3]!.id))).toMatchObject({ state: "pending", leaseOwner: "c" });
      expect(await bed.t.db.select().from(serviceCalls).where(eq(serviceCalls.itemId, eng.items[3]!.id))).toEqual([]);
      await inTx(database, (tx) => releaseItemLeases(tx, { owner: "a", runId }));
      const d = await inTx(other, (tx) => claimItems(tx, { runId, owner: "d", limit: 2, leaseMs: 1_000, now: later }));
      expect(d.map((i) => i.id).sort()).toEqual([first!.id, second!.id].sort());
    } finally {
      await other.close();
    }
  });

  it("hands out a dead worker's companies (lease run out, never let go) before free ones further up the file, and alone when asked", async () => {
    const eng = await bed.ready(Array.from({ length: 6 }, (_, i) => ({ name: `Orphan ${i}` })));
    const runId = crypto.randomUUID();
    const now = new Date();
    const database = bed.t.database;
    await inTx(database, (tx) => insertRun(tx, { id: runId, engagementId: eng.engagementId, kind: "bulk", serviceTargetId: eng.serviceTargetId, itemId: null, requestedById: bed.people.support.id, now }));
    await bed.t.db.update(migrationItems).set({ runId }).where(eq(migrationItems.engagementId, eng.engagementId));
    // A worker that died held the last two (their leases run out a second from now); the first four were never taken.
    const [o0, o1, o2, o3, o4, o5] = eng.items;
    await bed.t.db.update(migrationItems).set({ leaseOwner: "dead", leaseExpiresAt: new Date(now.getTime() + 1_000) }).where(eq(migrationItems.id, o4!.id));
    await bed.t.db.update(migrationItems).set({ leaseOwner: "dead", leaseExpiresAt: new Date(now.getTime() + 1_000) }).where(eq(migrationItems.id, o5!.id));
    const later = new Date(now.getTime() + 1_500);

    // Only the orphans when asked for them alone (a worker at its cap takes these over).
    const rescued = await inTx(database, (tx) => claimItems(tx, { runId, owner: "live", limit: 1, leaseMs: 1_000, now: later, orphanedOnly: true }));
    expect(rescued.map((i) => i.id)).toEqual([o4!.id]);
    // Otherwise the remaining orphan first, then file order.
    const next = await inTx(database, (tx) => claimItems(tx, { runId, owner: "live", limit: 3, leaseMs: 1_000, now: later }));
    expect(next.map((i) => i.id).sort()).toEqual([o5!.id, o0!.id, o1!.id].sort());
    expect(await inTx(database, (tx) => claimItems(tx, { runId, owner: "live", limit: 5, leaseMs: 1_000, now: later, orphanedOnly: true }))).toEqual([]);
    expect((await inTx(database, (tx) => claimItems(tx, { runId, owner: "live", limit: 5, leaseMs: 1_000, now: later }))).map((i) => i.id).sort()).toEqual([o2!.id, o3!.id].sort());
  });
});
