/**
 * The service's rule for company names (reference §3): characters outside the allowed set are
 * stripped, not rejected (`Company (Codat[1])` → `Company Codat1`), and runs of spaces collapse.
 * Shared by the sandbox (which applies it) and the token-file intake (which warns about it).
 */

/** Characters a company name keeps; every other character is stripped. */
export const COMPANY_NAME_FORBIDDEN = /[^A-Za-z0-9\s\-',&@.?!]/g;

/** The name the service stores for `name` (empty when nothing allowed is left). */
export function serviceCompanyName(name: string): string {
  return name.replace(COMPANY_NAME_FORBIDDEN, "").replace(/\s+/g, " ").trim();
}
