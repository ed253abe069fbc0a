import { describe, expect, it } from "vitest";
import { DAY_MS, decideWatch, hypercareOver, nextCheckDelayMs, pagesFor, RECONNECT_EVERY_MS, type ListedCompany, type WatchedItem } from "./watch-rules";

const item = (over: Partial<WatchedItem>): WatchedItem => ({ id: "i1", name: "Acme", state: "verified", companyId: "c1", connectionId: "n1", linkUrl: "https://link/c1", ...over });
const company = (over: Partial<ListedCompany> & { status?: "Linked" | "Deauthorized" | "PendingAuth" | "Unlinked" }): ListedCompany => ({
  id: over.id ?? "c1",
  redirect: over.redirect ?? "https://link/c1",
  connections: over.connections ?? [{ id: "n1", integrationKey: "qhyg", status: over.status ?? "Linked", errors: [] }],
});

describe("how often the watch checks", () => {
  it("every few minutes while companies wait for their end customers, else daily", () => {
    expect(nextCheckDelayMs({ pending: 3, companies: 25, dailyQuota: null, reconnectEveryMs: RECONNECT_EVERY_MS.service })).toBe(5 * 60_000);
    expect(nextCheckDelayMs({ pending: 0, companies: 25, dailyQuota: null, reconnectEveryMs: RECONNECT_EVERY_MS.service })).toBe(DAY_MS);
  });

  it("never spends more than 1 % of the daily quota a day", () => {
    for (const [companies, pending] of [
      [1, 1],
      [25, 3],
      [10_000, 40],
      [100_000, 0],
    ] as const) {
      const quota = 1_000 * (1 + companies);
      const delay = nextCheckDelayMs({ pending, companies, dailyQuota: quota, reconnectEveryMs: RECONNECT_EVERY_MS.sandbox });
      const perDay = (DAY_MS / delay) * pagesFor(companies);
      expect(perDay, `${companies} companies`).toBeLessThanOrEqual(quota * 0.01 + 1e-9);
    }
    // A single company's account allows 20 requests a day: a check every 72 minutes at most.
    expect(nextCheckDelayMs({ pending: 1, companies: 1, dailyQuota: 2_000, reconnectEveryMs: RECONNECT_EVERY_MS.sandbox })).toBe(72 * 60_000);
  });

  it("lists companies in pages of 5,000: 10,000 companies are two requests, not 10,000", () => {
    expect(pagesFor(0)).toBe(1);
    expect(pagesFor(5_000)).toBe(1);
    expect(pagesFor(10_000)).toBe(2);
  });
});

describe("what a check finds", () => {
  it("a waiting company linked again is carried on, on the connection the end customer linked", () => {
    const f = decideWatch([item({ state: "reconnect_pending" })], new Map([["c1", company({ status: "Linked" })]]), "qhyg");
    expect(f.reconnected).toEqual([{ itemId: "i1", connectionId: "n1" }]);
    const newOne = company({ connections: [{ id: "n1", integrationKey: "qhyg", status: "Deauthorized", errors: [] }, { id: "n2", integrationKey: "qhyg", status: "Linked", errors: [] }] });
    expect(decideWatch([item({ state: "reconnect_pending" })], new Map([["c1", newOne]]), "qhyg").reconnected).toEqual([{ itemId: "i1", connectionId: "n2" }]);
  });

  it("a waiting company still Deauthorized waits on; a migrated one found Deauthorized dropped, in the platform's words", () => {
    const errors = [{ statusCode: "401", statusText: "Unauthorized", errorMessage: "The end customer revoked access." }];
    const listed = new Map([["c1", company({ connections: [{ id: "n1", integrationKey: "qhyg", status: "Deauthorized", errors }] })]]);
    expect(decideWatch([item({ state: "reconnect_pending" })], listed, "qhyg")).toMatchObject({ reconnected: [], dropped: [] });
    expect(decideWatch([item({})], listed, "qhyg").dropped).toEqual([{ itemId: "i1", reason: "401 Unauthorized: The end customer revoked access." }]);
    expect(decideWatch([item({})], new Map([["c1", company({ status: "Linked" })]]), "qhyg")).toMatchObject({ dropped: [], reconnected: [] });
  });

  it("learns Link URLs, and names companies the listing did not hold", () => {
    const f = decideWatch([item({ linkUrl: null }), item({ id: "i2", companyId: "gone" })], new Map([["c1", company({})]]), "qhyg");
    expect(f.links).toEqual([{ itemId: "i1", linkUrl: "https://link/c1" }]);
    expect(f.missing).toEqual(["i2"]);
  });

  it("the hypercare days are over once their end has come", () => {
    const end = new Date("2026-12-01T00:00:00Z");
    expect(hypercareOver(null, new Date("2030-01-01"))).toBe(false);
    expect(hypercareOver(end, new Date("2026-11-30T23:59:59Z"))).toBe(false);
    expect(hypercareOver(end, end)).toBe(true);
  });
});
