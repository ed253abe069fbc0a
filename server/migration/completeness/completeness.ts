/**
 * Complete data per company (issue 32, item 2): "synced" does not mean complete. The rules that
 * compare each data type's count read back (its `totalResults`) with the old app's count from the
 * token file, name the platform's known caveats where they apply, and gather the service's
 * validation results. Pure: from the item's stored checks, its old counts and its platform.
 */
import type { Completeness, CompletenessVerdict, DataTypeCompleteness } from "@/core/migration/completeness";
import { countOf, listText } from "@/core/words";
import type { ItemChecks, ValidationSummary } from "../engine/pipeline";

const NUMBER = new Intl.NumberFormat("en-GB");

/** Shopify counts at most this many records (reference §11, the platform's limits). */
export const SHOPIFY_COUNT_CAP = 25_000;
const SHOPIFY = "fztf";
const ZOHO_BOOKS = "rwuv";

/** The data types' names in words. */
const LABELS: Record<string, string> = {
  chartOfAccounts: "Chart of accounts",
  invoices: "Invoices",
  customers: "Customers",
  suppliers: "Suppliers",
  bills: "Bills",
  purchaseOrders: "Purchase orders",
  "commerce-orders": "Orders",
  "commerce-products": "Products",
  "commerce-customers": "Customers",
};

/** A data type's name in words ("Purchase orders"); its key where Ferry has no name for it. */
export const dataTypeLabel = (dataType: string) => LABELS[dataType] ?? dataType;

/**
 * Zoho Books: a short count's likely cause. Zoho's daily API limit (the lower of 2,500 and 500 per
 * user) is shared by every app on the organisation; a fetch past it waits for the next day's, or
 * fails as a fetch error (the service's Zoho Books limits page).
 */
export const ZOHO_DAILY_LIMIT_CAVEAT =
  "Zoho Books: the organisation's daily API limit (the lower of 2,500 and 500 per user) is shared by every app on it, and the service's fetch of what is past it waits for the next day's limit or fails as a fetch error. Sync the company again the next day before concluding records are missing.";

/**
 * Zoho Books: the reduced datasets the service reads by default leave fields out, not records
 * (the service's Zoho Books limits page): the data types and the fields they lack.
 */
const ZOHO_REDUCED_FIELDS: Record<string, string> = {
  invoices: "invoices arrive without their line items (and totalTaxAmount shows 0.00)",
  customers: "customers arrive without their address and contact details",
  bills: "bills arrive without purchase order references, line items, subtotal, tax amount and note",
};

/** Zoho Books: what a reduced dataset leaves out of `dataType`, and how to have it whole; null where nothing is left out. */
export function zohoReducedCaveat(dataType: string): string | null {
  const fields = ZOHO_REDUCED_FIELDS[dataType];
  if (!fields) return null;
  return `Zoho Books: the service reads a reduced dataset by default, so ${fields}; every record is there. To have them whole, ask the service's support to pull complete datasets, which can then take days for large volumes.`;
}

/** Shopify: why a count of exactly 25,000 says nothing. */
export const shopifyCapCaveat = (oldCount: number | null) =>
  `Shopify: counts are capped at ${NUMBER.format(SHOPIFY_COUNT_CAP)}, so a count of exactly ${NUMBER.format(SHOPIFY_COUNT_CAP)} cannot be compared${oldCount === null ? "" : ` with the old app's ${NUMBER.format(oldCount)}`}: the store may hold more. Check the count in Shopify's admin if it matters.`;

/** One data type's count beside the old app's (see ZDataTypeCompleteness's `comparison`). */
export function compareCount(params: { platformKey: string; dataType: string; count: number | null; oldCount: number | null }): Pick<DataTypeCompleteness, "comparison" | "flag" | "caveat"> {
  const { platformKey, dataType, count, oldCount } = params;
  const label = dataTypeLabel(dataType);
  if (platformKey === SHOPIFY && count === SHOPIFY_COUNT_CAP) {
    return { comparison: "capped", flag: null, caveat: shopifyCapCaveat(oldCount) };
  }
  // Zoho's reduced datasets lack fields, whatever the count: said wherever the data type is shown.
  const reduced = platformKey === ZOHO_BOOKS ? zohoReducedCaveat(dataType) : null;
  if (oldCount === null) return { comparison: "not_compared", flag: null, caveat: reduced };
  if (count === null) return { comparison: "unknown", flag: null, caveat: reduced };
  if (count >= oldCount) return { comparison: "matches", flag: null, caveat: reduced };
  const dailyLimit = platformKey === ZOHO_BOOKS ? ZOHO_DAILY_LIMIT_CAVEAT : null;
  return {
    comparison: "short",
    flag: `${label}: ${NUMBER.format(count)} of the old app's ${NUMBER.format(oldCount)}`,
    caveat: [dailyLimit, reduced].filter(Boolean).join(" ") || null,
  };
}

/** Each data type's count as stored: the proof's and every other counted one. */
function countsOf(checks: ItemChecks): Map<string, number | null> {
  const counts = new Map<string, number | null>(Object.entries(checks.records ?? {}));
  if (checks.read && !checks.read.skipped) counts.set(checks.read.dataType, checks.read.records);
  return counts;
}

const issuesOf = (v: ValidationSummary | null | undefined) => (v ? v.errorCount + v.warningCount : 0);

/** The verdict and its sentence, from the data types' rows. */
function verdictOf(rows: readonly DataTypeCompleteness[], hasOldCounts: boolean): { verdict: CompletenessVerdict; summary: string } {
  const short = rows.filter((r) => r.comparison === "short");
  const flawed = rows.filter((r) => issuesOf(r.validation) > 0);
  const errors = flawed.reduce((n, r) => n + (r.validation?.errorCount ?? 0), 0);
  const warnings = flawed.reduce((n, r) => n + (r.validation?.warningCount ?? 0), 0);
  const validationText = flawed.length
    ? `Validation raised ${listText([...(errors ? [countOf(errors, "error", "errors")] : []), ...(warnings ? [countOf(warnings, "warning", "warnings")] : [])])} on ${listText(flawed.map((r) => r.label))}.`
    : "";
  if (short.length) {
    const caveat = short.some((r) => r.caveat) ? " (the platform's caveat applies)" : "";
    return { verdict: "short", summary: [`Short: ${short.map((r) => r.flag).join("; ")}${caveat}.`, validationText].filter(Boolean).join(" ") };
  }
  if (flawed.length) return { verdict: "validation_issues", summary: validationText };
  const matched = rows.filter((r) => r.comparison === "matches");
  const capped = rows.filter((r) => r.comparison === "capped");
  const cappedText = capped.length ? ` ${listText(capped.map((r) => r.label))}: counted at Shopify's cap of ${NUMBER.format(SHOPIFY_COUNT_CAP)}, not compared.` : "";
  if (matched.length) return { verdict: "complete", summary: `Every count compared is the old app's or more (${listText(matched.map((r) => r.label))}).${cappedText}` };
  const why = hasOldCounts ? "no count read back could be compared with the old app's." : "the token file gives no old app counts for this company.";
  return { verdict: "not_compared", summary: `Not compared: ${why}${cappedText}` };
}

/** An item's stored checks as the engine wrote them (JSON on the row), or null when there are none. */
export function storedChecks(raw: unknown): ItemChecks | null {
  return raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as ItemChecks) : null;
}

/**
 * The company's completeness, or null before its data was read back (nothing to say yet). Rows:
 * every data type counted, given an old count or validated, by name.
 */
export function completenessOf(params: { platformKey: string; checks: ItemChecks | null; oldCounts: Record<string, number> | null }): Completeness | null {
  const { platformKey, checks } = params;
  if (!checks?.read) return null;
  const oldCounts = params.oldCounts ?? {};
  const counts = countsOf(checks);
  const types = new Set([...counts.keys(), ...Object.keys(oldCounts), ...Object.keys(checks.validation ?? {})]);
  const rows = [...types]
    .map((dataType): DataTypeCompleteness => {
      const count = counts.get(dataType) ?? null;
      const oldCount = oldCounts[dataType] ?? null;
      const validation = checks.validation?.[dataType] ?? null;
      return { dataType, label: dataTypeLabel(dataType), count, oldCount, ...compareCount({ platformKey, dataType, count, oldCount }), validation };
    })
    .sort((a, b) => a.label.localeCompare(b.label));
  return { ...verdictOf(rows, Object.keys(oldCounts).length > 0), dataTypes: rows };
}

/**
 * The details in one cell of text, for the report's CSV: each flagged data type with its caveat,
 * each validation message with its count. Empty when there is nothing to say beyond the verdict.
 */
export function completenessDetails(completeness: Completeness | null): string {
  if (!completeness) return "";
  const parts: string[] = [];
  for (const row of completeness.dataTypes) {
    if (row.flag) parts.push(row.caveat ? `${row.flag}. ${row.caveat}` : `${row.flag}.`);
    else if (row.caveat) parts.push(`${row.label}: ${row.caveat}`);
    const v = row.validation;
    if (v && issuesOf(v) > 0) {
      const messages = [...v.errors.map((m) => `error “${m.message}” ×${m.count}`), ...v.warnings.map((m) => `warning “${m.message}” ×${m.count}`)];
      parts.push(`${row.label} validation: ${messages.join(", ")}.`);
    }
  }
  return parts.join(" ");
}
