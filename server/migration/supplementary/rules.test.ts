/**
 * The supplementary file's rules as pure functions: which companies wait for fresh tokens, how
 * rows find their companies (externalRef, else name) and what is refused by line, and what each
 * side may do with a file.
 */
import { describe, expect, it } from "vitest";
import { MIGRATION_ITEM_STATES, type MigrationItemState } from "@/core/migration/states";
import { acceptRule, checkRule, matchRows, sendBackRule, submitRule, waitsForFreshTokens, type CandidateCompany, type FileRow, type SupplementaryState } from "./rules";

const company = (id: string, name: string, externalRef: string | null, state: MigrationItemState = "reauth_required", extra: Partial<CandidateCompany> = {}): CandidateCompany => ({
  id,
  name,
  externalRef,
  state,
  lastErrorKind: state === "reauth_required" ? "reauthorization_required" : null,
  hasConnection: true,
  ...extra,
});
const row = (line: number, name: string, externalRef: string | null = null): FileRow => ({ line, name, externalRef });

describe("waitsForFreshTokens", () => {
  it("holds for companies that ended needing reauthorization, wait for a reconnection, or failed on their tokens", () => {
    const waits = (state: MigrationItemState, lastErrorKind: string | null = null, hasConnection = true) => waitsForFreshTokens({ state, lastErrorKind, hasConnection });
    expect(MIGRATION_ITEM_STATES.filter((s) => waits(s))).toEqual(["reauth_required", "reconnect_pending"]);
    expect(waits("failed", "reauthorization_required")).toBe(true);
    expect(waits("failed", "auth_error_during_sync")).toBe(true);
    // Failed for another reason: fresh tokens fix nothing.
    expect(waits("failed", "server_error")).toBe(false);
    expect(waits("failed", null)).toBe(false);
    // No connection to authorize again.
    expect(waits("reauth_required", null, false)).toBe(false);
  });
});

describe("matchRows", () => {
  const companies = [
    company("a", "Copperleaf Cafe", "CC-01"),
    company("b", "Wildrose Wedding Co", "WW-02"),
    company("c", "Harbour Books Ltd", "HB-03", "verified"),
    company("d", "No Ref Bakery", null),
    company("e", "Twin Name", "TN-1"),
    company("f", "Twin Name", "TN-2"),
    company("g", "Société Générale Café", "SG-7", "failed", { lastErrorKind: "auth_error_during_sync" }),
    company("h", "Server Trouble", "ST-8", "failed", { lastErrorKind: "server_error" }),
  ];

  it("finds a company by its externalRef first, else by its name (case, spaces and accents as written)", () => {
    const { matches, problems } = matchRows(
      [row(2, "anything at all", "CC-01"), row(3, "  wildrose   WEDDING co "), row(4, "No Ref Bakery"), row(5, "Société Générale Café")],
      companies,
    );
    expect(problems).toEqual([]);
    expect(matches).toEqual([
      { row: 0, companyId: "a", matchedBy: "externalRef" },
      { row: 1, companyId: "b", matchedBy: "name" },
      { row: 2, companyId: "d", matchedBy: "name" },
      { row: 3, companyId: "g", matchedBy: "name" },
    ]);
  });

  it("takes a reference no company has by the name of a company that had no reference", () => {
    expect(matchRows([row(2, "No Ref Bakery", "NRB-9")], companies).matches).toEqual([{ row: 0, companyId: "d", matchedBy: "name" }]);
  });

  it("refuses by line a company not in the engagement, named by reference or by name", () => {
    const { matches, problems } = matchRows([row(2, "Copperleaf Cafe", "XX-99"), row(3, "Unknown Ltd")], companies);
    expect(matches).toEqual([]);
    expect(problems).toEqual([
      expect.objectContaining({ kind: "company_not_in_engagement", line: 2, column: "externalRef", value: "XX-99", message: expect.stringContaining("No company of this migration has the external reference “XX-99”") }),
      expect.objectContaining({ kind: "company_not_in_engagement", line: 3, column: "companyName", value: "Unknown Ltd", message: expect.stringContaining("No company of this migration is named “Unknown Ltd”") }),
    ]);
  });

  it("refuses by line a company that is already verified, or failed for another reason", () => {
    const { matches, problems } = matchRows([row(2, "x", "HB-03"), row(3, "Server Trouble")], companies);
    expect(matches).toEqual([]);
    expect(problems.map((p) => [p.kind, p.line, p.message])).toEqual([
      ["company_not_waiting", 2, "Harbour Books Ltd is already verified: only companies that failed on their tokens take fresh ones here. Remove this row."],
      ["company_not_waiting", 3, expect.stringContaining("Server Trouble failed for a reason fresh tokens do not fix")],
    ]);
  });

  it("refuses by line a company named twice, saying where it first was", () => {
    const { matches, problems } = matchRows([row(2, "Copperleaf Cafe"), row(5, "x", "CC-01"), { line: 7, cell: "A7", name: "Copperleaf Cafe", externalRef: null }], companies);
    expect(matches).toEqual([{ row: 0, companyId: "a", matchedBy: "name" }]);
    expect(problems).toEqual([
      expect.objectContaining({ kind: "duplicate_company", line: 5, message: "Copperleaf Cafe is already on line 2: give each company once, with the tokens to use." }),
      expect.objectContaining({ kind: "duplicate_company", line: 7, cell: "A7" }),
    ]);
  });

  it("refuses by line a name several companies share, asking for the reference", () => {
    const { problems } = matchRows([row(2, "Twin Name")], companies);
    expect(problems).toEqual([expect.objectContaining({ kind: "company_ambiguous", line: 2, message: expect.stringContaining("2 companies of this migration are named “Twin Name”") })]);
    expect(matchRows([row(2, "Twin Name", "TN-2")], companies).matches).toEqual([{ row: 0, companyId: "f", matchedBy: "externalRef" }]);
  });
});

describe("what may be done with a file", () => {
  const base: SupplementaryState = { role: "customer", status: "active", watching: false, bulkRun: true, waiting: 2, current: null };

  it("lets the customer check and send a file once a bulk run has left companies waiting for tokens", () => {
    expect(submitRule(base)).toEqual({ allowed: true, reason: null });
    expect(submitRule({ ...base, role: "support" }).reason).toBe("Customers send fresh tokens in the portal.");
    expect(checkRule({ ...base, role: "support" }).allowed).toBe(true);
    expect(submitRule({ ...base, bulkRun: false }).reason).toMatch(/once the bulk migration has run/);
    expect(submitRule({ ...base, waiting: 0 }).reason).toMatch(/No company is waiting for fresh tokens/);
    expect(submitRule({ ...base, status: "on_hold" }).reason).toMatch(/on hold/);
    // A newer file replaces one awaiting review, and may follow an accepted one.
    expect(submitRule({ ...base, current: "submitted" }).allowed).toBe(true);
    expect(submitRule({ ...base, current: "accepted" }).allowed).toBe(true);
  });

  it("takes fresh tokens after the handover while the hypercare watch is on, not after it ended", () => {
    expect(submitRule({ ...base, status: "completed", watching: true }).allowed).toBe(true);
    expect(submitRule({ ...base, status: "completed", watching: false }).reason).toMatch(/hypercare watch has ended/);
    expect(submitRule({ ...base, status: "cancelled", watching: true }).allowed).toBe(false);
  });

  it("lets support accept or send back only the file awaiting review", () => {
    const staff = { ...base, role: "support" as const };
    for (const rule of [acceptRule, sendBackRule]) {
      expect(rule({ ...staff, current: "submitted" }).allowed).toBe(true);
      expect(rule({ ...staff, current: "submitted", role: "customer" }).reason).toBe("Support reviews files of fresh tokens.");
      expect(rule({ ...staff, current: "accepted" }).reason).toMatch(/already accepted/);
      expect(rule({ ...staff, current: "returned" }).reason).toMatch(/sent back/);
      expect(rule({ ...staff, current: null }).reason).toMatch(/No file of fresh tokens/);
      // Accepting does not need companies waiting now: the operation skips those that no longer do.
      expect(rule({ ...staff, current: "submitted", waiting: 0 }).allowed).toBe(true);
    }
  });
});
