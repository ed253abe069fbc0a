import { describe, expect, it } from "vitest";
import { parsePortfolioFilters, portfolioFiltersToParams, withPortfolioFilter } from "./portfolio-filters";

describe("the portfolio's filters in the URL", () => {
  it("round-trip through the URL, defaults left out", () => {
    const f = parsePortfolioFilters(new URLSearchParams("owner=u1&customer=o1&platform=qhyg&target=none&risk=late&group=owner&page=3"));
    expect(f).toEqual({ ownerId: "u1", organizationId: "o1", platformKey: "qhyg", targetId: "none", risk: "late", group: "owner", page: 3, pageSize: 50 });
    expect(portfolioFiltersToParams(f).toString()).toBe("owner=u1&customer=o1&platform=qhyg&target=none&risk=late&group=owner&page=3");
    expect(portfolioFiltersToParams(parsePortfolioFilters({})).toString()).toBe("");
  });

  it("drop what is malformed instead of sending it", () => {
    expect(parsePortfolioFilters({ risk: "doomed", group: "mood", page: "-2", owner: "  " })).toEqual({ group: "none", page: 1, pageSize: 50 });
    expect(parsePortfolioFilters({ page: "2.5" }).page).toBe(1);
  });

  it("go back to the first page when a filter changes", () => {
    expect(withPortfolioFilter(parsePortfolioFilters({ page: "4" }), { risk: "at_risk" })).toMatchObject({ risk: "at_risk", page: 1 });
    expect(withPortfolioFilter(parsePortfolioFilters({ page: "4" }), { page: 5 }).page).toBe(5);
  });
});
