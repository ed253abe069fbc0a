/**
 * Request-rate limits: the binding-limit rule, the per-minute limit per address and the daily
 * quota (1,000 × (1 + connected companies), resetting at 00:00 UTC on the sandbox clock), with the
 * X-Rate-Limit-* headers describing whichever limit binds.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ERROR_TEXT } from "../http/errors";
import { call, linkedCompany, type CallResult } from "../../testing/raw-http";
import { startTestSandbox, type TestSandbox } from "../../testing/test-sandbox";
import { bindingLimit, dailyQuota, type LimitState } from "./rate-limits";

const DAY_MS = 86_400_000;

describe("bindingLimit", () => {
  const now = Date.UTC(2026, 10, 22, 10, 15, 30, 250);
  const perSecond: LimitState = { name: "perSecond", limit: 10, remaining: 9, resetAt: now + 750, exceeded: false };
  const perMinute: LimitState = { name: "perMinute", limit: 1000, remaining: 3, resetAt: now + 29_750, exceeded: false };
  const perDay: LimitState = { name: "perDay", limit: 1000, remaining: 3, resetAt: now + 49_469_750, exceeded: false };

  it("picks the limit with the fewest requests left, the longer window on a tie", () => {
    expect(bindingLimit([perSecond, perMinute], now)).toEqual({ binding: perMinute, exceeded: false, retryAfterSeconds: 0 });
    expect(bindingLimit([perSecond, perMinute, perDay], now).binding).toBe(perDay);
  });

  it("picks an exceeded limit over any other, the one that ends last when several are", () => {
    const secondOver = { ...perSecond, remaining: 0, exceeded: true };
    expect(bindingLimit([secondOver, perDay], now)).toEqual({ binding: secondOver, exceeded: true, retryAfterSeconds: 1 });
    const minuteOver = { ...perMinute, remaining: 0, exceeded: true };
    expect(bindingLimit([secondOver, minuteOver, perDay], now)).toEqual({ binding: minuteOver, exceeded: true, retryAfterSeconds: 30 });
  });

  it("computes the daily quota from connected companies", () => {
    expect(dailyQuota(0)).toBe(1_000);
    expect(dailyQuota(100)).toBe(101_000);
  });
});

let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});

afterEach(async () => {
  await sb.control.setFaults({ quotaPerDay: false, requestsPerMinute: null, rateLimitPerSecond: null });
});

afterAll(async () => {
  await sb.close();
});

function rateHeaders(result: CallResult) {
  return {
    limit: Number(result.headers.get("x-rate-limit-limit")),
    remaining: Number(result.headers.get("x-rate-limit-remaining")),
    reset: result.headers.get("x-rate-limit-reset") ?? "",
    retryAfter: result.headers.get("retry-after"),
    /** The response's Date: the sandbox clock, to the second. */
    date: Date.parse(result.headers.get("date") ?? ""),
  };
}

/** Sandbox time now, from the clock control. */
async function sandboxNow(): Promise<number> {
  return Date.parse((await sb.control.advanceClock({})).now);
}

describe("requestsPerMinute", () => {
  it("refuses the client address past the limit with Retry-After until the minute ends, headers telling which limit binds", async () => {
    // Start at the top of a sandbox minute so all requests fall in one window.
    const now = await sandboxNow();
    await sb.control.advanceClock({ seconds: (60_000 - (now % 60_000)) / 1000 + 1 });
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    const { apiKey: otherKey } = await sb.control.createClient({ plan: "paid" });
    await sb.control.setFaults({ requestsPerMinute: 5 });

    const answers: CallResult[] = [];
    for (let i = 0; i < 4; i++) answers.push(await call(sb, { path: "/companies", apiKey }));
    // Unauthenticated requests from the same address count too.
    answers.push(await call(sb, { path: "/companies" }));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 401]);
    expect(answers.map((r) => rateHeaders(r).limit)).toEqual([5, 5, 5, 5, 5]);
    expect(answers.map((r) => rateHeaders(r).remaining)).toEqual([4, 3, 2, 1, 0]);

    // Another client from the same address: the limit is per address, not per key.
    const refused = await call(sb, { path: "/companies", apiKey: otherKey });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ statusCode: 429, service: "PublicApi", error: ERROR_TEXT.tooManyRequests });
    const headers = rateHeaders(refused);
    expect(headers).toMatchObject({ limit: 5, remaining: 0 });
    const reset = Date.parse(headers.reset);
    expect(reset % 60_000).toBe(0);
    expect(reset - headers.date).toBeGreaterThan(0);
    expect(reset - headers.date).toBeLessThanOrEqual(60_000);
    expect(Number(headers.retryAfter)).toBe(Math.ceil((reset - (await sandboxNow())) / 1000));

    // The controls are never limited.
    for (let i = 0; i < 5; i++) expect((await sb.control.getFaults()).requestsPerMinute).toBe(5);

    // The next sandbox minute starts a new window.
    await sb.control.advanceClock({ seconds: 60 });
    const next = await call(sb, { path: "/companies", apiKey });
    expect(next.status).toBe(200);
    expect(rateHeaders(next)).toMatchObject({ limit: 5, remaining: 4 });
  });
});

describe("quotaPerDay", () => {
  it("allows 1,000 × (1 + connected companies) a day; Linked connections count, an unlinked one no longer does", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    await sb.control.setFaults({ quotaPerDay: true });
    const first = rateHeaders(await call(sb, { path: "/companies", apiKey }));
    expect(first).toMatchObject({ limit: 1000, remaining: 999 });
    const nextMidnight = (Math.floor(first.date / DAY_MS) + 1) * DAY_MS;
    expect(first.reset).toBe(new Date(nextMidnight).toISOString());

    // linkedCompany makes 3 requests (create company, create connection, authorize).
    const linked = await linkedCompany(sb, { apiKey, platformKey: "qhyg" });
    await linkedCompany(sb, { apiKey, platformKey: "fztf" });
    const two = rateHeaders(await call(sb, { path: "/companies", apiKey }));
    expect(two).toMatchObject({ limit: 3000, remaining: 3000 - 8 });

    const path = `/companies/${linked.companyId}/connections/${linked.connectionId}`;
    expect((await call(sb, { method: "PATCH", path, apiKey, body: { status: "Unlinked" } })).status).toBe(200);
    expect(rateHeaders(await call(sb, { path: "/companies", apiKey }))).toMatchObject({ limit: 2000, remaining: 2000 - 10 });
  });

  it("refuses a client past its quota until 00:00 UTC on the sandbox clock; other clients are unaffected", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    const { apiKey: otherKey } = await sb.control.createClient({ plan: "paid" });
    // Not too close to midnight, so the 1,000 requests fall on one sandbox day.
    const now = await sandboxNow();
    if (DAY_MS - (now % DAY_MS) < 3_600_000) await sb.control.advanceClock({ seconds: 7_200 });
    await sb.control.setFaults({ quotaPerDay: true });

    const statuses: number[] = [];
    for (let batch = 0; batch < 40; batch++) {
      const answers = await Promise.all(Array.from({ length: 25 }, () => call(sb, { path: "/companies", apiKey })));
      statuses.push(...answers.map((r) => r.status));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(1000);

    const refused = await call(sb, { path: "/companies", apiKey });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ statusCode: 429, error: ERROR_TEXT.tooManyRequests });
    const headers = rateHeaders(refused);
    const midnight = (Math.floor(headers.date / DAY_MS) + 1) * DAY_MS;
    expect(headers).toMatchObject({ limit: 1000, remaining: 0, reset: new Date(midnight).toISOString() });
    expect(Number(headers.retryAfter)).toBe(Math.ceil((midnight - (await sandboxNow())) / 1000));
    expect((await call(sb, { path: "/companies", apiKey: otherKey })).status).toBe(200);

    // Just past midnight on the sandbox clock, the quota is whole again.
    await sb.control.advanceClock({ seconds: (midnight - (await sandboxNow())) / 1000 + 1 });
    const renewed = await call(sb, { path: "/companies", apiKey });
    expect(renewed.status).toBe(200);
    expect(rateHeaders(renewed)).toMatchObject({ limit: 1000, remaining: 999, reset: new Date(midnight + DAY_MS).toISOString() });
  });

  it("lets the headers follow whichever limit binds: the per-minute limit when fewer requests are left in it", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    await sb.control.setFaults({ quotaPerDay: true, requestsPerMinute: 1000 });
    const tie = rateHeaders(await call(sb, { path: "/companies", apiKey }));
    // 999 left in both: the longer window (the day) is reported.
    expect(tie).toMatchObject({ limit: 1000, remaining: 999 });
    expect(Date.parse(tie.reset) % DAY_MS).toBe(0);

    await sb.control.setFaults({ requestsPerMinute: 50 });
    const minute = rateHeaders(await call(sb, { path: "/companies", apiKey }));
    expect(minute).toMatchObject({ limit: 50, remaining: 49 });
    expect(Date.parse(minute.reset) % 60_000).toBe(0);
    expect(Date.parse(minute.reset) % DAY_MS).not.toBe(0);
  });
});

describe("the Date header", () => {
  it("follows the sandbox clock, so Reset − Date is the wait whatever the offset", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    await sb.control.advanceClock({ days: 3 });
    const result = await call(sb, { path: "/companies", apiKey });
    const before = await sandboxNow();
    const date = rateHeaders(result).date;
    expect(Math.abs(date - before)).toBeLessThan(60_000);
    expect(Math.abs(date - Date.now())).toBeGreaterThan(2 * DAY_MS);
  });
});

describe("quota counts", () => {
  it("survive a restart: the day's count is stored, not kept in memory", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferry-sandbox-quota-"));
    const dbFile = path.join(dir, "sandbox.db");
    try {
      const first = await startTestSandbox({ dbFile });
      const { apiKey } = await first.control.createClient({ plan: "paid" });
      await first.control.setFaults({ quotaPerDay: true });
      for (let i = 0; i < 3; i++) expect((await call(first, { path: "/companies", apiKey })).status).toBe(200);
      await first.close();
      const second = await startTestSandbox({ dbFile });
      try {
        expect(rateHeaders(await call(second, { path: "/companies", apiKey }))).toMatchObject({ limit: 1000, remaining: 996 });
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
