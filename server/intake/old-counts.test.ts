/**
 * The token file's optional columns with the old app's record count per data type
 * (`count_<dataType>`): the spellings accepted, the counts kept with each row, and a value that is
 * not a whole number of 0 or more refused on its row in words.
 */
import { describe, expect, it } from "vitest";
import { getManagedPlatform, type ManagedPlatform } from "@/server/platforms";
import { checkHeader, countedDataTypes } from "./columns";
import { parseTokenFile } from "./parse-token-file";
import { csvBytes, headerFor, rowFor } from "../testing/token-files";

const now = new Date("2026-11-22T12:00:00Z");
const platform = (key: string): ManagedPlatform => {
  const found = getManagedPlatform(key);
  if (!found) throw new Error(key);
  return found;
};
const qbo = platform("qhyg");
const shopify = platform("fztf");

const parse = (p: ManagedPlatform, rows: string[][]) => parseTokenFile({ bytes: csvBytes(rows), fileName: "tokens.csv", platformKey: p.key, now });

describe("the old app's count columns", () => {
  it("accepts count_<dataType> and a few obvious spellings, whatever their case", () => {
    const headers = [...headerFor(qbo), "count_invoices", "Customers Count", "COUNT-BILLS", "supplierCount", "count_chartOfAccounts"];
    const { columns, problems } = checkHeader(qbo, headers);
    expect(problems).toEqual([]);
    expect(columns.oldCounts.map((c) => c.dataType)).toEqual(["invoices", "customers", "bills", "suppliers", "chartOfAccounts"]);
  });

  it("reads the short names of a commerce file as its commerce data types, and knows only the platform's", () => {
    const { columns } = checkHeader(shopify, [...headerFor(shopify), "count_orders", "count_customers", "count_products"]);
    expect(columns.oldCounts.map((c) => c.dataType)).toEqual(["commerce-orders", "commerce-customers", "commerce-products"]);
    expect(countedDataTypes(shopify)).toEqual(["commerce-orders", "commerce-products", "commerce-customers"]);
    const wrong = checkHeader(shopify, [...headerFor(shopify), "count_invoices"]);
    expect(wrong.problems).toMatchObject([{ kind: "unknown_column", column: "count_invoices" }]);
  });

  it("keeps each row's counts with the row (a thousands separator allowed), none where the cells are empty", async () => {
    const result = await parse(qbo, [
      [...headerFor(qbo), "count_invoices", "count_customers"],
      [...rowFor(qbo, 1), "1,040", "75"],
      [...rowFor(qbo, 2), "", ""],
      [...rowFor(qbo, 3), "0", ""],
    ]);
    expect(result.ok).toBe(true);
    expect(result.rows.map((r) => r.oldCounts)).toEqual([{ invoices: 1_040, customers: 75 }, null, { invoices: 0 }]);
    expect(result.preview.columns).toContain("count_invoices");
  });

  it("refuses a negative or fractional count on its row, in words, and keeps nothing of the file", async () => {
    const result = await parse(qbo, [
      [...headerFor(qbo), "count_invoices"],
      [...rowFor(qbo, 1), "812"],
      [...rowFor(qbo, 2), "-3"],
      [...rowFor(qbo, 3), "12.5"],
      [...rowFor(qbo, 4), "lots"],
    ]);
    expect(result.ok).toBe(false);
    expect(result.rows).toEqual([]);
    expect(result.problems.map((p) => [p.kind, p.severity, p.line, p.column])).toEqual([
      ["invalid_count", "error", 3, "count_invoices"],
      ["invalid_count", "error", 4, "count_invoices"],
      ["invalid_count", "error", 5, "count_invoices"],
    ]);
    expect(result.problems[0]?.message).toBe(
      "count_invoices on line 3 is negative (“-3”): it must be the whole number of invoices records the old app holds for this company (0 to 1,000,000,000), or empty.",
    );
    expect(result.problems[1]?.message).toMatch(/^count_invoices on line 4 is not a whole number/);
    expect(result.problems[2]?.message).toMatch(/^count_invoices on line 5 is not a number/);
  });
});
