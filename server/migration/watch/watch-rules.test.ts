import { describe, expect, it } from "vitest";
import { DAY_MS, decideWatch, hypercareOver, LOOKUP_MAX, nextCheckDelayMs, pagesFor, planCheck, RECONNECT_EVERY_MS, requestsOfWaitingCheck, type ListedCompany, type WatchedItem } from "./watch-rules";

const item = (over: Partial<WatchedItem>): WatchedItem => ({ id: "i1", name: "Acme", state: "verified", companyId: "c1", connectionId: "n1", linkUrl: "https://link/c1", platformTenant: null, wrongTenant: null, ...over });
const company = (over: Partial<ListedCompany> & { status?: "Linked" | "Deauthorized" | "PendingAuth" | "Unlinked" }): ListedCompany => ({
  id: over.id ?? "c1",
  redirect: over.redirect ?? "https://link/c1",
  connections: over.connections ?? [{ id: "n1", integrationKey: "qhyg", status: over.status ?? "Linked", errors: [], tenant: null }],
});

describe("how often the watch checks", () => {
  it("every few minutes while companies wait for their end customers, else daily", () => {
    expect(nextCheckDelayMs({ pending: 3, companies: 25, dailyQuota: null, reconnectEveryMs: RECONNECT_EVERY_MS.service })).toBe(5 * 60_000);
    expect(nextCheckDelayMs({ pending: 0, companies: 25, dailyQuota: null, reconnectEveryMs: RECONNECT_EVERY_MS.service })).toBe(DAY_MS);
  });

  it("never spends more than 1 % of the daily quota a day, the daily listing included", () => {
    for (const [companies, pending] of [
      [1, 1],
      [25, 3],
      [10_000, 12],
      [10_000, 40],
      [100_000, 0],
      [100_000, 500],
    ] as const) {
      const quota = 1_000 * (1 + companies);
      const delay = nextCheckDelayMs({ pending, companies, dailyQuota: quota, reconnectEveryMs: RECONNECT_EVERY_MS.sandbox });
      const perDay = pagesFor(companies) + (pending ? (DAY_MS / delay) * requestsOfWaitingCheck(pending, companies) : 0);
      expect(perDay, `${companies} companies, ${pending} waiting`).toBeLessThanOrEqual(quota * 0.01 + 1e-9);
    }
    // A single company's account allows 20 requests a day: one for the daily listing, a look-up every 76 minutes with the rest.
    expect(nextCheckDelayMs({ pending: 1, companies: 1, dailyQuota: 2_000, reconnectEveryMs: RECONNECT_EVERY_MS.sandbox })).toBe(Math.ceil(DAY_MS / 19));
    // Too small a share for even one look-up beside the listing: daily.
    expect(nextCheckDelayMs({ pending: 3, companies: 1, dailyQuota: 300, reconnectEveryMs: RECONNECT_EVERY_MS.sandbox })).toBe(DAY_MS);
  });

  it("lists every company once a day and at the hypercare's start; between listings looks up only the few waiting ones", () => {
    const now = new Date("2026-11-25T12:00:00Z");
    const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000);
    expect(planCheck({ pending: 3, dayStartedAt: hoursAgo(2), now, hypercareStarts: false, hypercareEndsAt: null, askedFor: false })).toBe("waiting");
    expect(planCheck({ pending: 3, dayStartedAt: hoursAgo(24), now, hypercareStarts: false, hypercareEndsAt: null, askedFor: false })).toBe("list");
    expect(planCheck({ pending: 3, dayStartedAt: null, now, hypercareStarts: false, hypercareEndsAt: null, askedFor: false })).toBe("list");
    expect(planCheck({ pending: 3, dayStartedAt: hoursAgo(2), now, hypercareStarts: true, hypercareEndsAt: null, askedFor: false })).toBe("list");
    expect(planCheck({ pending: 0, dayStartedAt: hoursAgo(2), now, hypercareStarts: false, hypercareEndsAt: null, askedFor: false })).toBe("list");
    // The hypercare's last check lists every company: a drop since the day's listing is not missed.
    expect(planCheck({ pending: 3, dayStartedAt: hoursAgo(2), now, hypercareStarts: false, hypercareEndsAt: now, askedFor: false })).toBe("list");
    expect(planCheck({ pending: 3, dayStartedAt: hoursAgo(2), now, hypercareStarts: false, hypercareEndsAt: hoursAgo(-1), askedFor: false })).toBe("waiting");
    // Support's "check now" (and a new watch, the handover) lists every company, whatever the day.
    expect(planCheck({ pending: 3, dayStartedAt: hoursAgo(2), now, hypercareStarts: false, hypercareEndsAt: null, askedFor: true })).toBe("list");
    // Many waiting: the listing is fewer requests than looking each up.
    expect(planCheck({ pending: LOOKUP_MAX + 1, dayStartedAt: hoursAgo(2), now, hypercareStarts: false, hypercareEndsAt: null, askedFor: false })).toBe("list");
    expect(requestsOfWaitingCheck(3, 10_000)).toBe(3);
    expect(requestsOfWaitingCheck(LOOKUP_MAX + 1, 10_000)).toBe(2);
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
    const newOne = company({ connections: [{ id: "n1", integrationKey: "qhyg", status: "Deauthorized", errors: [], tenant: null }, { id: "n2", integrationKey: "qhyg", status: "Linked", errors: [], tenant: null }] });
    expect(decideWatch([item({ state: "reconnect_pending" })], new Map([["c1", newOne]]), "qhyg").reconnected).toEqual([{ itemId: "i1", connectionId: "n2" }]);
  });

  it("a waiting company still Deauthorized waits on; a migrated one found Deauthorized dropped, in the platform's words", () => {
    const errors = [{ statusCode: "401", statusText: "Unauthorized", errorMessage: "The end customer revoked access." }];
    const listed = new Map([["c1", company({ connections: [{ id: "n1", integrationKey: "qhyg", status: "Deauthorized", errors, tenant: null }] })]]);
    expect(decideWatch([item({ state: "reconnect_pending" })], listed, "qhyg")).toMatchObject({ reconnected: [], dropped: [] });
    expect(decideWatch([item({})], listed, "qhyg").dropped).toEqual([{ itemId: "i1", reason: "401 Unauthorized: The end customer revoked access." }]);
    expect(decideWatch([item({})], new Map([["c1", company({ status: "Linked" })]]), "qhyg")).toMatchObject({ dropped: [], reconnected: [] });
  });

  it("learns Link URLs, and names companies the listing did not hold", () => {
    const f = decideWatch([item({ linkUrl: null }), item({ id: "i2", companyId: "gone" })], new Map([["c1", company({})]]), "qhyg");
    expect(f.links).toEqual([{ itemId: "i1", linkUrl: "https://link/c1" }]);
    expect(f.missing).toEqual(["i2"]);
  });

  it("does not count a reconnection to another platform company, and does where the service names none or the same", () => {
    const migrated = { realmId: "4620816365" };
    const linkedTo = (tenant: Record<string, string> | null) => new Map([["c1", company({ connections: [{ id: "n1", integrationKey: "qhyg", status: "Linked", errors: [], tenant }] })]]);
    const waiting = item({ state: "reconnect_pending", platformTenant: migrated });
    expect(decideWatch([waiting], linkedTo({ realmId: "9130000000000001" }), "qhyg")).toMatchObject({ reconnected: [], wrongTenant: [{ itemId: "i1", connectionId: "n1", expected: migrated, found: { realmId: "9130000000000001" } }] });
    expect(decideWatch([waiting], linkedTo({ realmId: "4620816365" }), "qhyg")).toMatchObject({ reconnected: [{ itemId: "i1", connectionId: "n1" }], wrongTenant: [] });
    expect(decideWatch([waiting], linkedTo(null), "qhyg").reconnected).toHaveLength(1);
    expect(decideWatch([item({ state: "reconnect_pending", platformTenant: null })], linkedTo({ realmId: "1" }), "qhyg").reconnected).toHaveLength(1);
  });

  it("does not relearn a one-time Link URL whose only change is its token", () => {
    const oneTime = company({ redirect: "https://link/c1?token=fresh-every-read" });
    expect(decideWatch([item({ linkUrl: "https://link/c1" })], new Map([["c1", oneTime]]), "qhyg").links).toEqual([]);
    expect(decideWatch([item({ linkUrl: null })], new Map([["c1", oneTime]]), "qhyg").links).toEqual([{ itemId: "i1", linkUrl: "https://link/c1" }]);
  });

  it("the hypercare days are over once their end has come", () => {
    const end = new Date("2026-12-01T00:00:00Z");
    expect(hypercareOver(null, new Date("2030-01-01"))).toBe(false);
    expect(hypercareOver(end, new Date("2026-11-30T23:59:59Z"))).toBe(false);
    expect(hypercareOver(end, end)).toBe(true);
  });
});
