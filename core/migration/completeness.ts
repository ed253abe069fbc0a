/**
 * Whether a company's data arrived complete, as the screens, the report and its CSV get it: per
 * data type the count read back beside the old app's (from the token file), the platform's caveat
 * where one applies, and the validation messages the service raised. Computed by
 * server/migration/completeness/completeness.ts.
 */
import { z } from "zod";

/**
 * - `short`: a data type's count read back is below the old app's;
 * - `validation_issues`: no count is short, but the service's validation raised errors or warnings;
 * - `complete`: the counts compared are the old app's or more, and validation raised nothing;
 * - `not_compared`: no count could be compared (the token file gives none, or only capped ones), and validation raised nothing.
 */
export const COMPLETENESS_VERDICTS = ["complete", "short", "validation_issues", "not_compared"] as const;
export type CompletenessVerdict = (typeof COMPLETENESS_VERDICTS)[number];

/** The verdict in words, as a table cell or a CSV column says it (never colour alone). */
export const VERDICT_WORDS: Record<CompletenessVerdict, string> = {
  complete: "Complete",
  short: "Short",
  validation_issues: "Validation issues",
  not_compared: "Not compared",
};

/**
 * One data type's comparison: `short` (below the old app's), `matches` (the old app's or more),
 * `capped` (Shopify's count cap: cannot be compared), `unknown` (the service gave no count),
 * `not_compared` (no old count).
 */
export const COMPARISONS = ["short", "matches", "capped", "unknown", "not_compared"] as const;

export const ZValidationMessage = z.object({ message: z.string(), count: z.number() });

export const ZDataTypeCompleteness = z.object({
  dataType: z.string(),
  /** "Invoices", "Chart of accounts". */
  label: z.string(),
  /** Records the service counted (its `totalResults`), or null when it gave none. */
  count: z.number().nullable(),
  /** Records the old app holds, from the token file; null when it gives none. */
  oldCount: z.number().nullable(),
  comparison: z.enum(COMPARISONS),
  /** The flag in words: "Invoices: 812 of the old app's 1,040"; null when there is nothing to flag. */
  flag: z.string().nullable(),
  /** The platform's known caveat where it applies, what it means and what to do. */
  caveat: z.string().nullable(),
  /** The dataset's validation results by message; null when they were not read. */
  validation: z
    .object({ errors: z.array(ZValidationMessage), warnings: z.array(ZValidationMessage), errorCount: z.number(), warningCount: z.number() })
    .nullable(),
});
export type DataTypeCompleteness = z.infer<typeof ZDataTypeCompleteness>;

export const ZCompleteness = z.object({
  verdict: z.enum(COMPLETENESS_VERDICTS),
  /** One sentence: what is short, what validation raised, or why nothing was compared. */
  summary: z.string(),
  dataTypes: z.array(ZDataTypeCompleteness),
});
export type Completeness = z.infer<typeof ZCompleteness>;
