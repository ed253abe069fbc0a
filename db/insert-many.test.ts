/**
 * insertMany stores rows as drizzle's own insert would, on the database the run is for (SQLite's
 * reused 100-row statement and its single-row one for the rest; PostgreSQL's COPY): every
 * column's value read back the same — a JSON column as its object, null as null, a Date to the
 * millisecond — and a `$defaultFn` column left out filled per row.
 * @module-tag both-databases
 */
import { asc, count } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@/server/testing/test-db";
import { insertMany, loadMany, type RowProducer } from "./insert-many";
import { auditEvents } from "./schema";

let t: TestDatabase;

/** A producer of batches already made, one yield after each. */
function inBatches<R>(batches: readonly (readonly R[])[]): RowProducer<R> {
  return function* (store) {
    for (const batch of batches) {
      store(batch);
      yield;
    }
  };
}
beforeEach(async () => {
  t = await createTestDatabase();
});
afterEach(async () => t.close());

describe("insertMany", () => {
  it("stores 250 rows (two full statements and fifty single rows on SQLite) with their values, and nothing when there are none", async () => {
    const at = new Date("2026-11-28T12:34:56.789Z");
    const rows = Array.from({ length: 250 }, (_, i) => ({
      actorLabel: `Actor ${i}`,
      action: "test.inserted",
      targetType: "probe",
      targetId: `t-${i}`,
      engagementId: i % 2 ? `e-${i}` : null,
      before: i % 3 ? { n: i, text: `quote " and backslash \\ and {braces}, commas`, nested: [1, { a: null }] } : null,
      after: { i },
      at: new Date(at.getTime() + i),
    }));
    const inserted = await t.database.transaction((tx) => insertMany(tx, auditEvents, rows), { isolation: "read committed" });
    expect(inserted).toBe(250);
    const back = await t.db.select().from(auditEvents).orderBy(asc(auditEvents.id));
    expect(back.map(({ id: _id, actorId: _actor, organizationId: _org, ...r }) => r)).toEqual(rows);
    expect(await t.database.transaction((tx) => insertMany(tx, auditEvents, []), { isolation: "read committed" })).toBe(0);
  });

  it("keeps text that COPY's format would otherwise read as markup: tabs, line breaks, backslashes, a literal \\N", async () => {
    const awkward = ["tab\there", "line\nbreak", "carriage\rreturn\r\n", "back\\slash \\t \\n", "\\N", "", "Zürich — 東京 ☕", '"quoted", {json}'];
    const rows = awkward.map((text, i) => ({
      actorLabel: text,
      action: "test.awkward",
      targetType: "probe",
      targetId: `a-${i}`,
      engagementId: text || null,
      before: { text, list: [text, null] },
      at: new Date(Date.UTC(2026, 10, 28, 12, 0, 0, i)),
    }));
    const inserted = await t.database.transaction((tx) => loadMany(tx, auditEvents, inBatches([rows.slice(0, 3), [], rows.slice(3)])), { isolation: "read committed" });
    expect(inserted).toBe(awkward.length);
    const back = await t.db.select().from(auditEvents).orderBy(asc(auditEvents.targetId));
    expect(back.map((r) => ({ actorLabel: r.actorLabel, engagementId: r.engagementId, before: r.before, at: r.at }))).toEqual(
      rows.map((r) => ({ actorLabel: r.actorLabel, engagementId: r.engagementId, before: r.before, at: r.at })),
    );
  });

  it("stores nothing and fails the transaction when a row breaks a constraint, the rows before it included", async () => {
    const good = { actorLabel: "A", action: "test.constraint", targetType: "probe", targetId: "ok" };
    const broken = { ...good, targetId: "broken", actorLabel: null as unknown as string };
    await expect(t.database.transaction((tx) => loadMany(tx, auditEvents, inBatches([[good], [broken]])), { isolation: "read committed" })).rejects.toThrow();
    const [{ n } = { n: 0 }] = await t.db.select({ n: count() }).from(auditEvents);
    expect(Number(n)).toBe(0);
  });

  it("stores rows made while the step runs, batch by batch, however many the server must catch up on", async () => {
    const made: number[] = [];
    const padding = "x".repeat(2_000);
    const stored = await t.database.transaction(
      (tx) =>
        loadMany(tx, auditEvents, function* (store) {
          for (let batch = 0; batch < 40; batch++) {
            made.push(batch);
            store(Array.from({ length: 500 }, (_, i) => ({ actorLabel: padding, action: "test.loaded", targetType: "probe", targetId: `l-${batch}-${i}` })));
            yield;
          }
        }),
      { isolation: "read committed" },
    );
    expect(stored).toBe(20_000);
    expect(made).toHaveLength(40);
    const [{ n } = { n: 0 }] = await t.db.select({ n: count() }).from(auditEvents);
    expect(Number(n)).toBe(20_000);
  });

  it("stores nothing when the producer fails after some batches: the error surfaces and the transaction is rolled back", async () => {
    const failure = new Error("the file was found wrong");
    await expect(
      t.database.transaction(
        (tx) =>
          loadMany(tx, auditEvents, function* (store) {
            store([{ actorLabel: "A", action: "test.loaded", targetType: "probe", targetId: "first" }]);
            yield;
            store([{ actorLabel: "A", action: "test.loaded", targetType: "probe", targetId: "second" }]);
            yield;
            throw failure;
          }),
        { isolation: "read committed" },
      ),
    ).rejects.toBe(failure);
    const [{ n } = { n: 0 }] = await t.db.select({ n: count() }).from(auditEvents);
    expect(Number(n)).toBe(0);
    // The connection is fit for the next transaction.
    expect(await t.database.transaction((tx) => insertMany(tx, auditEvents, [{ actorLabel: "A", action: "test.after", targetType: "probe", targetId: "after" }]), { isolation: "read committed" })).toBe(1);
  });

  it("stores nothing when a row far into the load breaks a constraint (past the first of several COPY statements on PostgreSQL)", async () => {
    const load = t.database.transaction(
      (tx) =>
        loadMany(tx, auditEvents, function* (store) {
          for (let batch = 0; batch < 130; batch++) {
            store(Array.from({ length: 100 }, (_, i) => ({ actorLabel: batch === 120 && i === 50 ? (null as unknown as string) : "A", action: "test.loaded", targetType: "probe", targetId: `c-${batch}-${i}` })));
            yield;
          }
        }),
      { isolation: "read committed" },
    );
    await expect(load).rejects.toThrow();
    const [{ n } = { n: 0 }] = await t.db.select({ n: count() }).from(auditEvents);
    expect(Number(n)).toBe(0);
    expect(await t.database.transaction((tx) => insertMany(tx, auditEvents, [{ actorLabel: "A", action: "test.after", targetType: "probe", targetId: "after" }]), { isolation: "read committed" })).toBe(1);
  });

  it("fills a column with a $defaultFn left out of the rows, row by row", async () => {
    const before = Date.now();
    await t.database.transaction(
      (tx) => insertMany(tx, auditEvents, [1, 2, 3].map((i) => ({ actorLabel: "A", action: "test.default", targetType: "probe", targetId: `d-${i}` }))),
      { isolation: "read committed" },
    );
    const back = await t.db.select().from(auditEvents);
    expect(back).toHaveLength(3);
    for (const row of back) {
      expect(row.at).toBeInstanceOf(Date);
      expect(row.at.getTime()).toBeGreaterThanOrEqual(before - 1);
      expect(row.before).toBeNull();
    }
    const [{ n } = { n: 0 }] = await t.db.select({ n: count() }).from(auditEvents);
    expect(Number(n)).toBe(3);
  });
});
