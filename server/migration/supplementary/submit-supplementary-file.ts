/**
 * The customer sends a supplementary file: fresh tokens for companies that failed on theirs. It is
 * checked whole first (check-supplementary-file.ts); with a blocking problem nothing is stored and
 * the problems are returned. Otherwise, in one transaction, checked again on the companies as they
 * are now: a file still awaiting review is replaced (its tokens deleted), the file and one row per
 * company are stored — each company's credentials encrypted, bound to its row — and support is
 * told. The raw file is not kept; afterwards only masks are shown.
 */
import { runSync } from "@/db/database";
import type { Db } from "@/db/client";
import { AppError } from "@/server/errors";
import { severityOf, type IntakeProblem } from "@/core/intake/problems";
import { accessTokenExpiry, maskCredentials, sealSupplementaryCredentials } from "@/server/items/item-credentials";
import type { Actor } from "@/core/accounts/actor";
import { MAX_STORED_WARNINGS } from "@/core/engagements/intake-schemas";
import type { SupplementaryCheck } from "@/core/migration/supplementary-schemas";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
import type { KeyRing } from "@/server/security/secrets";
import { companiesText, plural, warningsText } from "@/core/words";
import { cleanFileName, sourceRefOf, type UploadedFile } from "@/server/engagements/intake/check-token-file";
import { refreshWaiting, type WaitingChange } from "@/server/engagements/waiting/refresh-waiting";
import type { FlowNotice } from "@/server/engagements/waiting/notify";
import { loadSupplementaryState, parseSupplementaryFile, supplementaryCheck } from "./check-supplementary-file";
import { submitRule } from "./rules";
import { candidateCompanies, findCurrentFile, insertFile, insertRows, purgeRows, updateFile } from "./supplementary-repository";

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

function assertMaySubmit(tx: DbOrTx, actor: Actor, engagementId: string) {
  const loaded = loadSupplementaryState(tx, actor, engagementId);
  const allowed = submitRule(loaded.state);
  if (!allowed.allowed) throw new AppError(actor.role === "customer" ? "PRECONDITION_FAILED" : "FORBIDDEN", allowed.reason ?? "Fresh tokens cannot be sent now.");
  return loaded;
}

/** Sends a supplementary file (see the module note). */
export async function submitSupplementaryFile(
  db: Db,
  deps: { ring: KeyRing },
  actor: Actor,
  input: { engagementId: string; file: UploadedFile; now?: Date },
): Promise<SubmitSupplementaryResult> {
  const first = assertMaySubmit(db, actor, input.engagementId);
  const fileName = cleanFileName(input.file.name);
  const parsed = await parseSupplementaryFile(first.eng.platformKey, input.file, input.now ?? new Date());
  const checked = supplementaryCheck(parsed, fileName, runSync(candidateCompanies(db, first.eng.id)));
  if (!checked.check.ok) return { ok: false, check: checked.check };

  return db.transaction((tx): SubmitSupplementaryResult => {
    // Checked again on the companies as they are now (a reconnection or a retry may have come in).
    const { eng, platform } = assertMaySubmit(tx, actor, input.engagementId);
    const { check, matched } = supplementaryCheck(parsed, fileName, runSync(candidateCompanies(tx, eng.id)));
    if (!check.ok) return { ok: false, check };
    const now = new Date();
    const previous = runSync(findCurrentFile(tx, eng.id));
    const replaces = previous?.status === "submitted" ? previous : null;
    if (replaces) {
      runSync(updateFile(tx, replaces.id, { status: "replaced" }));
      runSync(purgeRows(tx, replaces.id, now));
    }
    const fileId = crypto.randomUUID();
    const warnings: IntakeProblem[] = check.problems.filter((p) => severityOf(p.kind) === "warning").slice(0, MAX_STORED_WARNINGS);
    runSync(insertFile(tx, { id: fileId, engagementId: eng.id, status: "submitted", fileName, rowCount: matched.length, warnings, submittedById: actor.id, submittedAt: now }));
    runSync(insertRows(
      tx,
      fileId,
      matched.map(({ row, company }, position) => {
        const id = crypto.randomUUID();
        return {
          id,
          itemId: company.id,
          position,
          sourceRef: sourceRefOf(row),
          credentialsCipher: sealSupplementaryCredentials(deps.ring, { engagementId: eng.id, fileId, rowId: id }, row.credentials),
          credentialsMask: maskCredentials(platform, row.credentials),
          accessTokenExpiresAt: accessTokenExpiry(row.credentials),
        };
      }),
    ));
    recordAudit(tx, {
      actor,
      action: "supplementary.submitted",
      targetId: fileId,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      before: { replaced: replaces?.id ?? null, companies: replaces?.rowCount ?? 0 },
      after: { fileName, companies: matched.length, warnings: check.warningCount },
      at: now,
    });
    const waiting = runSync(refreshWaiting(tx, eng.id, now, eng));
    const notice: FlowNotice = {
      to: "support",
      subject: replaces ? "New fresh tokens to review" : "Fresh tokens to review",
      text: `${actor.name} sent fresh tokens for ${companiesText(matched.length)} that failed on ${plural(matched.length, { one: "its", other: "their" })} tokens (${fileName}, ${warningsText(check.warningCount)}).${replaces ? ` They replace the file awaiting review (${companiesText(replaces.rowCount)}).` : ""} Review them, then accept them (those companies are retried in the bulk migration) or send them back.`,
    };
    return { ok: true, check, fileId, companies: matched.length, replacedCompanies: replaces?.rowCount ?? 0, waiting, notice };
  });
}
