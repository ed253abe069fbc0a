/**
 * The customer sends a supplementary file: fresh tokens for companies that failed on theirs. It is
 * checked whole first (check-supplementary-file.ts); with a blocking problem nothing is stored and
 * the problems are returned. Otherwise, in one transaction, checked again on the companies as they
 * are now: a file still awaiting review is replaced (its tokens deleted), the file and one row per
 * company are stored — each company's credentials encrypted, bound to its row — and support is
 * told. The raw file is not kept; afterwards only masks are shown.
 *
 * The transaction is read committed with the engagement's row locked first (loadForChange), as
 * support's acceptance and send-back lock it: a file sent while support accepts the current one
 * either replaces it before the acceptance (which is then refused as no longer current) or comes
 * after it (and is checked on the companies the acceptance retried). The file's id and its rows'
 * sealed tokens are made before the transaction, which may run more than once on PostgreSQL.
 */
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { AppError } from "@/server/errors";
import { severityOf, type IntakeProblem } from "@/core/intake/problems";
import { accessTokenExpiry, maskCredentials, sealSupplementaryCredentials } from "@/server/items/item-credentials";
import type { Actor } from "@/core/accounts/actor";
import { MAX_STORED_WARNINGS } from "@/core/engagements/intake-schemas";
import type { SupplementaryCheck } from "@/core/migration/supplementary-schemas";
import { writeAudit } from "@/server/security/audit";
import type { KeyRing } from "@/server/security/secrets";
import { companiesText, plural, warningsText } from "@/core/words";
import { cleanFileName, sourceRefOf, type UploadedFile } from "@/server/engagements/intake/check-token-file";
import type { TokenRow } from "@/server/intake";
import { refreshWaiting, type WaitingChange } from "@/server/engagements/waiting/refresh-waiting";
import { queueNotice, type FlowNotice, type NotifyConfig } from "@/server/engagements/waiting/notify";
import { loadSupplementaryState, parseSupplementaryFile, supplementaryCheck } from "./check-supplementary-file";
import { submitRule } from "./rules";
import { candidateCompanies, findCurrentFile, insertFile, insertRows, purgeRows, updateFile, type NewRow } from "./supplementary-repository";

export type SubmitSupplementaryResult =
  | { ok: false; check: SupplementaryCheck }
  | {
      ok: true;
      check: SupplementaryCheck;
      fileId: string;
      /** Companies with fresh tokens in the file. */
      companies: number;
      /** Companies of the file awaiting review that this one replaced (0 when none). */
      replacedCompanies: number;
      waiting: WaitingChange | null;
      notice: FlowNotice;
    };

/** The engagement and its platform, the customer allowed to send a file now; `forChange`: with the engagement's row locked. */
function* assertMaySubmit(tx: Tx, actor: Actor, engagementId: string, options: { forChange: boolean }) {
  const loaded = yield* loadSupplementaryState(tx, actor, engagementId, options);
  const allowed = submitRule(loaded.state);
  if (!allowed.allowed) throw new AppError(actor.role === "customer" ? "PRECONDITION_FAILED" : "FORBIDDEN", allowed.reason ?? "Fresh tokens cannot be sent now.");
  return loaded;
}

/** Sends a supplementary file (see the module note). */
export async function submitSupplementaryFile(
  database: Database,
  deps: { ring: KeyRing; notify: NotifyConfig },
  actor: Actor,
  input: { engagementId: string; file: UploadedFile; now?: Date },
): Promise<SubmitSupplementaryResult> {
  const { first, companies } = await readSteps(database, function* (tx) {
    const first = yield* assertMaySubmit(tx, actor, input.engagementId, { forChange: false });
    return { first, companies: yield* candidateCompanies(tx, first.eng.id) };
  });
  const fileName = cleanFileName(input.file.name);
  const parsed = await parseSupplementaryFile(first.eng.platformKey, input.file, input.now ?? new Date());
  const checked = supplementaryCheck(parsed, fileName, companies);
  if (!checked.check.ok) return { ok: false, check: checked.check };

  // Sealed before the transaction: each row's tokens bound to its row of this file (a good file
  // matches every row, so the transaction's check finds each one here).
  const fileId = crypto.randomUUID();
  const sealed = new Map<TokenRow, Omit<NewRow, "itemId" | "position" | "sourceRef">>(
    checked.matched.map(({ row }) => {
      const id = crypto.randomUUID();
      return [
        row,
        {
          id,
          credentialsCipher: sealSupplementaryCredentials(deps.ring, { engagementId: first.eng.id, fileId, rowId: id }, row.credentials),
          credentialsMask: maskCredentials(first.platform, row.credentials),
          accessTokenExpiresAt: accessTokenExpiry(row.credentials),
        },
      ];
    }),
  );
  const now = new Date();

  return database.transaction(function* (tx): Steps<SubmitSupplementaryResult> {
    // Checked again on the companies as they are now (a reconnection or a retry may have come in).
    const { eng } = yield* assertMaySubmit(tx, actor, input.engagementId, { forChange: true });
    const { check, matched } = supplementaryCheck(parsed, fileName, yield* candidateCompanies(tx, eng.id));
    if (!check.ok) return { ok: false, check };
    const previous = yield* findCurrentFile(tx, eng.id);
    const replaces = previous?.status === "submitted" ? previous : null;
    if (replaces) {
      yield* updateFile(tx, replaces.id, { status: "replaced" });
      yield* purgeRows(tx, replaces.id, now);
    }
    const warnings: IntakeProblem[] = check.problems.filter((p) => severityOf(p.kind) === "warning").slice(0, MAX_STORED_WARNINGS);
    yield* insertFile(tx, { id: fileId, engagementId: eng.id, status: "submitted", fileName, rowCount: matched.length, warnings, submittedById: actor.id, submittedAt: now });
    yield* insertRows(
      tx,
      fileId,
      matched.map(({ row, company }, position) => {
        const made = sealed.get(row);
        if (!made) throw new Error("A row of the file matched now was not matched before the transaction.");
        return { ...made, itemId: company.id, position, sourceRef: sourceRefOf(row) };
      }),
    );
    yield* writeAudit(tx, {
      actor,
      action: "supplementary.submitted",
      targetId: fileId,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      before: { replaced: replaces?.id ?? null, companies: replaces?.rowCount ?? 0 },
      after: { fileName, companies: matched.length, warnings: check.warningCount },
      at: now,
    });
    const waiting = yield* refreshWaiting(tx, eng.id, now, eng);
    const notice: FlowNotice = {
      to: "support",
      subject: replaces ? "New fresh tokens to review" : "Fresh tokens to review",
      text: `${actor.name} sent fresh tokens for ${companiesText(matched.length)} that failed on ${plural(matched.length, { one: "its", other: "their" })} tokens (${fileName}, ${warningsText(check.warningCount)}).${replaces ? ` They replace the file awaiting review (${companiesText(replaces.rowCount)}).` : ""} Review them, then accept them (those companies are retried in the bulk migration) or send them back.`,
    };
    yield* queueNotice(tx, deps.notify, { engagementId: eng.id, waiting, notice });
    return { ok: true, check, fileId, companies: matched.length, replacedCompanies: replaces?.rowCount ?? 0, waiting, notice };
  }, { isolation: "read committed" });
}
