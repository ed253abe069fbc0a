import { describe, expect, it } from "vitest";
import { engagementFiltersToParams, hasActiveFilters, MAX_PAGE, parseEngagementFilters, PAGE_SIZE, withFilter } from "./engagement-filters";

describe("parseEngagementFilters", () => {
  it("reads every filter from URLSearchParams", () => {
    const params = new URLSearchParams("status=active,on_hold&step=3&owner=u1&platform=qhyg&q=%20acme%20&page=2");
    expect(parseEngagementFilters(params)).toEqual({
      status: ["active", "on_hold"],
      step: 3,
      ownerId: "u1",
      platformKey: "qhyg",
      search: "acme",
      page: 2,
      pageSize: PAGE_SIZE,
    });
  });

  it("reads a Next searchParams record, taking the first of repeated values", () => {
    expect(parseEngagementFilters({ step: ["2", "4"], q: undefined })).toEqual({ step: 2, page: 1, pageSize: PAGE_SIZE });
  });

  it("drops malformed values instead of sending them to the server", () => {
    const params = new URLSearchParams("status=bogus,active,active&step=9&page=-3&q=%20%20");
    expect(parseEngagementFilters(params)).toEqual({ status: ["active"], page: 1, pageSize: PAGE_SIZE });
    expect(parseEngagementFilters(new URLSearchParams("step=2.5&page=abc"))).toEqual({ page: 1, pageSize: PAGE_SIZE });
  });

  it("caps the page so a silly URL still makes a valid request", () => {
    expect(parseEngagementFilters({ page: "99999999999999999999" }).page).toBe(MAX_PAGE);
  });

  it("caps search at the server's limit", () => {
    const long = "x".repeat(150);
    expect(parseEngagementFilters({ q: long }).search).toHaveLength(100);
  });
});

describe("engagementFiltersToParams", () => {
  it("round-trips with parse", () => {
    const filters = { status: ["cancelled" as const], step: 7, ownerId: "o", platformKey: "fztf", search: "FER-1001", page: 3, pageSize: PAGE_SIZE };
    expect(parseEngagementFilters(engagementFiltersToParams(filters))).toEqual(filters);
  });

  it("leaves defaults out of the URL", () => {
    expect(engagementFiltersToParams({ page: 1, pageSize: PAGE_SIZE }).toString()).toBe("");
  });
});

describe("withFilter", () => {
  const base = parseEngagementFilters(new URLSearchParams("step=2&page=4"));

  it("returns to page 1 when a filter changes", () => {
    expect(withFilter(base, { platformKey: "qhyg" })).toEqual({ step: 2, platformKey: "qhyg", page: 1, pageSize: PAGE_SIZE });
  });

  it("keeps the filters when only the page changes", () => {
    expect(withFilter(base, { page: 5 })).toEqual({ step: 2, page: 5, pageSize: PAGE_SIZE });
  });

  it("clears a filter set to undefined or empty", () => {
    expect(withFilter(base, { step: undefined })).toEqual({ page: 1, pageSize: PAGE_SIZE });
    expect(withFilter({ ...base, search: "x" }, { search: "" })).toEqual({ step: 2, page: 1, pageSize: PAGE_SIZE });
  });

  it("knows whether anything is filtered", () => {
    expect(hasActiveFilters(base)).toBe(true);
    expect(hasActiveFilters(withFilter(base, { step: undefined }))).toBe(false);
  });
});
