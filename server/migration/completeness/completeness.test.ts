/** The completeness rules: counts compared with the old app's, the platforms' caveats, validation gathered. */
import { describe, expect, it } from "vitest";
import type { ItemChecks } from "../engine/pipeline";
import { compareCount, completenessDetails, completenessOf, ZOHO_DAILY_LIMIT_CAVEAT, zohoReducedCaveat } from "./completeness";

const AT = "2026-11-22T12:00:00.000Z";
const checks = (over: Partial<ItemChecks> = {}): ItemChecks => ({ read: { dataType: "chartOfAccounts", records: 40, at: AT }, records: { invoices: 812, bills: 10 }, ...over });
const none = { errors: [], warnings: [], errorCount: 0, warningCount: 0 };

describe("compareCount", () => {
  it("flags a count below the old app's, in words; equal or more is fine; no old count is not compared", () => {
    expect(compareCount({ platformKey: "qhyg", dataType: "invoices", count: 812, oldCount: 1_040 })).toEqual({ comparison: "short", flag: "Invoices: 812 of the old app's 1,040", caveat: null });
    expect(compareCount({ platformKey: "qhyg", dataType: "invoices", count: 1_040, oldCount: 1_040 })).toMatchObject({ comparison: "matches", flag: null });
    expect(compareCount({ platformKey: "qhyg", dataType: "invoices", count: 2_000, oldCount: 1_040 })).toMatchObject({ comparison: "matches" });
    expect(compareCount({ platformKey: "qhyg", dataType: "invoices", count: 812, oldCount: null })).toMatchObject({ comparison: "not_compared", flag: null });
    expect(compareCount({ platformKey: "qhyg", dataType: "invoices", count: null, oldCount: 5 })).toMatchObject({ comparison: "unknown", flag: null });
  });

  it("Zoho Books: a short count is explained by the organisation's shared daily limit; a reduced dataset lacks fields, not records, and is said wherever it applies", () => {
    const short = compareCount({ platformKey: "rwuv", dataType: "invoices", count: 812, oldCount: 1_040 });
    expect(short).toMatchObject({ comparison: "short", caveat: `${ZOHO_DAILY_LIMIT_CAVEAT} ${zohoReducedCaveat("invoices")}` });
    expect(short.caveat).toMatch(/daily API limit .* shared by every app on it.*Sync the company again the next day/);
    expect(zohoReducedCaveat("invoices")).toMatch(/reduced dataset by default, so invoices arrive without their line items .*every record is there/);
    expect(compareCount({ platformKey: "rwuv", dataType: "chartOfAccounts", count: 30, oldCount: 40 }).caveat).toBe(ZOHO_DAILY_LIMIT_CAVEAT);
    expect(compareCount({ platformKey: "rwuv", dataType: "invoices", count: 1_040, oldCount: 1_040 }).caveat).toBe(zohoReducedCaveat("invoices"));
    expect(compareCount({ platformKey: "rwuv", dataType: "suppliers", count: 5, oldCount: null }).caveat).toBeNull();
    expect(compareCount({ platformKey: "qhyg", dataType: "invoices", count: 1_040, oldCount: 1_040 }).caveat).toBeNull();
  });

  it("does not compare a Shopify count of exactly 25,000, and says why", () => {
    const capped = compareCount({ platformKey: "fztf", dataType: "commerce-orders", count: 25_000, oldCount: 31_000 });
    expect(capped).toMatchObject({ comparison: "capped", flag: null });
    expect(capped.caveat).toBe("Shopify: counts are capped at 25,000, so a count of exactly 25,000 cannot be compared with the old app's 31,000: the store may hold more. Check the count in Shopify's admin if it matters.");
    expect(compareCount({ platformKey: "fztf", dataType: "commerce-orders", count: 24_999, oldCount: 31_000 })).toMatchObject({ comparison: "short", flag: "Orders: 24,999 of the old app's 31,000" });
    expect(compareCount({ platformKey: "qhyg", dataType: "invoices", count: 25_000, oldCount: 31_000 })).toMatchObject({ comparison: "short" });
  });
});

describe("completenessOf", () => {
  it("says nothing before the data was read back", () => {
    expect(completenessOf({ platformKey: "qhyg", checks: { sync: { requestedAt: AT, polls: 1, dataTypes: {} } }, oldCounts: { invoices: 1 } })).toBeNull();
  });

  it("is short when a count is below the old app's, naming each; complete when every compared count holds", () => {
    const short = completenessOf({ platformKey: "qhyg", checks: checks(), oldCounts: { invoices: 1_040, bills: 10 } });
    expect(short).toMatchObject({ verdict: "short", summary: "Short: Invoices: 812 of the old app's 1,040." });
    expect(short?.dataTypes.map((r) => [r.label, r.count, r.oldCount, r.comparison])).toEqual([
      ["Bills", 10, 10, "matches"],
      ["Chart of accounts", 40, null, "not_compared"],
      ["Invoices", 812, 1_040, "short"],
    ]);
    expect(completenessOf({ platformKey: "qhyg", checks: checks(), oldCounts: { invoices: 800 } })).toMatchObject({ verdict: "complete", summary: "Every count compared is the old app's or more (Invoices)." });
  });

  it("is not compared without old counts", () => {
    expect(completenessOf({ platformKey: "qhyg", checks: checks(), oldCounts: null })).toMatchObject({ verdict: "not_compared", summary: "Not compared: the token file gives no old app counts for this company." });
  });

  it("lists validation errors and warnings per data type, by message with its count", () => {
    const flawed = { errors: [{ message: "A bill's lines summed should be the same as its total amount.", count: 2 }], warnings: [{ message: "A bill refers to a record the sync did not read.", count: 1 }], errorCount: 2, warningCount: 1 };
    const c = completenessOf({ platformKey: "qhyg", checks: checks({ validation: { bills: flawed, invoices: none, chartOfAccounts: null } }), oldCounts: { invoices: 500 } });
    expect(c).toMatchObject({ verdict: "validation_issues", summary: "Validation raised 2 errors and 1 warning on Bills." });
    expect(c?.dataTypes.find((r) => r.dataType === "bills")?.validation).toEqual(flawed);
    expect(completenessDetails(c)).toBe("Bills validation: error “A bill's lines summed should be the same as its total amount.” ×2, warning “A bill refers to a record the sync did not read.” ×1.");
    // Short wins the verdict; the sentence still names the validation.
    const both = completenessOf({ platformKey: "qhyg", checks: checks({ validation: { bills: flawed } }), oldCounts: { invoices: 1_040 } });
    expect(both?.verdict).toBe("short");
    expect(both?.summary).toBe("Short: Invoices: 812 of the old app's 1,040. Validation raised 2 errors and 1 warning on Bills.");
  });

  it("puts the caveat into the details of a Zoho Books company that is short", () => {
    const c = completenessOf({ platformKey: "rwuv", checks: checks(), oldCounts: { invoices: 1_040 } });
    expect(c?.summary).toBe("Short: Invoices: 812 of the old app's 1,040 (the platform's caveat applies).");
    expect(completenessDetails(c)).toBe(`Bills: ${zohoReducedCaveat("bills")} Invoices: 812 of the old app's 1,040. ${ZOHO_DAILY_LIMIT_CAVEAT} ${zohoReducedCaveat("invoices")}`);
  });
});
