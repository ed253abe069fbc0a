/**
 * Claims on items (what a bulk run's workers share a run's items with) on a real SQLite file:
 * each item goes to one worker, waiting and finished items are not handed out, an expired lease
 * is free again, and a store without the lease writes nothing.
 */
import { databaseOf, runSync } from "@/db/database";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { migrationItems, serviceCalls } from "@/db/schema";
import { openDb } from "@/db/client";
import { claimItems, findItem, LeaseLostError, releaseItemLeases, renewItemLeases, storeCallResult } from "./item-repository";
import { insertRun } from "./run-repository";
import { engineTestBed } from "../../testing/test-bed";

const bed = engineTestBed();

describe("claiming a run's items", () => {
  it("hands each item to one worker, in file order, skipping waiting and finished ones; an expired lease is free again", async () => {
    const eng = await bed.ready(Array.from({ length: 10 }, (_, i) => ({ name: `Bulk ${i}` })));
    const runId = crypto.randomUUID();
    const now = new Date();
    bed.t.db.transaction((tx) => runSync(insertRun(tx, { id: runId, engagementId: eng.engagementId, kind: "bulk", serviceTargetId: eng.serviceTargetId, itemId: null, requestedById: bed.people.support.id, now })));
    bed.t.db.update(migrationItems).set({ runId }).where(eq(migrationItems.engagementId, eng.engagementId)).run();
    const [first, second, , , , , , , waiting, done] = eng.items;
    bed.t.db.update(migrationItems).set({ nextAttemptAt: new Date(now.getTime() + 60_000) }).where(eq(migrationItems.id, waiting!.id)).run();
    bed.t.db.update(migrationItems).set({ state: "verified" }).where(eq(migrationItems.id, done!.id)).run();

    const other = openDb(bed.t.file!, { migrate: false });
    try {
      const a = runSync(claimItems(bed.t.db, { runId, owner: "a", limit: 3, leaseMs: 1_000, now }));
      const b = runSync(claimItems(other, { runId, owner: "b", limit: 10, leaseMs: 1_000, now }));
      expect(a.map((i) => i.name)).toEqual(["Bulk 0", "Bulk 1", "Bulk 2"]);
      expect(b.map((i) => i.name)).toEqual(["Bulk 3", "Bulk 4", "Bulk 5", "Bulk 6", "Bulk 7"]);
      expect(runSync(claimItems(bed.t.db, { runId, owner: "c", limit: 10, leaseMs: 1_000, now }))).toEqual([]);

      // a renews; b dies. Once b's leases expire, c takes its items, not a's.
      const later = new Date(now.getTime() + 1_500);
      expect(runSync(renewItemLeases(bed.t.db, { owner: "a", leaseMs: 1_000, now: new Date(now.getTime() + 900) }))).toBe(3);
      expect(runSync(claimItems(bed.t.db, { runId, owner: "c", limit: 10, leaseMs: 1_000, now: later })).map((i) => i.name)).toEqual(["Bulk 3", "Bulk 4", "Bulk 5", "Bulk 6", "Bulk 7"]);

      // b, come back, can store nothing; a lets go of one item and it is free at once.
      const transition = { state: "company_created" as const, companyId: "c1", connectionId: null, inFlightCall: null, checks: null, attempts: 0, nextAttemptAt: null, lastError: null, outcomeReason: null, runEffect: null };
      const record = { at: later, operation: "createCompany", method: "POST", path: "/companies", status: 200, ok: true, errorKind: null, errorText: null, correlationId: "x", durationMs: 1, attempts: 1, detail: null };
      await expect(storeCallResult(databaseOf(other), { itemId: eng.items[3]!.id, runId, owner: "b", record, transition, now: later })).rejects.toThrow(LeaseLostError);
      expect(runSync(findItem(bed.t.db, eng.items[3]!.id))).toMatchObject({ state: "pending", leaseOwner: "c" });
      expect(bed.t.db.select().from(serviceCalls).where(eq(serviceCalls.itemId, eng.items[3]!.id)).all()).toEqual([]);
      runSync(releaseItemLeases(bed.t.db, { owner: "a", runId }));
      expect(runSync(claimItems(other, { runId, owner: "d", limit: 2, leaseMs: 1_000, now: later })).map((i) => i.id)).toEqual([first!.id, second!.id]);
    } finally {
      other.$client.close();
    }
  });
});
