/**
 * What can be wrong with a token file, as words the server and the screens share: a stable kind
 * per problem, its fixed severity, and a problem's shape.
 */

/** Every problem kind, grouped by where it is found. The strings are stable: the UI and tests key on them. */
export const PROBLEM_KINDS = [
  // The file as a whole (reading stops).
  "file_too_large",
  "file_empty",
  "unsupported_file_type",
  "not_utf8",
  "unreadable_file",
  "too_many_rows",
  "header_only",
  // The header row.
  "missing_header_row",
  "wrong_platform",
  "missing_column",
  "unknown_column",
  "duplicate_column",
  // One row or cell.
  "required_value_missing",
  "malformed_value",
  "invalid_records",
  "invalid_count",
  "extra_values",
  "lossy_number",
  "value_too_long",
  "access_token_expired",
  // Across rows.
  "duplicate_credential",
  "duplicate_identity",
  // A supplementary file (fresh tokens after the bulk run): each row must name one company of the
  // engagement that waits for fresh tokens, once.
  "company_not_in_engagement",
  "company_ambiguous",
  "company_not_waiting",
  "duplicate_company",
  // Warnings.
  "company_name_altered",
  "company_name_replaced",
  "duplicate_company_name",
  "expires_at_missing",
  "extension_mismatch",
  "shared_user_grant",
] as const;

export type ProblemKind = (typeof PROBLEM_KINDS)[number];

/** `error` blocks the file (nothing is stored); `warning` is shown and the file may still be submitted. */
export type Severity = "error" | "warning";

/** The severity of each kind; fixed, so a kind always means the same thing to the customer. */
export function severityOf(kind: ProblemKind): Severity {
  switch (kind) {
    case "company_name_altered":
    case "company_name_replaced":
    case "duplicate_company_name":
    case "expires_at_missing":
    case "extension_mismatch":
    case "shared_user_grant":
      return "warning";
    case "file_too_large":
    case "file_empty":
    case "unsupported_file_type":
    case "not_utf8":
    case "unreadable_file":
    case "too_many_rows":
    case "header_only":
    case "missing_header_row":
    case "wrong_platform":
    case "missing_column":
    case "unknown_column":
    case "duplicate_column":
    case "required_value_missing":
    case "malformed_value":
    case "invalid_records":
    case "invalid_count":
    case "extra_values":
    case "lossy_number":
    case "value_too_long":
    case "access_token_expired":
    case "duplicate_credential":
    case "duplicate_identity":
    case "company_not_in_engagement":
    case "company_ambiguous":
    case "company_not_waiting":
    case "duplicate_company":
      return "error";
    default: {
      const never: never = kind;
      return never;
    }
  }
}

export type IntakeProblem = {
  kind: ProblemKind;
  severity: Severity;
  /** What is wrong and what to do, in plain words; never a secret value. */
  message: string;
  /** CSV: the physical line where the record starts (1-based). XLSX: the worksheet row number. */
  line?: number;
  /** XLSX only: the cell reference, e.g. `C7`. */
  cell?: string;
  /** The column: its canonical name (`accessToken`, `companyName`…) or, when unknown, its header. */
  column?: string;
  /** The value concerned: masked to the last four characters when the column is secret. */
  value?: string;
  /** company_name_altered, company_name_replaced: the name the service will store. */
  becomes?: string;
};
