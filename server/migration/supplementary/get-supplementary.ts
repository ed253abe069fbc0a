/**
 * The supplementary file as the viewer sees it: the companies waiting for fresh tokens (why each
 * failed), the current file with its companies and masked values (nothing here is ever
 * decrypted), earlier files, and what the viewer may do now — the rules module's answers.
 */
import { runSync } from "@/db/database";
import type { Db } from "@/db/client";
import { MAX_DATA_ROWS, MAX_FILE_BYTES, templateColumns } from "@/server/intake";
import type { Actor } from "@/core/accounts/actor";
import { MAX_LISTED_ROWS, MAX_LISTED_WAITING, type SupplementaryFileView, type SupplementaryView } from "@/core/migration/supplementary-schemas";
import { readFailure } from "../engine/stored-failure";
import { loadSupplementaryState } from "./check-supplementary-file";
import { acceptRule, sendBackRule, submitRule } from "./rules";
import { countWaiting, listFiles, listRows, listWaiting, type SupplementaryFileRow } from "./supplementary-repository";

type People = Map<string, { id: string; name: string }>;

function fileView(db: Db, row: SupplementaryFileRow, people: People): SupplementaryFileView {
  const person = (id: string | null) => (id ? (people.get(id) ?? null) : null);
  return {
    id: row.id,
    status: row.status,
    fileName: row.fileName,
    rowCount: row.rowCount,
    warnings: row.warnings,
    submittedBy: person(row.submittedById),
    submittedAt: row.submittedAt,
    decidedBy: person(row.decidedById),
    decidedAt: row.decidedAt,
    note: row.note,
    rows: runSync(listRows(db, row.id, MAX_LISTED_ROWS)),
  };
}

/** The engagement's supplementary file for the viewer. */
export function getSupplementary(db: Db, actor: Actor, engagementId: string): SupplementaryView {
  const { eng, platform, state } = loadSupplementaryState(db, actor, engagementId);
  const { rows, people } = runSync(listFiles(db, eng.id));
  const currentRow = rows.find((r) => r.status !== "replaced");
  return {
    platform: { key: platform.key, name: platform.name },
    limits: { maxFileBytes: MAX_FILE_BYTES, maxRows: MAX_DATA_ROWS },
    columns: templateColumns(platform),
    waiting: {
      companies: runSync(listWaiting(db, eng.id, MAX_LISTED_WAITING)).map((c) => {
        const failure = readFailure(c.lastError);
        return {
          id: c.id,
          name: c.name,
          externalRef: c.externalRef,
          state: c.state,
          sourceRef: c.sourceRef,
          reason: c.outcomeReason ?? failure?.error ?? null,
          failure,
        };
      }),
      total: runSync(countWaiting(db, eng.id)),
    },
    current: currentRow ? fileView(db, currentRow, people) : null,
    history: rows
      .filter((r) => r !== currentRow)
      .map((r) => ({
        id: r.id,
        status: r.status,
        fileName: r.fileName,
        rowCount: r.rowCount,
        submittedBy: r.submittedById ? (people.get(r.submittedById) ?? null) : null,
        submittedAt: r.submittedAt,
        note: r.note,
      })),
    submit: submitRule(state),
    accept: acceptRule(state),
    sendBack: sendBackRule(state),
  };
}
