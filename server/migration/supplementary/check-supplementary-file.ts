/**
 * Checking a supplementary file without storing anything: the first token file's whole check
 * (parseTokenFile: the same columns, limits, hostile-file protections and masked preview), then
 * each row matched to the engagement's companies, refused by line when it names a company that is
 * not in the engagement, that several companies could be, that does not wait for fresh tokens, or
 * that an earlier row already named. Sending the file runs the same check again.
 */
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { AppError } from "@/server/errors";
import { parseTokenFile, ProblemList, type TokenFileResult, type TokenRow } from "@/server/intake";
import { getManagedPlatform, type ManagedPlatform, type PlatformKey } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import type { ProblemKind } from "@/core/intake/problems";
import type { SupplementaryCheck } from "@/core/migration/supplementary-schemas";
import { assertOrganization } from "@/server/engagements/access";
import { findEngagement, loadForChange, type EngagementRow } from "@/server/engagements/engagement-repository";
import { cleanFileName, sourceRefOf, toCheck, type UploadedFile } from "@/server/engagements/intake/check-token-file";
import { latestBulkRun } from "../bulk/bulk-repository";
import { checkRule, matchRows, type CandidateCompany, type RowMatch, type SupplementaryState } from "./rules";
import { candidateCompanies, countWaiting, findCurrentFile, isWatching } from "./supplementary-repository";

/**
 * Warnings of the first file that say nothing about a supplementary one: its companies exist on
 * the service already (their names are not sent again), and a company named twice is an error here.
 */
const NOT_FOR_SUPPLEMENTARY: ReadonlySet<ProblemKind> = new Set<ProblemKind>(["company_name_altered", "duplicate_company_name"]);

/**
 * The engagement, its platform and the rules' view of it, for the viewer. `forChange` (inside a
 * transaction that changes the engagement): its row is loaded with loadForChange, locked until the
 * transaction ends, so the rules decide on the files and companies as every other change of the
 * engagement leaves them; otherwise it is only read.
 */
export function* loadSupplementaryState(
  tx: Tx,
  actor: Actor,
  engagementId: string,
  options: { forChange: boolean },
): Steps<{ eng: EngagementRow; platform: ManagedPlatform; state: SupplementaryState }> {
  const eng = options.forChange ? (yield* loadForChange(tx, engagementId)).eng : yield* findEngagement(tx, engagementId);
  if (!eng) throw new AppError("NOT_FOUND", "No engagement with that id.");
  assertOrganization(actor, eng.organizationId);
  const platform = getManagedPlatform(eng.platformKey);
  if (!platform) throw new AppError("PRECONDITION_FAILED", "This engagement's platform has no managed migration.");
  const state: SupplementaryState = {
    role: actor.role,
    status: eng.status,
    watching: yield* isWatching(tx, eng.id),
    bulkRun: !!(yield* latestBulkRun(tx, eng.id)),
    waiting: yield* countWaiting(tx, eng.id),
    current: (yield* findCurrentFile(tx, eng.id))?.status ?? null,
  };
  return { eng, platform, state };
}

/** A matched row: the file's row (raw credentials: seal before storing) and its company. */
export type MatchedRow = { row: TokenRow; company: CandidateCompany; matchedBy: RowMatch["matchedBy"] };

/**
 * The parse result with each row matched to `companies`: the check as the portal shows it, and the
 * matched rows (none unless the file may be sent).
 */
export function supplementaryCheck(parsed: TokenFileResult, fileName: string, companies: readonly CandidateCompany[]): { check: SupplementaryCheck; matched: MatchedRow[] } {
  const lines = new ProblemList();
  const byId = new Map(companies.map((c) => [c.id, c]));
  const { matches, problems } = matchRows(parsed.rows, companies);
  for (const problem of problems) lines.add(problem);

  const countsByKind: Partial<Record<ProblemKind, number>> = {};
  let dropped = 0;
  for (const [kind, n] of Object.entries(parsed.countsByKind) as [ProblemKind, number][]) {
    if (NOT_FOR_SUPPLEMENTARY.has(kind)) dropped += n;
    else countsByKind[kind] = n;
  }
  for (const [kind, n] of Object.entries(lines.countsByKind) as [ProblemKind, number][]) countsByKind[kind] = (countsByKind[kind] ?? 0) + n;
  const ok = parsed.ok && lines.errorCount === 0;
  const merged: TokenFileResult = {
    ...parsed,
    ok,
    countsByKind,
    errorCount: parsed.errorCount + lines.errorCount,
    warningCount: parsed.warningCount - dropped + lines.warningCount,
    problems: [...parsed.problems.filter((p) => !NOT_FOR_SUPPLEMENTARY.has(p.kind)), ...lines.items].sort((a, b) => (a.line ?? 0) - (b.line ?? 0)),
  };
  const matched = matches.map((m) => ({ row: parsed.rows[m.row]!, company: byId.get(m.companyId)!, matchedBy: m.matchedBy }));
  const check: SupplementaryCheck = {
    ...toCheck(merged, fileName),
    matches: matched.map((m) => ({
      id: m.company.id,
      name: m.company.name,
      externalRef: m.company.externalRef,
      state: m.company.state,
      sourceRef: sourceRefOf(m.row),
      matchedBy: m.matchedBy,
    })),
  };
  return { check, matched: ok ? matched : [] };
}

/** Parses a file against the engagement's platform. */
export function parseSupplementaryFile(platformKey: string, file: UploadedFile, now: Date): Promise<TokenFileResult> {
  return parseTokenFile({ bytes: file.bytes, fileName: cleanFileName(file.name), platformKey: platformKey as PlatformKey, now });
}

/** Checks a supplementary file for the engagement; nothing is stored. Refused while the engagement takes no fresh tokens. */
export async function checkSupplementaryFile(database: Database, actor: Actor, input: { engagementId: string; file: UploadedFile; now?: Date }): Promise<SupplementaryCheck> {
  const { eng, state } = await readSteps(database, (tx) => loadSupplementaryState(tx, actor, input.engagementId, { forChange: false }));
  const allowed = checkRule(state);
  if (!allowed.allowed) throw new AppError("PRECONDITION_FAILED", allowed.reason ?? "Fresh tokens cannot be sent now.");
  const parsed = await parseSupplementaryFile(eng.platformKey, input.file, input.now ?? new Date());
  const companies = await readSteps(database, (tx) => candidateCompanies(tx, eng.id));
  return supplementaryCheck(parsed, cleanFileName(input.file.name), companies).check;
}
