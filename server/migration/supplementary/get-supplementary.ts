/**
 * The supplementary file as the viewer sees it: the companies waiting for fresh tokens (why each
 * failed), the current file with its companies and masked values (nothing here is ever
 * decrypted), earlier files, and what the viewer may do now — the rules module's answers.
 */
import { readSteps, type Database } from "@/db/database";
import { MAX_DATA_ROWS, MAX_FILE_BYTES, templateColumns } from "@/server/intake";
import type { Actor } from "@/core/accounts/actor";
import { MAX_LISTED_ROWS, MAX_LISTED_WAITING, type SupplementaryFileView, type SupplementaryView } from "@/core/migration/supplementary-schemas";
import { readFailure } from "../engine/stored-failure";
import { loadSupplementaryState } from "./check-supplementary-file";
import { acceptRule, sendBackRule, submitRule } from "./rules";
import { countWaiting, listFiles, listRows, listWaiting, type SupplementaryFileRow } from "./supplementary-repository";

type People = Map<string, { id: string; name: string }>;

type ListedRows = SupplementaryFileView["rows"];

function fileView(row: SupplementaryFileRow, people: People, rows: ListedRows): SupplementaryFileView {
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
    rows,
  };
}

/** The engagement's supplementary file for the viewer. */
export async function getSupplementary(database: Database, actor: Actor, engagementId: string): Promise<SupplementaryView> {
  // Only reads: nothing is locked (a view a moment old is redrawn on the next change).
  const { platform, state, rows, people, currentRows, waiting, total } = await readSteps(database, function* (tx) {
    const { eng, platform, state } = yield* loadSupplementaryState(tx, actor, engagementId, { forChange: false });
    const { rows, people } = yield* listFiles(tx, eng.id);
    const current = rows.find((r) => r.status !== "replaced");
    return {
      platform,
      state,
      rows,
      people,
      currentRows: current ? yield* listRows(tx, current.id, MAX_LISTED_ROWS) : [],
      waiting: yield* listWaiting(tx, eng.id, MAX_LISTED_WAITING),
      total: yield* countWaiting(tx, eng.id),
    };
  });
  const currentRow = rows.find((r) => r.status !== "replaced");
  return {
    platform: { key: platform.key, name: platform.name },
    limits: { maxFileBytes: MAX_FILE_BYTES, maxRows: MAX_DATA_ROWS },
    columns: templateColumns(platform),
    waiting: {
      companies: waiting.map((c) => {
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
      total,
    },
    current: currentRow ? fileView(currentRow, people, currentRows) : null,
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
