/**
 * Formula-injection guard for every cell Ferry exports (templates, previews, later reports):
 * a spreadsheet treats a cell that starts with = + - @ (or a tab or carriage return, which some
 * programs strip before looking) as a formula. OWASP's advice: prefix such a cell with `'`.
 */

const FORMULA_START = /^[=+\-@\t\r]/;

/** The cell text made safe to open in a spreadsheet: a leading `'` when it could start a formula. */
export function neutraliseSpreadsheetCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}
