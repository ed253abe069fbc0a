/**
 * The duration estimate against hand-computed cases: one per bottleneck, the quota growing as
 * companies are linked, and the formula's inputs as the UI shows them.
 */
import { describe, expect, it } from "vitest";
import { getManagedPlatform } from "@/server/platforms";
import { ASSUMED_SERVICE_SYNC, estimateMigration, REAL_SERVICE_LIMITS, sandboxLimits, sandboxSyncModel, type EstimateInput } from "./estimate";

const qbo = getManagedPlatform("qhyg")!;

describe("the sandbox's sync model", () => {
  it("derives a company's sync time from its platform's data types", () => {
    // QuickBooks Online: 26 data types, the last starting at 200 + 40 × 25 ms, then 300 ms + 2 ms per record.
    expect(qbo.supportedDataTypes).toHaveLength(26);
    expect(sandboxSyncModel(qbo)).toMatchObject({ baseSeconds: 1.5, perRecordSeconds: 0.002 });
    // Shopify: 10 commerce data types.
    expect(sandboxSyncModel(getManagedPlatform("fztf")!)).toMatchObject({ baseSeconds: 0.86 });
  });
});

describe("estimateMigration", () => {
  it("sandbox, sync time decides: 100 companies, 80 hints of 40,000 records", () => {
    // records 40,000 + 20 × 50 = 41,000, 410 each → sync 1.5 + 0.002 × 410 = 2.32 s → 3 polls at 1 s
    // → 8 calls each, 800 in all at 10,000/s = 0.08 s; 10 waves × 3 × 1 s = 30 s.
    const estimate = estimateMigration({
      companies: 100,
      records: { hintedSum: 40_000, hintedCompanies: 80, defaultPerCompany: 50 },
      limits: sandboxLimits(10_000),
      sync: sandboxSyncModel(qbo),
      pollIntervalSeconds: 1,
      concurrency: 10,
    });
    expect(estimate).toMatchObject({
      totalSeconds: 30,
      bottleneck: "sync_time",
      totalRecords: 41_000,
      pollsPerCompany: 3,
      callsPerCompany: 8,
      totalCalls: 800,
      quotaDays: null,
      bounds: { sync_time: 30, rate_limit: 0.08, daily_quota: 0 },
    });
    expect(estimate.syncSecondsPerCompany).toBeCloseTo(2.32, 10);
    expect(estimate.worked).toBe("total = max(800 ÷ 10,000/s = 0 s, 10 × 3 × 1 s = 30 s, no daily quota) = 30 s");
    expect(estimate.inputs).toEqual([
      { label: "Companies", value: "100" },
      { label: "Records", value: "40,000 from 80 hints + 20 × 50 (stated default per company) = 41,000; 410 per company" },
      { label: "Sync time per company", value: expect.stringMatching(/^1\.5 s \+ 2 ms × 410 records = 2\.32 s \(the sandbox's model: 26 data types/) },
      { label: "Poll interval", value: "1 s, so 3 dataStatus polls per company" },
      { label: "Service calls per company", value: "5 (create company, create connection, PUT authorization, POST data/all, one data read) + 3 polls = 8; 800 in all" },
      { label: "Rate limit", value: "10,000 requests per second (the sandbox's configured limit)" },
      { label: "Companies at a time", value: "10" },
    ]);
    expect(estimate.formula).toMatch(/^total = max\(companies × calls per company ÷ rate limit, /);
  });

  it("real service, the rate limit decides: 1,000 companies without hints", () => {
    // 50 records each → sync 60 + 0.5 = 60.5 s → 7 polls at 10 s → 12 calls, 12,000 in all at
    // 1,000 per minute = 720 s; 10 waves of 100 × 7 × 10 s = 700 s; 12 calls < 1,000 a company adds.
    const estimate = estimateMigration({
      companies: 1_000,
      records: { hintedSum: 0, hintedCompanies: 0, defaultPerCompany: 50 },
      limits: REAL_SERVICE_LIMITS,
      sync: ASSUMED_SERVICE_SYNC,
      pollIntervalSeconds: 10,
      concurrency: 100,
    });
    expect(estimate).toMatchObject({ bottleneck: "rate_limit", callsPerCompany: 12, totalCalls: 12_000, quotaDays: 1 });
    expect(estimate.totalSeconds).toBeCloseTo(720, 9);
    expect(estimate.bounds.sync_time).toBe(700);
    expect(estimate.inputs.find((i) => i.label === "Rate limit")!.value).toBe("1,000 requests per minute per address (16.67 per second)");
    expect(estimate.inputs.find((i) => i.label === "Daily quota")!.value).toBe(
      "1,000 × (1 + connected companies), reset at 00:00 UTC; 0 connected at the start, growing as companies are linked; 1 day of quota",
    );
  });

  it("says one poll, one record and one day in the singular", () => {
    const estimate = estimateMigration({
      companies: 1,
      records: { hintedSum: 1, hintedCompanies: 1, defaultPerCompany: 50 },
      limits: REAL_SERVICE_LIMITS,
      sync: { baseSeconds: 0.5, perRecordSeconds: 0, source: "test" },
      pollIntervalSeconds: 1,
      concurrency: 1,
    });
    const value = (label: string) => estimate.inputs.find((i) => i.label === label)!.value;
    expect(value("Poll interval")).toBe("1 s, so 1 dataStatus poll per company");
    expect(value("Service calls per company")).toMatch(/\+ 1 poll = 6; 6 in all$/);
    expect(value("Sync time per company")).toMatch(/ms × 1 record = /);
    expect(value("Daily quota")).toMatch(/; 1 day of quota$/);
  });

  const quotaBound: EstimateInput = {
    companies: 10,
    records: { hintedSum: 0, hintedCompanies: 0, defaultPerCompany: 0 },
    limits: REAL_SERVICE_LIMITS,
    sync: { baseSeconds: 1_495, perRecordSeconds: 0, source: "test" },
    pollIntervalSeconds: 1,
    concurrency: 10,
  };

  it("real service, the daily quota decides when a company costs more calls than it adds to the quota", () => {
    // 1,495 polls → 1,500 calls a company, 500 more than the 1,000 its link adds. Day 1: quota
    // 1,000 → 1,000 ÷ 500 = 2 companies; day 2: 1,000 × 3 = 3,000 → 6 (8 linked); day 3: 9,000
    // → the last 2. Three days of quota: two resets waited = 172,800 s.
    const estimate = estimateMigration(quotaBound);
    expect(estimate).toMatchObject({ bottleneck: "daily_quota", quotaDays: 3, totalSeconds: 172_800, callsPerCompany: 1_500 });
    expect(estimate.bounds.rate_limit).toBeCloseTo(900, 9);
    expect(estimate.bounds.sync_time).toBe(1_495);
    expect(estimate.worked).toBe("total = max(15,000 ÷ 16.67/s = 15 min, 1 × 1,495 × 1 s = 24 min 55 s, (3 − 1) × 24 h = 2 d) = 2 d");
  });

  it("counts the companies the client already has connected towards the quota", () => {
    // 50 connected → a first-day quota of 51,000 → 51,000 ÷ 500 = 102 companies fit on day 1.
    const estimate = estimateMigration({ ...quotaBound, connectedCompaniesAtStart: 50 });
    expect(estimate).toMatchObject({ bottleneck: "sync_time", quotaDays: 1, totalSeconds: 1_495 });
  });

  it("estimates nothing for no companies, and refuses impossible inputs", () => {
    expect(estimateMigration({ ...quotaBound, companies: 0 })).toMatchObject({ totalSeconds: 0, totalCalls: 0, quotaDays: 0 });
    expect(() => estimateMigration({ ...quotaBound, companies: -1 })).toThrow(RangeError);
    expect(() => estimateMigration({ ...quotaBound, records: { hintedSum: 5, hintedCompanies: 11, defaultPerCompany: 0 } })).toThrow(/more hinted companies/);
    expect(() => estimateMigration({ ...quotaBound, concurrency: 0 })).toThrow(RangeError);
    expect(() => sandboxLimits(0)).toThrow(RangeError);
  });
});
