/**
 * The supplementary token file as rules, pure: which companies may get fresh tokens (those that
 * failed on their tokens), how a file's rows find their companies (by externalRef, else by name)
 * and what is refused by line, and when a file may be checked, sent, accepted or sent back. The
 * operations (before their transaction and again inside it) and the screens decide the same way.
 */
import { isStaff, type Role } from "@/core/accounts/roles";
import type { EngagementStatus } from "@/core/engagements/states";
import type { Allowed } from "@/core/engagements/intake-schemas";
import type { IntakeProblem } from "@/core/intake/problems";
import type { MatchedBy } from "@/core/migration/supplementary-schemas";
import type { MigrationItemState, SupplementaryStatus } from "@/core/migration/states";
import { statusWords } from "@/server/engagements/checklist";
import { cut } from "@/server/intake";
import type { StoredErrorKind } from "../engine/pipeline";

/** The failures of a company's tokens (beside ending `reauth_required`): refused while authorizing, or during the sync. */
export const TOKEN_FAILURE_KINDS = ["reauthorization_required", "auth_error_during_sync"] as const satisfies readonly StoredErrorKind[];

/** What the rules read of a company. */
export type TokenState = {
  state: MigrationItemState;
  /** Its last error's kind (pipeline.ts's StoredErrorKind), when it has one. */
  lastErrorKind: string | null;
  /** It has a connection on the service: fresh tokens authorize that connection again. */
  hasConnection: boolean;
};

/**
 * Whether a company waits for fresh tokens: it ended needing reauthorization (or is waiting for its
 * end customer to reconnect), or failed for its tokens — and has a connection to authorize again.
 * The repository's SQL (`waitingForTokens`) says the same; a test holds them together.
 */
export function waitsForFreshTokens(c: TokenState): boolean {
  if (!c.hasConnection) return false;
  switch (c.state) {
    case "reauth_required":
    case "reconnect_pending":
      return true;
    case "failed":
      return (TOKEN_FAILURE_KINDS as readonly string[]).includes(c.lastErrorKind ?? "");
    case "pending":
    case "company_created":
    case "connection_created":
    case "authorized":
    case "sync_requested":
    case "verified":
    case "set_aside":
      return false;
    default: {
      const never: never = c.state;
      return never;
    }
  }
}

/** Why a company does not wait for fresh tokens, in words that follow its name ("is already verified"). */
export function notWaitingReason(c: TokenState): string {
  switch (c.state) {
    case "verified":
      return "is already verified";
    case "set_aside":
      return "was set aside by support";
    case "pending":
      return "has not been migrated yet";
    case "company_created":
    case "connection_created":
    case "authorized":
    case "sync_requested":
      return "is being migrated right now";
    case "failed":
      return c.hasConnection ? "failed for a reason fresh tokens do not fix (not its tokens): support retries it" : "has no connection on the service to authorize again: support retries it";
    case "reauth_required":
    case "reconnect_pending":
      return c.hasConnection ? "waits for fresh tokens" : "has no connection on the service to authorize again: support retries it";
    default: {
      const never: never = c.state;
      return never;
    }
  }
}

// --- Matching a file's rows to the engagement's companies ---

/** A company of the engagement, as matching reads it. */
export type CandidateCompany = TokenState & { id: string; name: string; externalRef: string | null };
/** A row of the file, as matching reads it (where it was, and what names its company). */
export type FileRow = { line: number; cell?: string; name: string; externalRef: string | null };
/** A row that found a company waiting for tokens: the row's index in the file's rows. */
export type RowMatch = { row: number; companyId: string; matchedBy: MatchedBy };
export type LineProblem = Omit<IntakeProblem, "severity">;

const SHOWN = 60;

/** A name as matching compares it: Unicode-normalised, spaces collapsed, case ignored. */
export function comparableName(name: string): string {
  return name.normalize("NFC").trim().replace(/\s+/g, " ").toLocaleLowerCase("en");
}

/** "line 7" in a CSV, "row 7" in a workbook. */
const whereIs = (row: FileRow) => (row.cell ? `row ${row.line}` : `line ${row.line}`);

function groupBy<K>(companies: readonly CandidateCompany[], key: (c: CandidateCompany) => K | null): Map<K, CandidateCompany[]> {
  const map = new Map<K, CandidateCompany[]>();
  for (const c of companies) {
    const k = key(c);
    if (k === null) continue;
    const list = map.get(k);
    if (list) list.push(c);
    else map.set(k, [c]);
  }
  return map;
}

/**
 * Finds each row's company: by its externalRef when the row gives one (a reference no company has
 * still finds a company by name if that company has no reference of its own), else by its name.
 * Refused by line: a company not in the engagement, a name several companies share, a company that
 * does not wait for fresh tokens (verified, set aside, still on its way…), a company named twice.
 */
export function matchRows(rows: readonly FileRow[], companies: readonly CandidateCompany[]): { matches: RowMatch[]; problems: LineProblem[] } {
  const byRef = groupBy(companies, (c) => c.externalRef?.trim() || null);
  const byName = groupBy(companies, (c) => comparableName(c.name));
  const matches: RowMatch[] = [];
  const problems: LineProblem[] = [];
  const seen = new Map<string, FileRow>();

  rows.forEach((row, index) => {
    const at = { line: row.line, ...(row.cell ? { cell: row.cell } : {}) };
    const ref = row.externalRef?.trim() || null;
    const named = byName.get(comparableName(row.name)) ?? [];
    let found: { company: CandidateCompany; by: MatchedBy } | null = null;
    if (ref) {
      const withRef = byRef.get(ref) ?? [];
      const unreferenced = named.filter((c) => !c.externalRef?.trim());
      if (withRef.length === 1) found = { company: withRef[0]!, by: "externalRef" };
      else if (withRef.length > 1) {
        problems.push({
          ...at,
          kind: "company_ambiguous",
          column: "externalRef",
          value: cut(ref, SHOWN),
          message: `${withRef.length} companies of this migration have the external reference “${cut(ref, SHOWN)}”: ask support which one these tokens are for.`,
        });
        return;
      } else if (unreferenced.length === 1) found = { company: unreferenced[0]!, by: "name" };
      else {
        problems.push({
          ...at,
          kind: "company_not_in_engagement",
          column: "externalRef",
          value: cut(ref, SHOWN),
          message: `No company of this migration has the external reference “${cut(ref, SHOWN)}”. Use the reference it had in the first token file, or leave externalRef empty to find the company by its name.`,
        });
        return;
      }
    } else if (named.length === 1) found = { company: named[0]!, by: "name" };
    else if (named.length > 1) {
      problems.push({
        ...at,
        kind: "company_ambiguous",
        column: "companyName",
        value: cut(row.name, SHOWN),
        message: `${named.length} companies of this migration are named “${cut(row.name, SHOWN)}”: give this row the externalRef of the one these tokens are for.`,
      });
      return;
    } else {
      problems.push({
        ...at,
        kind: "company_not_in_engagement",
        column: "companyName",
        value: cut(row.name, SHOWN),
        message: `No company of this migration is named “${cut(row.name, SHOWN)}”. Give the name as in the first token file, or the company's externalRef.`,
      });
      return;
    }

    const { company, by } = found;
    const first = seen.get(company.id);
    if (first) {
      problems.push({
        ...at,
        kind: "duplicate_company",
        column: by === "externalRef" ? "externalRef" : "companyName",
        value: cut(by === "externalRef" ? (ref ?? "") : row.name, SHOWN),
        message: `${cut(company.name, SHOWN)} is already on ${whereIs(first)}: give each company once, with the tokens to use.`,
      });
      return;
    }
    seen.set(company.id, row);
    if (!waitsForFreshTokens(company)) {
      problems.push({
        ...at,
        kind: "company_not_waiting",
        column: by === "externalRef" ? "externalRef" : "companyName",
        value: cut(by === "externalRef" ? (ref ?? "") : row.name, SHOWN),
        message: `${cut(company.name, SHOWN)} ${notWaitingReason(company)}: only companies that failed on their tokens take fresh ones here. Remove this row.`,
      });
      return;
    }
    matches.push({ row: index, companyId: company.id, matchedBy: by });
  });
  return { matches, problems };
}

// --- What may be done with a file now ---

export type SupplementaryState = {
  role: Role;
  status: EngagementStatus;
  /** The engagement's hypercare watch is on: a completed engagement takes fresh tokens until it ends. */
  watching: boolean;
  /** The engagement has a bulk run (its failures tell which companies need fresh tokens; the retries run in it). */
  bulkRun: boolean;
  /** Companies waiting for fresh tokens now. */
  waiting: number;
  /** The current file's status (the newest not replaced), or null before the first. */
  current: SupplementaryStatus | null;
};

const yes: Allowed = { allowed: true, reason: null };
const no = (reason: string): Allowed => ({ allowed: false, reason });

/** Why the engagement takes no fresh tokens now, whoever asks, or null. */
function engagementRefusal(s: SupplementaryState): string | null {
  switch (s.status) {
    case "active":
      break;
    case "completed":
      if (s.watching) break;
      return "The engagement is completed and its hypercare watch has ended: fresh tokens can no longer be sent.";
    case "on_hold":
    case "cancelled":
      return `The engagement is ${statusWords(s.status)}; fresh tokens can be sent only while it is active.`;
    default: {
      const never: never = s.status;
      return never;
    }
  }
  if (!s.bulkRun) return "Fresh tokens can be sent once the bulk migration has run: it tells which companies failed on their tokens.";
  return null;
}

/** Checking a file (nothing is stored): the engagement takes fresh tokens and some company waits for them. */
export function checkRule(s: SupplementaryState): Allowed {
  const refused = engagementRefusal(s);
  if (refused) return no(refused);
  if (s.waiting === 0) return no("No company is waiting for fresh tokens: none failed on its tokens, or each has been retried or reconnected since.");
  return yes;
}

/** Sending a file: the customer, whenever a file may be checked (a newer file replaces one awaiting review). */
export function submitRule(s: SupplementaryState): Allowed {
  if (s.role !== "customer") return no("Customers send fresh tokens in the portal.");
  return checkRule(s);
}

function review(s: SupplementaryState): Allowed | null {
  if (!isStaff(s.role)) return no("Support reviews files of fresh tokens.");
  const refused = engagementRefusal(s);
  if (refused) return no(refused);
  switch (s.current) {
    case "submitted":
      return null;
    case "accepted":
      return no("The file is already accepted: its companies are being retried.");
    case "returned":
      return no("The file was sent back; the customer sends a new one.");
    case "expired":
      return no("The hypercare watch ended before the file was reviewed: its fresh tokens were deleted.");
    case "replaced":
    case null:
      return no("No file of fresh tokens has been sent.");
    default: {
      const never: never = s.current;
      return never;
    }
  }
}

/**
 * What the end of the hypercare watch does to the current file: one still awaiting review can no
 * longer be accepted or sent back (nothing takes fresh tokens after the watch), so its tokens are
 * deleted unused — audited, and the customer told in the watch's final mail — rather than kept.
 */
export function expiresWhenWatchEnds(current: SupplementaryStatus | null): boolean {
  return current === "submitted";
}

/** Accepting the current file (its companies are retried): support, while it awaits review. */
export function acceptRule(s: SupplementaryState): Allowed {
  return review(s) ?? yes;
}

/** Sending the current file back with a note: support, while it awaits review. */
export function sendBackRule(s: SupplementaryState): Allowed {
  return review(s) ?? yes;
}
