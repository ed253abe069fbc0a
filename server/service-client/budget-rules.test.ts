import { describe, expect, it } from "vitest";
import {
  aheadOf,
  announcedPeriod,
  blockGranted,
  blockWanted,
  isQuotaWindow,
  reclaimable,
  SEEN_AFTER_MS,
  STALE_MS,
  unused,
  utcDayPeriod,
  windowAllowance,
  windowShare,
  type BudgetMember,
} from "./budget-rules";

const T = 1_800_000_000_000;
const member = (id: string, patch: Partial<BudgetMember> = {}): BudgetMember => ({
  id,
  machineId: "m1",
  sharesWindow: true,
  joinedAt: T - 60_000,
  heartbeatAt: T - 500,
  quotaPeriod: null,
  quotaTaken: 0,
  quotaUsed: 0,
  quotaAhead: 0,
  ...patch,
});

describe("a member's share of its machine's per-address window", () => {
  it("alone, it has the whole window at once", () => {
    const members = [member("a", { joinedAt: T, heartbeatAt: T })];
    expect(windowShare({ members, meId: "a", machineId: "m1", now: T })).toEqual({ ready: true, count: 1, index: 0 });
  });

  it("three live members of one machine split it, oldest first, and their parts add up to the limit", () => {
    const members = [member("c", { joinedAt: T - 3_000 }), member("a", { joinedAt: T - 9_000 }), member("b", { joinedAt: T - 6_000 })];
    const shares = ["a", "b", "c"].map((id) => windowShare({ members, meId: id, machineId: "m1", now: T }));
    expect(shares).toEqual([
      { ready: true, count: 3, index: 0 },
      { ready: true, count: 3, index: 1 },
      { ready: true, count: 3, index: 2 },
    ]);
    const parts = shares.map((s) => (s.ready ? windowAllowance(100, s) : 0));
    expect(parts).toEqual([34, 33, 33]);
    for (const limit of [1, 2, 7, 100, 1_000]) {
      for (const count of [1, 2, 3, 5, 8]) {
        const sum = Array.from({ length: count }, (_, index) => windowAllowance(limit, { count, index })).reduce((x, y) => x + y, 0);
        expect(sum).toBe(limit);
      }
    }
  });

  it("members of other machines (other addresses) and the watch's trickle take no part of it", () => {
    const members = [member("a"), member("b", { machineId: "m2" }), member("w", { sharesWindow: false })];
    expect(windowShare({ members, meId: "a", machineId: "m1", now: T })).toEqual({ ready: true, count: 1, index: 0 });
  });

  it("a member whose heartbeat is stale is dead: its share goes to the others", () => {
    const members = [member("a"), member("dead", { heartbeatAt: T - STALE_MS - 1 })];
    expect(windowShare({ members, meId: "a", machineId: "m1", now: T })).toEqual({ ready: true, count: 1, index: 0 });
    // And a member whose own heartbeat is stale may not send: the others may have taken its share.
    expect(windowShare({ members, meId: "dead", machineId: "m1", now: T })).toEqual({ ready: false, why: "not_a_member" });
    expect(windowShare({ members, meId: "gone", machineId: "m1", now: T })).toEqual({ ready: false, why: "not_a_member" });
  });

  it("a newcomer spends nothing until every other member has heartbeaten since it joined", () => {
    const joinedAt = T - 1_000;
    const newcomer = member("new", { joinedAt, heartbeatAt: T });
    const before = [member("a", { heartbeatAt: joinedAt - 100 }), member("b", { heartbeatAt: joinedAt + SEEN_AFTER_MS }), newcomer];
    expect(windowShare({ members: before, meId: "new", machineId: "m1", now: T })).toEqual({ ready: false, why: "not_seen_yet" });
    // Just after its join is not enough either: that heartbeat may have read the members before the join was written.
    const close = [member("a", { heartbeatAt: joinedAt + SEEN_AFTER_MS - 1 }), member("b", { heartbeatAt: joinedAt + SEEN_AFTER_MS }), newcomer];
    expect(windowShare({ members: close, meId: "new", machineId: "m1", now: T })).toEqual({ ready: false, why: "not_seen_yet" });
    const after = [member("a", { heartbeatAt: joinedAt + 400 }), member("b", { heartbeatAt: joinedAt + SEEN_AFTER_MS }), newcomer];
    expect(windowShare({ members: after, meId: "new", machineId: "m1", now: T })).toEqual({ ready: true, count: 3, index: 2 });
  });
});

describe("the daily quota in blocks", () => {
  it("a block is about 20 s of the member's own pace, at least 10 requests a second's worth", () => {
    expect(blockWanted(0)).toBe(200);
    expect(blockWanted(33.4)).toBe(668);
  });

  it("a grant never passes what is left, spreads the last of it, and is nothing once the quota is spent", () => {
    expect(blockGranted({ wanted: 600, left: 100_000, members: 3 })).toBe(600);
    expect(blockGranted({ wanted: 600, left: 900, members: 3 })).toBe(150);
    expect(blockGranted({ wanted: 600, left: 3, members: 3 })).toBe(1);
    expect(blockGranted({ wanted: 600, left: 1, members: 1 })).toBe(1);
    expect(blockGranted({ wanted: 600, left: 0, members: 1 })).toBe(0);
    expect(blockGranted({ wanted: 600, left: -5, members: 1 })).toBe(0);
    expect(blockGranted({ wanted: 0, left: 10, members: 1 })).toBe(0);
  });

  it("a member may send two heartbeats' worth past its last report, never more than it holds", () => {
    expect(aheadOf({ inHand: 1_000, ratePerSecond: 33, heartbeatMs: 2_000 })).toBe(132);
    expect(aheadOf({ inHand: 50, ratePerSecond: 33, heartbeatMs: 2_000 })).toBe(50);
    expect(aheadOf({ inHand: 1_000, ratePerSecond: 0, heartbeatMs: 2_000 })).toBe(40);
    expect(aheadOf({ inHand: 0, ratePerSecond: 33 })).toBe(0);
    expect(aheadOf({ inHand: -3, ratePerSecond: 33 })).toBe(0);
  });

  it("a dead member hands back what it was granted less what it reported sent and what it may have sent since", () => {
    expect(reclaimable({ quotaTaken: 600, quotaUsed: 200, quotaAhead: 132 })).toBe(268);
    expect(reclaimable({ quotaTaken: 600, quotaUsed: 550, quotaAhead: 50 })).toBe(0);
    expect(reclaimable({ quotaTaken: 600, quotaUsed: 600, quotaAhead: 0 })).toBe(0);
    expect(reclaimable({ quotaTaken: 0, quotaUsed: 0, quotaAhead: 0 })).toBe(0);
    // A member that leaves knows exactly what it sent.
    expect(unused({ taken: 600, used: 200 })).toBe(400);
    expect(unused({ taken: 600, used: 700 })).toBe(0);
  });

  it("names a quota's period: the UTC day when known in advance, the announced reset otherwise", () => {
    expect(utcDayPeriod(Date.parse("2026-11-25T23:59:59.000Z"))).toEqual({ period: "day:2026-11-25", resetsAt: Date.parse("2026-11-26T00:00:00.000Z") });
    expect(utcDayPeriod(Date.parse("2026-11-26T00:00:00.000Z")).period).toBe("day:2026-11-26");
    // Readings of one reset a few milliseconds apart name one period.
    expect(announcedPeriod(Date.parse("2026-11-26T00:00:00.000Z") + 3, 42).period).toBe(announcedPeriod(Date.parse("2026-11-26T00:00:00.000Z") - 2, 43).period);
    expect(isQuotaWindow(T + 11 * 60_000, T)).toBe(true);
    expect(isQuotaWindow(T + 60_000, T)).toBe(false);
  });
});
