/**
 * Limits under concurrency: the checks run inside one synchronous transaction with the write,
 * so parallel requests cannot slip past them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, createCompany } from "../testing/raw-http";
import { startTestSandbox, type TestSandbox } from "../testing/test-sandbox";

let sb: TestSandbox;

beforeAll(async () => {
  sb = await startTestSandbox();
});

afterAll(async () => {
  await sb.close();
});

describe("limits under concurrency", () => {
  it("20 concurrent company creations on a free trial holding 45 end with exactly 50 companies: five created, fifteen 402s", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "free" });
    for (let i = 0; i < 45; i++) await createCompany(sb, apiKey, `Existing ${i}`);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(sb, { method: "POST", path: "/companies", apiKey, body: { name: `Concurrent ${i}` } })),
    );
    const codes = results.map((r) => r.status);
    expect(codes.filter((c) => c === 200)).toHaveLength(5);
    expect(codes.filter((c) => c === 402)).toHaveLength(15);
    const list = await call(sb, { path: "/companies?pageSize=100", apiKey });
    expect(list.json).toMatchObject({ totalResults: 50 });
  });

  it("ten concurrent creations on a free trial holding 45 end with exactly 50 companies and five 402s", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "free" });
    for (let i = 0; i < 45; i++) await createCompany(sb, apiKey, `Existing ${i}`);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => call(sb, { method: "POST", path: "/companies", apiKey, body: { name: `Concurrent ${i}` } })),
    );
    const codes = results.map((r) => r.status);
    expect(codes.filter((c) => c === 200)).toHaveLength(5);
    expect(codes.filter((c) => c === 402)).toHaveLength(5);
    const list = await call(sb, { path: "/companies?pageSize=100", apiKey });
    expect(list.json).toMatchObject({ totalResults: 50 });
  });

  it("five concurrent creations on a free trial holding 45: all succeed, then the next is 402", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "free" });
    for (let i = 0; i < 45; i++) await createCompany(sb, apiKey, `Existing ${i}`);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => call(sb, { method: "POST", path: "/companies", apiKey, body: { name: `Concurrent ${i}` } })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await call(sb, { method: "POST", path: "/companies", apiKey, body: { name: "51st" } })).status).toBe(402);
  });

  it("20 concurrent key creations never make an 11th key", async () => {
    const { apiKey } = await sb.control.createClient({ plan: "paid" });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => call(sb, { method: "POST", path: "/apiKeys", apiKey, body: { name: `key ${i}` } })),
    );
    const codes = results.map((r) => r.status);
    expect(codes.filter((c) => c === 201)).toHaveLength(9);
    expect(codes.filter((c) => c === 409)).toHaveLength(11);
    const keys = await call(sb, { path: "/apiKeys", apiKey });
    expect((keys.json as { results: unknown[] }).results).toHaveLength(10);
  });
});
