/**
 * The shared rate budget on the test database (SQLite, or PostgreSQL on its pass): the store's
 * statements (blocks within the quota whoever takes them, also six takers at once on connections
 * of their own; dead members freed, unused blocks handed back) and a pacer's seat in it (its share
 * following the machine's members, daily quota taken before sending).
 *
 * Runs on both databases: the rate budget's store (atomic conditional updates).
 * @module-tag both-databases
 */
import { and, eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { rateBudgetMembers, rateBudgetQuotas } from "@/db/schema";
import { createServiceTarget } from "@/server/targets/targets";
import { createTestDatabase, TEST_KEY_RING, type TestDatabase, otherConnection } from "@/server/testing/test-db";
import { HEARTBEAT_MS, STALE_MS, utcDayPeriod } from "./budget-rules";
import { createBudgetStore, type BudgetStore, type QuotaCounter } from "./budget-store";
import { joinSharedBudget, type SharedBudget } from "./shared-budget";

let t: TestDatabase;
let store: BudgetStore;
let targetId: string;
const T = Date.parse("2026-11-25T12:00:00.000Z");
const at = (ms: number) => new Date(T + ms);
const counter = (quota: number): QuotaCounter => ({ period: "day:2026-11-25", quota, resetsAt: new Date(utcDayPeriod(T).resetsAt) });

const granted = async () => (await t.db.select().from(rateBudgetQuotas).where(eq(rateBudgetQuotas.targetId, targetId)))[0]?.granted;
const memberRow = async (id: string) => (await t.db.select().from(rateBudgetMembers).where(eq(rateBudgetMembers.id, id)))[0];


beforeEach(async () => {
  t = await createTestDatabase();
  store = createBudgetStore(t.database);
  targetId = (await createServiceTarget(t.database, TEST_KEY_RING, null, { name: "Acme's account", baseUrl: "https://api.example.test", apiKey: "key-0123456789", kind: "service", dailyQuota: 250 })).id;
});
afterEach(() => t.close());

describe("the budget store", () => {
  it("grants blocks of the daily quota that never add up to more than the quota, then nothing", async () => {
    for (const id of ["a", "b", "c"]) await store.join({ id, targetId, machineId: "m1", sharesWindow: true, now: at(0) });
    const grants: number[] = [];
    for (let round = 0; round < 10; round++) {
      for (const id of ["a", "b", "c"]) grants.push((await store.takeBlock({ id, targetId, counter: counter(250), wanted: 200, used: 0, ratePerSecond: 10, now: at(round) })).granted);
    }
    expect(grants.reduce((x, y) => x + y, 0)).toBe(250);
    expect(grants[0]).toBe(42); // a fair part of what is left (250 ÷ (2 × 3)), not the 200 wanted
    expect(grants.slice(-3)).toEqual([0, 0, 0]);
    expect(await granted()).toBe(250);
    expect(await memberRow("a")).toMatchObject({ quotaPeriod: "day:2026-11-25", quotaUsed: 0 });
  });

  it("six takers at once, each on a connection of its own, are granted exactly the quota between them, never more", async () => {
    // On PostgreSQL these are six concurrent transactions: the counter's row lock queues them and
    // the conditional update keeps the counter within the quota (take both away and it overshoots).
    const ids = ["a", "b", "c", "d", "e", "f"];
    const connections = ids.map(() => otherConnection(t));
    try {
      const stores = connections.map((database) => createBudgetStore(database));
      for (const id of ids) await store.join({ id, targetId, machineId: "m1", sharesWindow: true, now: at(0) });
      const quota = 250;
      const grants = await Promise.all(
        stores.map(async (s, i) => {
          const mine: number[] = [];
          for (let round = 0; ; round++) {
            const { granted: n } = await s.takeBlock({ id: ids[i]!, targetId, counter: counter(quota), wanted: 40, used: 0, ratePerSecond: 10, now: at(round) });
            if (n === 0) return mine;
            mine.push(n);
          }
        }),
      );
      const total = grants.flat().reduce((x, y) => x + y, 0);
      expect(total).toBe(quota);
      expect(await granted()).toBe(quota);
      // Each member's row counts what it was granted, and nothing of it was lost to another's take.
      for (const [i, id] of ids.entries()) expect((await memberRow(id))?.quotaTaken).toBe(grants[i]!.reduce((x, y) => x + y, 0));
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
  });

  it("grants nothing from a quota the service says is already spent", async () => {
    await store.join({ id: "a", targetId, machineId: "m1", sharesWindow: true, now: at(0) });
    await store.heartbeat({ id: "a", targetId, now: at(100), quota: null, serviceUsed: { ...counter(250), used: 250 } });
    expect(await granted()).toBe(250);
    expect(await store.takeBlock({ id: "a", targetId, counter: counter(250), wanted: 200, used: 0, ratePerSecond: 10, now: at(200) })).toEqual({ granted: 0, taken: 0, ahead: 0 });
    // What the service says only ever raises the count: a lower figure (an older answer) changes nothing.
    await store.heartbeat({ id: "a", targetId, now: at(300), quota: null, serviceUsed: { ...counter(250), used: 10 } });
    expect(await granted()).toBe(250);
  });

  it("a member that leaves hands back what it did not send", async () => {
    await store.join({ id: "a", targetId, machineId: "m1", sharesWindow: true, now: at(0) });
    const block = await store.takeBlock({ id: "a", targetId, counter: counter(250), wanted: 100, used: 0, ratePerSecond: 10, now: at(0) });
    expect(block.granted).toBe(100);
    await store.leave({ id: "a", targetId, quota: { period: counter(250).period, taken: 100, used: 30 } });
    expect(await granted()).toBe(30);
    expect(await memberRow("a")).toBeUndefined();
    // Leaving twice (or after being found dead) hands back nothing more.
    await store.leave({ id: "a", targetId, quota: { period: counter(250).period, taken: 100, used: 30 } });
    expect(await granted()).toBe(30);
  });

  it("a member with a stale heartbeat is removed by the next heartbeat of any member, its unsent blocks handed back", async () => {
    await store.join({ id: "dead", targetId, machineId: "m1", sharesWindow: true, now: at(0) });
    await store.join({ id: "live", targetId, machineId: "m2", sharesWindow: true, now: at(0) });
    await store.takeBlock({ id: "dead", targetId, counter: counter(1_000), wanted: 100, used: 0, ratePerSecond: 10, now: at(0) });
    await store.heartbeat({ id: "dead", targetId, now: at(1_000), quota: { period: counter(1_000).period, used: 20, ahead: 30 } });
    expect(await granted()).toBe(100);

    // Not yet stale: still counted, nothing handed back.
    let beat = await store.heartbeat({ id: "live", targetId, now: at(1_000 + STALE_MS), quota: null });
    expect(beat.members.map((m) => m.id).sort()).toEqual(["dead", "live"]);
    expect(await granted()).toBe(100);

    beat = await store.heartbeat({ id: "live", targetId, now: at(1_001 + STALE_MS), quota: null });
    expect(beat.members.map((m) => m.id)).toEqual(["live"]);
    expect(await memberRow("dead")).toBeUndefined();
    // 100 granted − 20 reported sent − 30 it may have sent since its report.
    expect(await granted()).toBe(50);

    // The dead member comes back (it had stalled): told so, it holds nothing and joins again.
    expect((await store.heartbeat({ id: "dead", targetId, now: at(9_000), quota: { period: counter(1_000).period, used: 20, ahead: 30 } })).alive).toBe(false);
    expect(await store.takeBlock({ id: "dead", targetId, counter: counter(1_000), wanted: 100, used: 0, ratePerSecond: 10, now: at(9_000) })).toEqual({ granted: 0, taken: 0, ahead: 0 });
    expect(await granted()).toBe(50);
  });

  it("follows a known quota that an admin changed", async () => {
    await store.join({ id: "a", targetId, machineId: "m1", sharesWindow: true, now: at(0) });
    await store.takeBlock({ id: "a", targetId, counter: counter(250), wanted: 100, used: 0, ratePerSecond: 10, now: at(0) });
    // 20 left of the new quota; half of it to the one member, the rest kept for whoever asks next.
    expect((await store.takeBlock({ id: "a", targetId, counter: counter(120), wanted: 100, used: 0, ratePerSecond: 10, now: at(1) })).granted).toBe(10);
    expect((await t.db.select().from(rateBudgetQuotas).where(and(eq(rateBudgetQuotas.targetId, targetId))))[0]).toMatchObject({ quota: 120, granted: 110 });
  });
});

describe("a pacer's seat in the shared budget", () => {
  const seats: SharedBudget[] = [];
  afterEach(async () => {
    await Promise.all(seats.splice(0).map((s) => s.leave()));
  });

  /** A seat whose heartbeats the test makes (the timer's are far apart), on a clock the test moves. */
  function seat(params: { machineId?: string; knownDailyQuota?: number | null; clock: { now: number } }): SharedBudget {
    const s = joinSharedBudget({ store, targetId, machineId: params.machineId ?? "m1", knownDailyQuota: params.knownDailyQuota ?? null, heartbeatMs: 60_000, staleMs: STALE_MS, now: () => params.clock.now });
    seats.push(s);
    return s;
  }

  it("alone it has the whole window; a second on the machine waits until counted, then they split it", async () => {
    const clock = { now: T };
    const a = seat({ clock });
    await a.beat();
    expect(a.ready()).toBe(true);
    expect(a.windowAllowance(100)).toBe(100);

    clock.now += 500;
    const b = seat({ clock });
    await b.beat();
    expect(b.ready()).toBe(false); // a has not seen it yet
    expect(b.windowAllowance(100)).toBe(0);

    clock.now += HEARTBEAT_MS;
    await a.beat();
    await b.beat();
    expect([a.windowAllowance(100), b.windowAllowance(100)]).toEqual([50, 50]);
    expect(a.ceilingFraction()).toBe(0.5);

    // Another machine's seat has its own address: it changes nothing here.
    const c = seat({ clock, machineId: "m2" });
    await c.beat();
    expect(c.windowAllowance(100)).toBe(100);
    await a.beat();
    expect(a.windowAllowance(100)).toBe(50);

    // b leaves: a has the whole window again at its next heartbeat.
    await b.leave();
    await a.beat();
    expect(a.windowAllowance(100)).toBe(100);
  });

  it("sends nothing once its own heartbeat is too old to be counted (a stall, an unreachable database)", async () => {
    const clock = { now: T };
    const a = seat({ clock });
    await a.beat();
    expect(a.ready()).toBe(true);
    clock.now += STALE_MS - 60_000 / 4; // still fresh by its own reckoning? The stale limit less one heartbeat has passed:
    clock.now = T + STALE_MS;
    expect(a.ready()).toBe(false);
    await a.beat();
    expect(a.ready()).toBe(true);
  });

  it("takes the known daily quota in blocks before sending and stops when it is spent", async () => {
    const clock = { now: T };
    const a = seat({ clock, knownDailyQuota: 250 });
    await a.beat();
    expect(a.canSpendQuota()).toBe(false); // no block in hand yet: it asks for one
    await until(() => (a.state().quota?.taken ?? 0) > 0);
    let sent = 0;
    for (let i = 0; i < 1_000 && !a.quotaHold(); i++) {
      if (!a.canSpendQuota()) {
        await a.beat();
        await new Promise((r) => setTimeout(r, 5));
        if (!a.canSpendQuota()) continue;
      }
      a.spendQuota();
      sent += 1;
    }
    expect(sent).toBe(250);
    expect(a.quotaHold()).toEqual({ until: utcDayPeriod(T).resetsAt, limit: 250 });
    expect(await granted()).toBe(250);
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}
