/**
 * Scheduled work one worker at a time: the lease is taken, renewed by its holder, refused to others
 * while it lasts, taken over once it lapses, and let go on a clean stop; two workers ticking the
 * same exclusive work side by side tick it from one of them only, and the other carries on when
 * the first stops.
 * @module-tag both-databases
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, TEST_KEY_RING, type TestDatabase } from "@/server/testing/test-db";
import { until } from "@/server/testing/until";
import { holdPeriodicLease, releasePeriodicLease } from "./periodic-lease";
import { createWorker } from "./worker";
import type { PeriodicWork } from "./work";

let t: TestDatabase;
beforeEach(async () => {
  t = await createTestDatabase();
});
afterEach(() => t.close());

const at = (ms: number) => new Date(Date.UTC(2026, 11, 1) + ms);

describe("a periodic work's lease", () => {
  it("is held by one worker at a time, renewed by it, and taken over once it lapses or is let go", async () => {
    const lease = (owner: string, now: number) => holdPeriodicLease(t.database, { name: "reminders", owner, leaseMs: 1_000, now: at(now) });
    expect(await lease("a", 0)).toBe(true);
    expect(await lease("b", 500)).toBe(false);
    expect(await lease("a", 900)).toBe(true); // renewed until 1,900
    expect(await lease("b", 1_500)).toBe(false);
    expect(await lease("b", 2_000)).toBe(true); // lapsed: b takes over
    expect(await lease("a", 2_100)).toBe(false);
    await releasePeriodicLease(t.database, { name: "reminders", owner: "a" }); // not a's: nothing happens
    expect(await lease("a", 2_200)).toBe(false);
    await releasePeriodicLease(t.database, { name: "reminders", owner: "b" });
    expect(await lease("a", 2_300)).toBe(true);
    // Another name is another lease.
    expect(await holdPeriodicLease(t.database, { name: "other", owner: "b", leaseMs: 1_000, now: at(2_300) })).toBe(true);
  });
});

describe("exclusive periodic work in workers", () => {
  it("ticks in one worker of two, and in the other once the first stops", async () => {
    const ticks = new Map<string, number>();
    const counted = (who: string): PeriodicWork => ({
      name: "counted",
      everyMs: 20,
      exclusive: true,
      start: () => ({
        tick: async () => {
          ticks.set(who, (ticks.get(who) ?? 0) + 1);
          return 1;
        },
        close: async () => {},
      }),
    });
    // Looks every 20 ms; the lease lasts the worker's run lease (2 s), so a slow look does not let it lapse.
    const make = (who: string) => createWorker({ database: t.database, ring: TEST_KEY_RING, owner: who, leaseMs: 2_000, work: [], periodic: [counted(who)], idleMs: 20, log: () => {} });
    const first = make("first");
    const second = make("second");
    first.start();
    await until("the first tick", () => ticks.get("first") ?? 0, (n) => n >= 1, 5_000);
    second.start();
    await until("six ticks of the first", () => ticks.get("first") ?? 0, (n) => n >= 6, 5_000);
    expect(ticks.get("second") ?? 0).toBe(0);
    await first.stop();
    // Let go on a clean stop: the second takes it at its next look.
    await until("the second taking over", () => ticks.get("second") ?? 0, (n) => n >= 2, 5_000);
    await second.stop();
  });
});
