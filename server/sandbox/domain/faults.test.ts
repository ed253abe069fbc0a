/**
 * Account expiry, maintenance, injected errors, latency and the rate limit, on every endpoint of
 * the route table.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ERROR_TEXT } from "../http/errors";
import { API_ROUTES } from "../routes";
import { call, linkedCompany, UUID } from "../../testing/raw-http";
import { startTestSandbox, type TestSandbox } from "../../testing/test-sandbox";

let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});

afterEach(async () => {
  await sb.control.setFaults({ maintenance: false, errorRate: 0, latencyMs: 0, rateLimitPerSecond: null });
});

afterAll(async () => {
  await sb.close();
});

/** Every endpoint of the route table, its parameters filled with ids of the given company. */
function everyEndpoint(ids: { companyId: string; connectionId: string }): { method: string; path: string; body?: unknown }[] {
  return API_ROUTES.map((route) => ({
    method: route.method,
    body: route.method === "GET" || route.method === "DELETE" ? undefined : {},
    path: route.pattern
      .replace(":companyId", ids.companyId)
      .replace(":connectionId", ids.connectionId)
      .replace(":dataType", route.pattern.includes("/push/") ? "accounts" : "invoices")
      .replace(/:[A-Za-z]+/g, randomUUID()),
  }));
}

describe("a free account older than 365 days", () => {
  it("answers 402 Payment Required on every endpoint, once the sandbox clock passes day 365", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "free" });
    const { apiKey: paidKey } = await sb.control.createClient({ plan: "paid" });
    const linked = await linkedCompany(sb, { apiKey, platformKey: "qhyg" });
    expect((await call(sb, { path: "/companies", apiKey })).status).toBe(200);

    await sb.control.advanceClock({ days: 366 });
    for (const endpoint of everyEndpoint(linked)) {
      const result = await call(sb, { ...endpoint, apiKey });
      expect(result.status, `${endpoint.method} ${endpoint.path}`).toBe(402);
      expect(result.json).toEqual({
        statusCode: 402,
        service: "PublicApi",
        error: "Payment Required",
        correlationId: expect.stringMatching(UUID),
        validation: { errors: [{ message: ERROR_TEXT.accountExpiredMessage }], warnings: [] },
      });
    }
    expect((await call(sb, { path: "/companies", apiKey: paidKey })).status).toBe(200);
  });
});

describe("faults", () => {
  it("maintenance answers 503 on every endpoint; the controls still work", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    const linked = await linkedCompany(sb, { apiKey, platformKey: "fztf" });
    await sb.control.setFaults({ maintenance: true });
    for (const endpoint of [...everyEndpoint(linked), { method: "GET", path: "/unknown" }]) {
      const result = await call(sb, { ...endpoint, apiKey });
      expect(result.status, `${endpoint.method} ${endpoint.path}`).toBe(503);
      expect(result.headers.get("content-type")).toBe("application/json");
      expect(result.json).toMatchObject({ statusCode: 503, error: ERROR_TEXT.maintenance });
    }
    expect((await call(sb, { path: "/companies" })).status).toBe(503);
    expect((await sb.control.getFaults()).maintenance).toBe(true);
  });

  it("errorRate 1 answers 500 to authenticated calls; 0 stops it", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    await sb.control.setFaults({ errorRate: 1 });
    const failed = await call(sb, { path: "/companies", apiKey });
    expect(failed.json).toMatchObject({ statusCode: 500, service: "PublicApi", error: ERROR_TEXT.internal });
    await sb.control.setFaults({ errorRate: 0 });
    expect((await call(sb, { path: "/companies", apiKey })).status).toBe(200);
  });

  it("latency delays answers without changing them", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    const faults = await sb.control.setFaults({ latencyMs: 50 });
    expect(faults.latencyMs).toBe(50);
    expect((await call(sb, { path: "/companies", apiKey })).status).toBe(200);
  });
});

describe("rate limit", () => {
  it("puts the three headers on every response, errors and 401s included", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    for (const result of [
      await call(sb, { path: "/companies", apiKey }),
      await call(sb, { path: `/companies/${randomUUID()}`, apiKey }),
      await call(sb, { path: "/companies" }),
    ]) {
      expect(result.headers.get("x-rate-limit-limit")).toBe("10000");
      expect(Number(result.headers.get("x-rate-limit-remaining"))).toBeLessThan(10000);
      expect(result.headers.get("x-rate-limit-reset")).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
    }
  });

  it("answers 429 with Retry-After past the limit, per client", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    const { apiKey: otherKey } = await sb.control.createClient({ plan: "paid" });
    await sb.control.setFaults({ rateLimitPerSecond: 3 });
    const codes: number[] = [];
    let limited: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 30 && !limited; i++) {
      const result = await call(sb, { path: "/companies", apiKey });
      codes.push(result.status);
      if (result.status === 429) limited = result;
    }
    expect(limited?.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(limited?.json).toMatchObject({ statusCode: 429, error: ERROR_TEXT.tooManyRequests });
    expect((await call(sb, { path: "/companies", apiKey: otherKey })).status).toBe(200);
    await sb.control.setFaults({ rateLimitPerSecond: null });
    expect((await call(sb, { path: "/companies", apiKey })).status).toBe(200);
  });
});
