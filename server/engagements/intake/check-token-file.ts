/**
 * Checking a token file without storing anything: the same parse and validation a submission
 * runs, answered as the portal shows it (problems by line or cell, counts per kind, a masked
 * preview). Choosing a file in the portal calls this at once.
 */
import { readSteps } from "@/db/database";
import type { Database } from "@/db/database";
import { AppError } from "@/server/errors";
import { parseTokenFile, type TokenFileResult } from "@/server/intake";
import type { PlatformKey } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import { assertOrganization } from "../access";
import { findEngagement } from "../engagement-repository";
import { MAX_SHOWN_PROBLEMS, type IntakePreview, type TokenFileCheck } from "@/core/engagements/intake-schemas";

/** An uploaded file: its name as the browser gave it, and its bytes. */
export type UploadedFile = { name: string; bytes: Uint8Array };

/** Where a row was: "line 7" in a CSV, "cell A7" in a workbook (the company name's cell). */
export function sourceRefOf(row: { line: number; cell?: string }): string {
  return row.cell ? `cell ${row.cell}` : `line ${row.line}`;
}

/** The parse result as a check answer (problems capped, preview rows with where they were). */
export function toCheck(result: TokenFileResult, fileName: string): TokenFileCheck {
  const fileKind = result.fileKind === "csv" || result.fileKind === "xlsx" ? result.fileKind : null;
  return {
    ok: result.ok,
    fileName,
    fileKind,
    rowCount: result.rowCount,
    errorCount: result.errorCount,
    warningCount: result.warningCount,
    countsByKind: { ...result.countsByKind } as Record<string, number>,
    problems: result.problems.slice(0, MAX_SHOWN_PROBLEMS),
    moreProblems: result.errorCount + result.warningCount - Math.min(result.problems.length, MAX_SHOWN_PROBLEMS),
    preview: previewOf(result),
  };
}

/** The masked preview of a parse result. */
export function previewOf(result: TokenFileResult): IntakePreview {
  return {
    columns: result.preview.columns,
    rows: result.preview.rows.map((r) => ({ sourceRef: sourceRefOf(r), values: r.values, ...(r.becomes ? { becomes: r.becomes } : {}) })),
  };
}

/** A file name fit to store and show: no path, no control characters, at most 200 characters. */
export function cleanFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(0, 200);
  return clean || "token-file";
}

/** Parses and validates a file against the engagement's platform; nothing is stored. */
export async function checkTokenFile(database: Database, actor: Actor, input: { engagementId: string; file: UploadedFile; now?: Date }): Promise<TokenFileCheck> {
  const eng = await readSteps(database, (tx) => findEngagement(tx, input.engagementId));
  if (!eng) throw new AppError("NOT_FOUND", "No engagement with that id.");
  assertOrganization(actor, eng.organizationId);
  const fileName = cleanFileName(input.file.name);
  const result = await parseTokenFile({ bytes: input.file.bytes, fileName, platformKey: eng.platformKey as PlatformKey, now: input.now ?? new Date() });
  return toCheck(result, fileName);
}
