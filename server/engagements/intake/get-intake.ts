/**
 * Step 1 as the viewer sees it: the platform's columns and limits, the current submission (masked
 * values only: nothing here is ever decrypted), the earlier ones, and what the viewer may do now.
 */
import { readSteps } from "@/db/database";
import type { Database } from "@/db/database";
import { isStaff } from "@/core/accounts/roles";
import { MAX_DATA_ROWS, MAX_FILE_BYTES, templateColumns } from "@/server/intake";
import { getManagedPlatform } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import { assertOrganization } from "../access";
import { loadForChange } from "../engagement-repository";
import { countRealItems, listSubmissions, migrationHasStarted, pageRealItems, type SubmissionRow } from "./intake-repository";
import { acceptRule, returnRule } from "./review-rules";
import type { IntakeItemsPage, IntakeView, SubmissionView } from "@/core/engagements/intake-schemas";
import { submissionRefusal } from "./submit-intake";

function view(row: SubmissionRow, people: Map<string, { id: string; name: string }>): SubmissionView {
  const person = (id: string | null) => (id ? (people.get(id) ?? null) : null);
  return {
    id: row.id,
    status: row.status,
    clientId: row.clientId,
    clientSecretMasked: row.clientSecretMask,
    contacts: row.contacts,
    fileName: row.fileName,
    fileKind: row.fileKind,
    rowCount: row.rowCount,
    warningCount: row.warningCount,
    countsByKind: row.countsByKind,
    warnings: row.warnings,
    preview: {
      // `sourceRef` and `becomes` are stored beside the columns' values (see submit-intake.ts).
      columns: [...new Set(row.preview.flatMap((r) => Object.keys(r)).filter((k) => k !== "sourceRef" && k !== "becomes"))],
      rows: row.preview.map(({ sourceRef, becomes, ...values }) => ({ sourceRef: sourceRef ?? "", values, ...(becomes ? { becomes } : {}) })),
    },
    submittedBy: person(row.submittedById),
    submittedAt: row.submittedAt,
    reviewedBy: person(row.reviewedById),
    reviewedAt: row.reviewedAt,
    returnNote: row.returnNote,
    replacedItemCount: row.replacedItemCount,
  };
}

/** The intake of one engagement for the viewer. */
export async function getIntake(database: Database, actor: Actor, engagementId: string): Promise<IntakeView> {
  const { eng, states, rows, people, started } = await readSteps(database, function* (tx) {
    const { eng, states } = yield* loadForChange(tx, engagementId);
    assertOrganization(actor, eng.organizationId);
    return { eng, states, ...(yield* listSubmissions(tx, eng.id)), started: yield* migrationHasStarted(tx, eng.id) };
  });
  const platform = getManagedPlatform(eng.platformKey);
  const currentRow = rows.find((r) => r.status !== "replaced");
  const older = rows.filter((r) => r !== currentRow);
  const submitRefusal = isStaff(actor.role)
    ? "Customers submit their details and token file in the portal."
    : submissionRefusal({ eng, started });
  const review = { role: actor.role, status: eng.status, submission: currentRow?.status ?? null, started };
  return {
    platform: { key: eng.platformKey, name: platform?.name ?? eng.platformKey },
    limits: { maxFileBytes: MAX_FILE_BYTES, maxRows: MAX_DATA_ROWS },
    columns: platform ? templateColumns(platform) : [],
    current: currentRow ? view(currentRow, people) : null,
    history: older.map((r) => view(r, people)),
    submit: { allowed: !submitRefusal, reason: submitRefusal },
    submitReopens: states[1] === "done",
    accept: acceptRule(review),
    return: returnRule(review),
  };
}

/** One page of the engagement's companies as stored (masked credentials), for support's review. */
export async function listIntakeItems(database: Database, actor: Actor, input: { engagementId: string; page: number; pageSize: number }): Promise<IntakeItemsPage> {
  return readSteps(database, function* (tx) {
    const { eng } = yield* loadForChange(tx, input.engagementId);
    assertOrganization(actor, eng.organizationId);
    const items = yield* pageRealItems(tx, eng.id, { offset: (input.page - 1) * input.pageSize, limit: input.pageSize });
    return { items, total: yield* countRealItems(tx, eng.id), page: input.page, pageSize: input.pageSize };
  });
}
