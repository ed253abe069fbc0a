/**
 * One honest queue (issue 30, item 1) on a real database, through createCaller: a pending support
 * action puts the engagement in support's queue even while the customer has something of their
 * own to do, and every change, whichever part of Ferry makes it, moves the engagement's "last
 * change" (the list's Updated and its order) — but never a decryption, and never backwards.
 */
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { engagements } from "@/db/schema";
import { writeAudit } from "@/server/security/audit";
import { submitSupplementaryFile } from "@/server/migration/supplementary/submit-supplementary-file";
import { afterBulkRun, freshTokenCsv, type AfterBulkRun } from "@/server/testing/supplementary-fixture";
import { createTestDatabase, seedPeople, TEST_KEY_RING, type People, type TestDatabase, TEST_NOTIFY } from "@/server/testing/test-db";
import { callerAs } from "@/server/testing/caller";

let t: TestDatabase;
let p: People;
let f: AfterBulkRun;

beforeEach(async () => {
  t = await createTestDatabase();
  p = await seedPeople(t.database);
  f = await afterBulkRun(t.database, p);
});
afterEach(() => t.close());

const support = () => callerAs(t.database, p.support);
const write = { isolation: "read committed" } as const;
const updatedAt = async () => (await t.db.select({ at: engagements.updatedAt }).from(engagements).where(eq(engagements.id, f.engagementId)))[0]!.at;
/** The engagement's row in support's list under a whose-move filter, or undefined when the filter leaves it out. */
const inQueue = async (waitingOn: "support" | "customer") =>
  (await support().engagements.list({ waitingOn, page: 1, pageSize: 100 })).items.find((e) => e.id === f.engagementId);
/** Sets the engagement's last change back, so that a change made now must move it. */
const lastChangeAt = (at: Date) => t.db.update(engagements).set({ updatedAt: at }).where(eq(engagements.id, f.engagementId));

describe("one honest queue", () => {
  it("fresh tokens sent while the report waits on the customer: support's move, found by the support's-move filter, and the last change moves", async () => {
    await support().handover.confirm({ engagementId: f.engagementId });
    expect(await inQueue("customer")).toMatchObject({ waitingOn: "customer" });
    const before = new Date(Date.now() - 60 * 60_000);
    await lastChangeAt(before);

    const sent = await submitSupplementaryFile(t.database, { ring: TEST_KEY_RING, ...TEST_NOTIFY }, p.customerA, {
      engagementId: f.engagementId,
      file: { name: "fresh.csv", bytes: freshTokenCsv([{ name: "Copperleaf Cafe", externalRef: "CC-02", seed: 1 }]) },
    });
    expect(sent.ok).toBe(true);

    const row = await inQueue("support");
    expect(row, "the engagement is in support's queue").toMatchObject({ waitingOn: "support" });
    expect(await inQueue("customer")).toBeUndefined();
    expect(row!.updatedAt.getTime()).toBeGreaterThan(before.getTime());
    // The customer still sees the report to acknowledge as their own to-do.
    const view = await callerAs(t.database, p.customerA).engagements.get({ engagementId: f.engagementId });
    expect(view.waiting).toMatchObject({ party: "support", moves: { customer: { action: "acknowledge_report" }, support: { action: "review_supplementary" } } });
  });

  it("support's review of the fresh tokens and the report each move the last change", async () => {
    const sent = await submitSupplementaryFile(t.database, { ring: TEST_KEY_RING, ...TEST_NOTIFY }, p.customerA, {
      engagementId: f.engagementId,
      file: { name: "fresh.csv", bytes: freshTokenCsv([{ name: "Copperleaf Cafe", externalRef: "CC-02", seed: 1 }]) },
    });
    if (!sent.ok) throw new Error("the file was refused");
    let before = new Date(Date.now() - 60 * 60_000);
    await lastChangeAt(before);
    await support().supplementary.sendBack({ engagementId: f.engagementId, fileId: sent.fileId, note: "Two rows hold the old tokens." });
    expect((await updatedAt()).getTime()).toBeGreaterThan(before.getTime());

    before = new Date(Date.now() - 60 * 60_000);
    await lastChangeAt(before);
    await support().handover.confirm({ engagementId: f.engagementId });
    expect((await updatedAt()).getTime()).toBeGreaterThan(before.getTime());
  });

  it("a decryption is not a change, and a change stamped before the last one leaves it where it is", async () => {
    const last = new Date(Date.now() - 60_000);
    await lastChangeAt(last);
    const audit = { actor: null, engagementId: f.engagementId, organizationId: p.orgA } as const;
    await t.database.transaction(function* (tx) {
      yield* writeAudit(tx, { ...audit, action: "migration_item.credentials_decrypted", targetId: "item", after: { purpose: "authorize", company: "Copperleaf Cafe", rehearsal: false } });
    }, write);
    expect(await updatedAt()).toEqual(last);
    await t.database.transaction(function* (tx) {
      yield* writeAudit(tx, { ...audit, action: "migration.reconnect_pending", targetId: f.engagementId, after: { companies: 1 }, at: new Date(last.getTime() - 1_000) });
    }, write);
    expect(await updatedAt()).toEqual(last);
    const now = new Date();
    await t.database.transaction(function* (tx) {
      yield* writeAudit(tx, { ...audit, action: "migration.reconnect_pending", targetId: f.engagementId, after: { companies: 1 }, at: now });
    }, write);
    expect(await updatedAt()).toEqual(now);
  });
});
