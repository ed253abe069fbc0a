import { describe, expect, it } from "vitest";
import { limitsOfTarget, pacerCeilingPerMinute } from "./limits";

const target = (t: Partial<{ builtIn: boolean; requestsPerMinute: number | null; dailyQuota: number | null }> = {}) => ({ builtIn: false, requestsPerMinute: null, dailyQuota: null, ...t });

describe("a target's limits", () => {
  it("are the built-in sandbox's own for the built-in sandbox only", () => {
    expect(limitsOfTarget(target({ builtIn: true }))).toEqual({ kind: "built_in_sandbox" });
    expect(pacerCeilingPerMinute(target({ builtIn: true }))).toBeNull();
  });

  it("are the service's published ones for every other target, whatever it is called", () => {
    const rule = limitsOfTarget(target());
    expect(rule).toEqual({
      kind: "service",
      limits: { target: "service", requestsPerMinute: 1_000, dailyQuota: { base: 1_000, perConnectedCompany: 1_000 }, concurrentRequestsPerCompany: 10 },
      requestsPerMinute: 1_000,
      source: "the service's published limits (1,000 requests per minute per address; daily quota 1,000 × (1 + connected companies))",
    });
    expect(pacerCeilingPerMinute(target())).toBe(1_000);
  });

  it("are the known limits an admin set on the target, each replacing its published figure", () => {
    expect(limitsOfTarget(target({ requestsPerMinute: 600 }))).toMatchObject({
      limits: { requestsPerMinute: 600, dailyQuota: { base: 1_000, perConnectedCompany: 1_000 } },
      source: "the target's known limits (600 requests per minute, set on the target; daily quota 1,000 × (1 + connected companies))",
    });
    expect(limitsOfTarget(target({ dailyQuota: 50_000 }))).toMatchObject({
      limits: { requestsPerMinute: 1_000, dailyQuota: { base: 50_000, perConnectedCompany: 0 } },
      source: "the target's known limits (1,000 requests per minute per address; daily quota 50,000 requests, set on the target)",
    });
    expect(pacerCeilingPerMinute(target({ requestsPerMinute: 120_000 }))).toBe(120_000);
  });
});
