/**
 * Ferry's listings page by what the answer says, never by what was asked (issue 32, item 6): the
 * sandbox on a random port answers a request for 5,000 companies 2,000 at a time, as the service's
 * spec caps an answer's page, and the listing still finds every one of 4,500 companies, each once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSandbox, type TestSandbox } from "@/server/testing/test-sandbox";
import { createServiceClient, nextPage, type ServiceClient } from ".";

const COMPANIES = 4_500;
const TAG = { name: "ferryPaging", value: "issue32item6" };

let sb: TestSandbox;
let client: ServiceClient;

beforeAll(async () => {
  sb = await startTestSandbox();
  const { apiKey } = await sb.control.createClient({ plan: "paid", name: "Paging" });
  client = createServiceClient({ baseUrl: sb.url, apiKey });
  // 4,500 companies, 50 requests at a time.
  for (let i = 0; i < COMPANIES; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, COMPANIES - i) }, (_, j) => client.createCompany({ name: `Paged Company ${String(i + j + 1).padStart(4, "0")}`, tags: { [TAG.name]: TAG.value } })),
    );
  }
}, 120_000);

afterAll(async () => {
  await sb.close();
});

describe("listing companies page by page", () => {
  it("finds all 4,500 companies asking 5,000 a page of a service that answers 2,000", async () => {
    const pages: { pageNumber: number; pageSize: number; results: number }[] = [];
    const ids = new Set<string>();
    for await (const { data } of client.companyPages({ pageSize: 5_000 })) {
      pages.push({ pageNumber: data.pageNumber, pageSize: data.pageSize, results: data.results.length });
      for (const company of data.results) ids.add(company.id);
    }
    expect(pages).toEqual([
      { pageNumber: 1, pageSize: 2_000, results: 2_000 },
      { pageNumber: 2, pageSize: 2_000, results: 2_000 },
      { pageNumber: 3, pageSize: 2_000, results: 500 },
    ]);
    expect(ids.size).toBe(COMPANIES);
  }, 60_000);

  it("finds all 4,500 by their tag too (the tag filter's pages of 100), and asks nothing past the last page", async () => {
    const { data, meta } = await client.findCompaniesByTag(TAG);
    expect(new Set(data.map((c) => c.id)).size).toBe(COMPANIES);
    expect(meta.attempts).toBe(COMPANIES / 100);
  }, 60_000);

  it("asks for the page after the answer's, of the answer's size, and stops at the last", () => {
    const results = new Array<unknown>(2_000).fill({});
    expect(nextPage({ results, pageNumber: 1, pageSize: 2_000, totalResults: 4_500 })).toEqual({ page: 2, pageSize: 2_000 });
    expect(nextPage({ results, pageNumber: 2, pageSize: 2_000, totalResults: 4_500 })).toEqual({ page: 3, pageSize: 2_000 });
    expect(nextPage({ results: results.slice(0, 500), pageNumber: 3, pageSize: 2_000, totalResults: 4_500 })).toBeNull();
    expect(nextPage({ results: [], pageNumber: 1, pageSize: 2_000, totalResults: 4_500 })).toBeNull();
  });
});
