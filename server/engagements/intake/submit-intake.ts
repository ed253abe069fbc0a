/**
 * A customer submits their OAuth app's details and the token file (step 1). In one transaction:
 * the previous submission (if any) is marked replaced, the submission is stored, then one migration
 * item per row — the client secret and every credential encrypted with the key ring, bound to their
 * row — then the previous submission's companies are deleted, and step 1 starts (a new file after
 * acceptance reopens step 1, and the cascade applies). The file is checked whole before anything is
 * kept: with a blocking problem nothing is stored (a quote-free CSV, read while the transaction
 * runs, rolls it back) and the problems are returned. The raw file is not kept. Refused once the
 * migration has started.
 */
import os from "node:os";
import { coresTheDatabaseTakes, readSteps, type Tx } from "@/db/database";
import type { Database, Steps } from "@/db/database";
import { AppError } from "@/server/errors";
import { parseTokenFile, readTokenFileInChunks, type TokenFileResult, type TokenRow } from "@/server/intake";
import { severityOf } from "@/core/intake/problems";
import { ITEMS_PER_BATCH, itemSealer, loadMigrationItems, type SealedItem, type SealParams } from "@/server/items/insert-items";
import { startSealingThread, type SealingThread } from "@/server/security/sealing-thread";
import type { RowProducer } from "@/db/insert-many";
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
import { deleteRealItems, findCurrentSubmission, insertSubmission, migrationHasStarted, recordSubmissionFile, updateSubmission, type SubmissionFile } from "./intake-repository";
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

/**
 * A file's companies for the transaction to store (loadMany), and the file's reading once they
 * are: a CSV without quotes is read while the transaction runs, each accepted batch sealed (its
 * ids made, its credentials encrypted) and stored before the next is read, so its companies are
 * never all held at once and PostgreSQL stores one batch while the next is made. Any other file
 * (a workbook, a CSV with quotes) is read and sealed before the transaction, as its readers cannot
 * stop between rows; a file refused then is refused without a transaction. Either way a large
 * file's credentials are encrypted on a sealing thread while the file is read (itemSealer).
 */
export type FileCompanies = { fileKind: "csv" | "xlsx"; produce: RowProducer<SealedItem>; read(): TokenFileResult };

/** Files from this size on may have their credentials encrypted on a thread of their own (a 1 MB file holds about 5,000 companies). */
const SEALING_THREAD_FROM_BYTES = 1 << 20;

/**
 * A sealing thread for a large file, when the machine has a core for it besides this thread and the
 * database's own (coresTheDatabaseTakes): with SQLite on two cores it takes a 100,000-row file from
 * about 3.0 s to 2.6 s; beside a PostgreSQL server on the same two cores it would only take the
 * server's core (docs/benchmarks.md, intake).
 */
function sealingThreadFor(database: Database, ring: KeyRing, fileBytes: number): SealingThread | null {
  if (fileBytes < SEALING_THREAD_FROM_BYTES) return null;
  return os.availableParallelism() - 1 - coresTheDatabaseTakes(database) >= 1 ? startSealingThread(ring) : null;
}

/**
 * The file's companies (see FileCompanies), sealed for `seal`'s engagement and submission, on
 * `thread` when there is one; or the file's refusal when it was read before the transaction.
 */
export async function companiesOf(
  file: { bytes: Uint8Array; fileName: string; platformKey: PlatformKey; now: Date },
  seal: SealParams,
  thread: SealingThread | null,
): Promise<FileCompanies | { refused: TokenFileResult }> {
  let sealer = itemSealer(seal, thread);
  let store: (items: readonly SealedItem[]) => void = () => undefined;
  let read: TokenFileResult | undefined;
  const batches = { size: ITEMS_PER_BATCH, take: (rows: TokenRow[], offset: number) => sealer.add(rows, offset).forEach(store) };
  const open = () => readTokenFileInChunks({ ...file, batches });
  let chunks = open();
  if (chunks) {
    return {
      fileKind: "csv",
      produce: function* (storeBatch) {
        store = storeBatch;
        // Run again from the start if PostgreSQL runs the transaction again: a fresh reading, fresh ids.
        const reading = chunks ?? open()!;
        if (!chunks) {
          thread?.discard();
          sealer = itemSealer(seal, thread);
        }
        chunks = null;
        read = yield* reading;
        sealer.flush().forEach(store);
      },
      read: () => read!,
    };
  }
  const items: SealedItem[][] = [];
  store = (batch) => items.push([...batch]);
  const parsed = await parseTokenFile({ ...file, batches });
  sealer.flush().forEach(store);
  if (!parsed.ok || (parsed.fileKind !== "csv" && parsed.fileKind !== "xlsx")) return { refused: parsed };
  return {
    fileKind: parsed.fileKind,
    produce: function* (storeBatch) {
      for (const batch of items) {
        storeBatch(batch);
        yield;
      }
    },
    read: () => parsed,
  };
}

/** A file found wrong while the transaction read it: thrown to roll the transaction back, answered as a refusal. */
class FileRefused extends Error {
  constructor(readonly check: TokenFileCheck) {
    super("The token file has blocking problems.");
  }
}

/** What a submission records of its file (the first rows as the preview, the warnings to review). */
function fileRecord(parsed: TokenFileResult, replacedItemCount: number | null): SubmissionFile {
  return {
    rowCount: parsed.rowCount,
    warningCount: parsed.warningCount,
    countsByKind: { ...parsed.countsByKind } as Record<string, number>,
    preview: previewOf(parsed).rows.map((r) => ({ sourceRef: r.sourceRef, ...(r.becomes ? { becomes: r.becomes } : {}), ...r.values })),
    warnings: parsed.problems.filter((p) => severityOf(p.kind) === "warning").slice(0, MAX_STORED_WARNINGS),
    replacedItemCount,
  };
}

/** Step 1 starts with the first submission; a new file after acceptance reopens it (and the cascade). */
function* startStepOne(tx: Tx, actor: Actor, engagementId: string, states: StepStates, now: Date): Steps<void> {
  if (states[1] === "done") yield* applyStepAction(tx, actor, { engagementId, step: 1, action: "reopen", via: "flow", reason: "A new token file was submitted", at: now });
  if (states[1] !== "in_progress") yield* applyStepAction(tx, actor, { engagementId, step: 1, action: "start", via: "flow", at: now });
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
  // Made outside the transaction body, which may run more than once on PostgreSQL: the ids, and
  // every secret encrypted for its row (the submission's client secret here, each company's as
  // its batch is read: see companiesOf).
  const submissionId = crypto.randomUUID();
  const ref = { engagementId: first.eng.id, submissionId };
  const file = { bytes: input.file.bytes, fileName, platformKey: first.platform.key as PlatformKey, now: input.now ?? new Date() };
  const thread = sealingThreadFor(database, deps.ring, input.file.bytes.byteLength);
  try {
    return await storeSubmission(database, deps, actor, input, { ...ref, fileName, companies: await companiesOf(file, { ring: deps.ring, platform: first.platform, ...ref, at: new Date() }, thread) });
  } finally {
    thread?.close();
  }
}

/** The transaction of submitIntake (see the module note), or the refusal of a file found wrong before or in it. */
async function storeSubmission(
  database: Database,
  deps: { ring: KeyRing; notify: NotifyConfig },
  actor: Actor,
  input: { engagementId: string; form: IntakeForm },
  params: { engagementId: string; submissionId: string; fileName: string; companies: FileCompanies | { refused: TokenFileResult } },
): Promise<SubmitIntakeResult> {
  const { submissionId, fileName, companies } = params;
  if ("refused" in companies) return { ok: false, check: toCheck(companies.refused, fileName) };
  const clientSecretCipher = sealClientSecret(deps.ring, params, input.form.clientSecret);
  try {
    // Read committed: assertMaySubmit locks the engagement row first (loadForChange), and every
    // submission, review and run request of the engagement does the same, so they queue on it.
    return await database.transaction(
      function* (tx) {
        // Checked again on the rows as they are now (another submission or a run may have come in).
        const { eng, states } = yield* assertMaySubmit(tx, actor, input.engagementId);
        const now = new Date();
        const previous = yield* findCurrentSubmission(tx, eng.id);
        if (previous) yield* updateSubmission(tx, previous.id, { status: "replaced" });
        // The submission first (its companies point to it), what its file held once it is read.
        yield* insertSubmission(tx, {
          id: submissionId,
          engagementId: eng.id,
          status: "submitted",
          clientId: input.form.clientId,
          clientSecretCipher,
          clientSecretMask: maskSecret(input.form.clientSecret),
          contacts: input.form.contacts,
          fileName,
          fileKind: companies.fileKind,
          rowCount: 0,
          warningCount: 0,
          countsByKind: {},
          preview: [],
          warnings: [],
          submittedById: actor.id,
          submittedAt: now,
        });
        const stored = yield* loadMigrationItems(tx, companies.produce);
        const parsed = companies.read();
        const check = toCheck(parsed, fileName);
        if (!parsed.ok) throw new FileRefused(check);
        const replacedCompanies = yield* deleteRealItems(tx, eng.id, submissionId);
        yield* recordSubmissionFile(tx, submissionId, fileRecord(parsed, previous ? replacedCompanies : null));
        yield* writeAudit(tx, {
          actor,
          action: "intake.submitted",
          targetId: submissionId,
          engagementId: eng.id,
          organizationId: eng.organizationId,
          before: { submission: previous?.id ?? null, companies: replacedCompanies },
          after: { fileName, fileKind: companies.fileKind, companies: stored, warnings: parsed.warningCount },
          at: now,
        });
        yield* startStepOne(tx, actor, eng.id, states, now);
        const waiting = yield* refreshWaiting(tx, eng.id, now, eng);
        const notice: FlowNotice = {
          to: "support",
          subject: previous ? "A new token file to review" : "Details and token file to review",
          text: `${actor.name} submitted the OAuth app's details and the token file ${fileName}: ${companiesText(stored)}, ${warningsText(parsed.warningCount)}.${previous ? ` It replaces the previous file (${companiesText(replacedCompanies)}).` : ""} Review it, then accept it or send it back.`,
        };
        yield* queueNotice(tx, deps.notify, { engagementId: eng.id, waiting, notice });
        return { ok: true as const, check, submissionId, companies: stored, replacedCompanies, waiting, notice };
      },
      { isolation: "read committed" },
    );
  } catch (error) {
    if (error instanceof FileRefused) return { ok: false, check: error.check };
    throw error;
  }
}
