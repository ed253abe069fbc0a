import { describe, expect, it } from "vitest";
import { REAL_SERVICE_LIMITS, sandboxLimits, type ServiceLimits } from "@/server/intake";
import { findOverlaps, overlapsOfCandidates, utcDaysSpanned, type OverlapWindow } from "./window-overlap";

const H = 3_600_000;
const t0 = Date.UTC(2026, 11, 7, 9); // Monday 7 December 2026, 09:00 UTC
const at = (hours: number) => new Date(t0 + hours * H);

/** A window `[from, to]` hours after t0 needing `requests` (100 companies unless said; on target "acme" unless said). */
function win(id: string, engagementId: string, [from, to]: [number, number], requests: number | null, more: { companies?: number; targetKey?: string } = {}): OverlapWindow {
  return { id, engagementId, targetKey: more.targetKey ?? "acme", startsAt: at(from), endsAt: at(to), requests, companies: more.companies ?? 100 };
}

/** 1,000 requests a minute per address: 60,000 an hour. */
const service = REAL_SERVICE_LIMITS;
const limitsOf = () => service;

describe("window overlaps on one target", () => {
  it("flags two windows whose migrations together need more requests than the rate limit allows in their time", () => {
    // Each needs 40,000 requests in the same two hours (120,000 allowed alone, so each fits alone); together 80,000 fit too.
    expect(findOverlaps([win("a", "e1", [0, 2], 40_000), win("b", "e2", [0, 2], 40_000)], limitsOf).size).toBe(0);
    // 70,000 each in one hour alone fails each on its own: that is step 2's shorter-than-estimate warning, not an overlap.
    expect(findOverlaps([win("a", "e1", [0, 1], 70_000), win("b", "e2", [0, 1], 70_000)], limitsOf).size).toBe(0);
    // 50,000 each in the same hour: each fits alone (60,000), together 100,000 do not.
    const flags = findOverlaps([win("a", "e1", [0, 1], 50_000), win("b", "e2", [0, 1], 50_000)], limitsOf);
    expect([...flags.keys()].sort()).toEqual(["a", "b"]);
    expect(flags.get("a")).toMatchObject({ limit: "rate", needed: 100_000, allowed: 60_000, withWindowIds: ["b"], from: at(0), to: at(1) });
  });

  it("checks every span, so a short window inside a long one is caught even when the long one alone has room", () => {
    // The long window (10 h, 300,000 requests) has room over its whole length (600,000); the short one needs 50,000 in its hour.
    // Inside the hour only the short one lies wholly, so the span [0, 10] decides: 350,000 ≤ 600,000, fits.
    expect(findOverlaps([win("long", "e1", [0, 10], 300_000), win("short", "e2", [2, 3], 50_000)], limitsOf).size).toBe(0);
    // Two short ones in the same hour inside a long one: the hour overflows although the long span does not.
    const flags = findOverlaps([win("long", "e1", [0, 10], 300_000), win("s1", "e2", [2, 3], 40_000), win("s2", "e3", [2, 3], 40_000)], limitsOf);
    expect(flags.get("s1")).toMatchObject({ from: at(2), to: at(3), needed: 80_000, allowed: 60_000, withWindowIds: ["s2"] });
    expect(flags.has("long")).toBe(false);
  });

  it("leaves windows on other targets, windows that do not meet, and windows without a recorded estimate alone", () => {
    const apart = [win("a", "e1", [0, 1], 50_000), win("b", "e2", [1, 2], 50_000)];
    expect(findOverlaps(apart, limitsOf).size).toBe(0);
    const otherTarget = [win("a", "e1", [0, 1], 50_000), win("b", "e2", [0, 1], 50_000, { targetKey: "bluebird" })];
    expect(findOverlaps(otherTarget, limitsOf).size).toBe(0);
    expect(findOverlaps([win("a", "e1", [0, 1], 50_000), win("b", "e2", [0, 1], null)], limitsOf).size).toBe(0);
  });

  it("counts an engagement's proposed alternatives once", () => {
    // e1 proposed two alternatives in the same hour; only e1 and e2 compete: 50,000 + 50,000 > 60,000.
    const flags = findOverlaps([win("a1", "e1", [0, 1], 50_000), win("a2", "e1", [0, 1], 50_000)], limitsOf);
    expect(flags.size).toBe(0);
    const withRival = findOverlaps([win("a1", "e1", [0, 1], 25_000), win("a2", "e1", [0, 1], 25_000), win("b", "e2", [0, 1], 30_000)], limitsOf);
    expect(withRival.size).toBe(0); // 25,000 + 30,000 = 55,000 ≤ 60,000: e1 counted once
  });

  it("flags by the daily quota when a target's fixed quota cannot cover the companies in the days the windows touch", () => {
    const fixedQuota: ServiceLimits = { ...service, target: "service", dailyQuota: { base: 10_000, perConnectedCompany: 0 } } as ServiceLimits;
    // Each: 600 companies × 12 calls = 7,200 requests in one day (10,000 allowed); together 14,400 need two days of quota.
    const flags = findOverlaps([win("a", "e1", [0, 8], 7_200, { companies: 600 }), win("b", "e2", [0, 8], 7_200, { companies: 600 })], () => fixedQuota);
    expect(flags.get("a")).toMatchObject({ limit: "quota", quotaDaysNeeded: 2, daysSpanned: 1, needed: 14_400, allowed: 10_000 });
    // With the service's growing quota (1,000 more per connected company) the same companies never run out.
    expect(findOverlaps([win("a", "e1", [0, 8], 7_200, { companies: 600 }), win("b", "e2", [0, 8], 7_200, { companies: 600 })], limitsOf).size).toBe(0);
  });

  it("uses the sandbox's rate when the target is the sandbox (no quota)", () => {
    const slow = sandboxLimits(10); // 36,000 an hour
    const flags = findOverlaps([win("a", "e1", [0, 1], 20_000), win("b", "e2", [0, 1], 20_000)], () => slow);
    expect(flags.get("b")).toMatchObject({ limit: "rate", needed: 40_000, allowed: 36_000 });
  });
});

describe("a proposal's warning", () => {
  it("checks each candidate against the other engagements' windows on the same target", () => {
    const others = [win("b", "e2", [0, 1], 50_000), win("mine", "e1", [0, 1], 50_000)];
    const flags = overlapsOfCandidates(
      [
        { startsAt: at(0), endsAt: at(1) },
        { startsAt: at(5), endsAt: at(6) },
      ],
      { engagementId: "e1", targetKey: "acme", requests: 50_000, companies: 100 },
      others,
      service,
    );
    expect(flags[0]).toMatchObject({ limit: "rate", withWindowIds: ["b"], needed: 100_000 });
    expect(flags[1]).toBeNull();
  });
});

describe("UTC days a span touches", () => {
  it("counts each date once, the end exclusive", () => {
    const midnight = Date.UTC(2026, 11, 8);
    expect(utcDaysSpanned(new Date(midnight - H), new Date(midnight))).toBe(1);
    expect(utcDaysSpanned(new Date(midnight - H), new Date(midnight + 1))).toBe(2);
    expect(utcDaysSpanned(new Date(midnight), new Date(midnight + 3 * 24 * H))).toBe(3);
  });
});
