/**
 * A customer submits their OAuth app's details and the token file (step 1). The file is parsed and
 * validated whole before anything is stored; with a blocking problem nothing is stored and the
 * problems are returned. Otherwise, in one transaction: the previous submission (if any) is marked
 * replaced and its companies deleted, the submission and one migration item per row are stored —
 * the client secret and every credential encrypted with the key ring, bound to their row — and
 * step 1 starts (a new file after acceptance reopens step 1, and the cascade applies). The raw
 * file is not kept. Refused once the migration has started.
 */
import { readSteps, type Tx } from "@/db/database";
import type { Database, Steps } from "@/db/database";
import { AppError } from "@/server/errors";
import { parseTokenFile, type TokenFileResult } from "@/server/intake";
import { severityOf, type IntakeProblem } from "@/core/intake/problems";
import { ITEMS_PER_BATCH, insertMigrationItemBatches, sealMigrationItems, type SealedItem } from "@/server/items/insert-items";
import { sealClientSecret } from "@/server/items/item-credentials";
import { getManagedPlatform, type ManagedPlatform, type PlatformKey } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { maskSecret, type KeyRing } from "@/server/security/secrets";
import { applyStepAction } from "../act-on-step";
import { assertOrganization } from "../access";
import { loadForChange, type EngagementRow } from "../engagement-repository";
import type { StepStates } from "../checklist";
import { companiesText, warningsText } from "@/core/words";
import { refreshWaiting, type WaitingChange } from "../waiting/refresh-waiting";
import { queueNotice, type FlowNotice, type NotifyConfig } from "../waiting/notify";
import { cleanFileName, previewOf, toCheck, type UploadedFile } from "./check-token-file";
import { deleteRealItems, findCurrentSubmission, insertSubmission, migrationHasStarted, updateSubmission } from "./intake-repository";
import { MAX_STORED_WARNINGS, type IntakeForm, type TokenFileCheck } from "@/core/engagements/intake-schemas";

export type SubmitIntakeResult =
  | { ok: false; check: TokenFileCheck }
  | {
      ok: true;
      check: TokenFileCheck;
      submissionId: string;
      /** Companies stored. */
      companies: number;
      /** Companies of the replaced submission, deleted. */
      replacedCompanies: number;
      waiting: WaitingChange | null;
      notice: FlowNotice;
    };

/** Why a submission cannot be made now (engagement state), or null. */
export function submissionRefusal(params: { eng: Pick<EngagementRow, "status">; started: boolean }): string | null {
  if (params.eng.status !== "active") return `The engagement is ${params.eng.status.replace("_", " ")}; details can be submitted only while it is active.`;
  if (params.started) return "The migration has started: the token file can no longer be replaced. Contact your Ferry contact if companies must change.";
  return null;
}

function assertSubmitter(actor: Actor): void {
  if (actor.role !== "customer") throw new AppError("FORBIDDEN", "Customers submit their details and token file in the portal.");
}

function* assertMaySubmit(tx: Tx, actor: Actor, engagementId: string): Steps<{ eng: EngagementRow; states: StepStates; platform: ManagedPlatform }> {
  const { eng, states } = yield* loadForChange(tx, engagementId);
  assertOrganization(actor, eng.organizationId);
  assertSubmitter(actor);
  const refusal = submissionRefusal({ eng, started: yield* migrationHasStarted(tx, engagementId) });
  if (refusal) throw new AppError("PRECONDITION_FAILED", refusal);
  const platform = getManagedPlatform(eng.platformKey);
  if (!platform) throw new AppError("PRECONDITION_FAILED", "This engagement's platform has no managed migration.");
  return { eng, states, platform };
}

/** What is stored of a parsed file besides its companies. */
type FileSummary = Pick<TokenFileResult, "warningCount" | "countsByKind"> & { rowCount: number; preview: ReturnType<typeof previewOf>; warnings: IntakeProblem[] };

/**
 * Reads the file, sealing its companies ITEMS_PER_BATCH at a time as they are accepted, before the
 * transaction (encryption is slow and the ids random: a body PostgreSQL may run again must not
 * redo them). Each batch of parsed rows is let go once sealed, so the file's companies are never
 * held twice over; a file found wrong after some batches were sealed stores none of them.
 */
async function readAndSeal(
  file: { bytes: Uint8Array; fileName: string; now: Date },
  params: { ring: KeyRing; platform: ManagedPlatform; engagementId: string; submissionId: string; at: Date },
): Promise<{ parsed: TokenFileResult; items: SealedItem[][] }> {
  const items: SealedItem[][] = [];
  const parsed = await parseTokenFile({
    ...file,
    platformKey: params.platform.key as PlatformKey,
    batches: { size: ITEMS_PER_BATCH, take: (rows, offset) => items.push(sealMigrationItems({ ...params, rows, offset })) },
  });
  return { parsed, items: parsed.ok ? items : [] };
}

/** Submits the details and the token file (see the module note). */
export async function submitIntake(
  database: Database,
  deps: { ring: KeyRing; notify: NotifyConfig },
  actor: Actor,
  input: { engagementId: string; form: IntakeForm; file: UploadedFile; now?: Date },
): Promise<SubmitIntakeResult> {
  const first = await readSteps(database, (tx) => assertMaySubmit(tx, actor, input.engagementId));
  const fileName = cleanFileName(input.file.name);
  // Made before the transaction, which may run more than once on PostgreSQL: the ids, and every
  // secret encrypted for its row (the submission's client secret, each company's credentials).
  const submissionId = crypto.randomUUID();
  const ref = { engagementId: first.eng.id, submissionId };
  const { parsed, items } = await readAndSeal(
    { bytes: input.file.bytes, fileName, now: input.now ?? new Date() },
    { ring: deps.ring, platform: first.platform, ...ref, at: new Date() },
  );
  const check = toCheck(parsed, fileName);
  if (!parsed.ok || !parsed.fileKind || (parsed.fileKind !== "csv" && parsed.fileKind !== "xlsx")) return { ok: false, check };
  const fileKind = parsed.fileKind;
  const summary: FileSummary = {
    rowCount: parsed.rowCount,
    warningCount: parsed.warningCount,
    countsByKind: parsed.countsByKind,
    preview: previewOf(parsed),
    warnings: parsed.problems.filter((p) => severityOf(p.kind) === "warning").slice(0, MAX_STORED_WARNINGS),
  };
  const clientSecretCipher = sealClientSecret(deps.ring, ref, input.form.clientSecret);
  // Read committed: assertMaySubmit locks the engagement row first (loadForChange), and every
  // submission, review and run request of the engagement does the same, so they queue on it.
  return database.transaction(
    function* (tx) {
      // Checked again on the rows as they are now (another submission or a run may have come in).
      const { eng, states } = yield* assertMaySubmit(tx, actor, input.engagementId);
      const now = new Date();
      const previous = yield* findCurrentSubmission(tx, eng.id);
      if (previous) yield* updateSubmission(tx, previous.id, { status: "replaced" });
      const replacedCompanies = yield* deleteRealItems(tx, eng.id);
      yield* insertSubmission(tx, {
        id: submissionId,
        engagementId: eng.id,
        status: "submitted",
        clientId: input.form.clientId,
        clientSecretCipher,
        clientSecretMask: maskSecret(input.form.clientSecret),
        contacts: input.form.contacts,
        fileName,
        fileKind,
        rowCount: summary.rowCount,
        warningCount: summary.warningCount,
        countsByKind: { ...summary.countsByKind } as Record<string, number>,
        preview: summary.preview.rows.map((r) => ({ sourceRef: r.sourceRef, ...(r.becomes ? { becomes: r.becomes } : {}), ...r.values })),
        warnings: summary.warnings,
        submittedById: actor.id,
        submittedAt: now,
        replacedItemCount: previous ? replacedCompanies : null,
      });
      const companies = yield* insertMigrationItemBatches(tx, items);
      yield* writeAudit(tx, {
        actor,
        action: "intake.submitted",
        targetId: submissionId,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        before: { submission: previous?.id ?? null, companies: replacedCompanies },
        after: { fileName, fileKind, companies, warnings: summary.warningCount },
        at: now,
      });
      // Step 1 starts with the first submission; a new file after acceptance reopens it (and the cascade).
      if (states[1] === "done") {
        yield* applyStepAction(tx, actor, { engagementId: eng.id, step: 1, action: "reopen", via: "flow", reason: "A new token file was submitted", at: now });
      }
      if (states[1] !== "in_progress") yield* applyStepAction(tx, actor, { engagementId: eng.id, step: 1, action: "start", via: "flow", at: now });
      const waiting = yield* refreshWaiting(tx, eng.id, now, eng);
      const notice: FlowNotice = {
        to: "support",
        subject: previous ? "A new token file to review" : "Details and token file to review",
        text: `${actor.name} submitted the OAuth app's details and the token file ${fileName}: ${companiesText(companies)}, ${warningsText(summary.warningCount)}.${previous ? ` It replaces the previous file (${companiesText(replacedCompanies)}).` : ""} Review it, then accept it or send it back.`,
      };
      yield* queueNotice(tx, deps.notify, { engagementId: eng.id, waiting, notice });
      return { ok: true as const, check, submissionId, companies, replacedCompanies, waiting, notice };
    },
    { isolation: "read committed" },
  );
}
