/**
 * Support accepts a supplementary file: each company it names that still waits for fresh tokens
 * gets them — decrypted from the file's row (audited) and sealed again for the company's own
 * migration item, the file named on the item — and goes back into the engagement's bulk run at
 * `connection_created`, so the run authorizes its connection again, syncs and verifies it. A
 * company that no longer waits (reconnected, retried or set aside meanwhile) is skipped and its
 * row's tokens deleted. The file named must be the current one awaiting review: support accepts
 * exactly what they reviewed.
 *
 * One read-committed transaction: the engagement's row is locked first (loadForChange), and every
 * other change of the engagement's files — a newer file, a send-back, a second acceptance, the
 * handover's purge — locks it too, so the file is decided on as the previous change left it; the
 * companies' rows are locked as they are read (rowsToApply), so each is given its tokens and
 * retried once, and only while it still waits for them.
 */
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { isStaff } from "@/core/accounts/roles";
import { writeAudit } from "@/server/security/audit";
import type { KeyRing } from "@/server/security/secrets";
import { openSupplementaryCredentials, sealItemCredentials } from "@/server/items/item-credentials";
import { companiesText, plural } from "@/core/words";
import { refreshWaiting, type WaitingChange } from "@/server/engagements/waiting/refresh-waiting";
import { withNotice, type FlowNotice, type NotifyConfig } from "@/server/engagements/waiting/notify";
import type { EngagementRow } from "@/server/engagements/engagement-repository";
import { requeueIntoBulkRun } from "../bulk/bulk-repository";
import { loadSupplementaryState } from "./check-supplementary-file";
import { acceptRule, waitsForFreshTokens, type sendBackRule } from "./rules";
import { findCurrentFile, giveFreshCredentials, purgeRows, rowsToApply, updateFile, type SupplementaryFileRow } from "./supplementary-repository";

/**
 * The file named, checked to be the current one and reviewable by this rule now; `forChange`: with
 * the engagement's row locked (see loadSupplementaryState).
 */
export function* reviewedFile(
  tx: Tx,
  actor: Actor,
  input: { engagementId: string; fileId: string },
  rule: typeof acceptRule | typeof sendBackRule,
  options: { forChange: boolean },
): Steps<{ eng: EngagementRow; current: SupplementaryFileRow }> {
  const { eng, state } = yield* loadSupplementaryState(tx, actor, input.engagementId, options);
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Support reviews files of fresh tokens.");
  const current = yield* findCurrentFile(tx, eng.id);
  if (!current || current.id !== input.fileId) {
    throw new AppError("PRECONDITION_FAILED", "That file is no longer the current one: the customer has sent a newer file, or none. Review the current one.");
  }
  const allowed = rule(state);
  if (!allowed.allowed) throw new AppError("PRECONDITION_FAILED", allowed.reason ?? "Not allowed now.");
  return { eng, current };
}

type Resealed = { from: string } & ({ cipher: string } | { error: unknown });

/**
 * Each row's fresh tokens opened and sealed again for its company's item, by row id, with the
 * ciphertext they came from (a row that does not decrypt keeps its error, thrown only if the row is used).
 */
function resealRows(ring: KeyRing, engagementId: string, fileId: string, rows: readonly { id: string; itemId: string; cipher: string | null }[]): Map<string, Resealed> {
  const resealed = new Map<string, Resealed>();
  for (const row of rows) {
    if (!row.cipher) continue;
    try {
      const credentials = openSupplementaryCredentials(ring, { engagementId, fileId, rowId: row.id }, row.cipher);
      resealed.set(row.id, { from: row.cipher, cipher: sealItemCredentials(ring, { engagementId, itemId: row.itemId }, credentials) });
    } catch (error) {
      resealed.set(row.id, { from: row.cipher, error });
    }
  }
  return resealed;
}

/** Accepts the current file: its companies get their fresh tokens and are retried in the bulk run. */
export async function acceptSupplementaryFile(
  database: Database,
  deps: { ring: KeyRing; notify: NotifyConfig },
  actor: Actor,
  input: { engagementId: string; fileId: string },
): Promise<{ companies: number; skipped: number; waiting: WaitingChange | null; notice: FlowNotice }> {
  // Refused at once without waiting for the engagement's row, then decided again with it locked.
  const reviewed = await readSteps(database, (tx) => reviewedFile(tx, actor, input, acceptRule, { forChange: false }));
  // Sealed again before the transaction (encryption is random and slow; a body PostgreSQL may run
  // again must not redo it): each row's fresh tokens for its company's item.
  const resealed = resealRows(deps.ring, reviewed.eng.id, reviewed.current.id, await readSteps(database, (tx) => rowsToApply(tx, reviewed.current.id)));
  const now = new Date();
  return database.transaction(function* (tx) {
    const { eng, current } = yield* reviewedFile(tx, actor, input, acceptRule, { forChange: true });
    const rows = yield* rowsToApply(tx, current.id);
    const usable = rows.filter((r) => r.cipher && waitsForFreshTokens(r));
    if (!usable.length) {
      throw new AppError(
        "PRECONDITION_FAILED",
        `None of the companies in ${current.fileName} waits for fresh tokens any more (each was reconnected, retried or set aside since). Send the file back instead.`,
      );
    }
    for (const row of usable) {
      const made = resealed.get(row.id);
      if (!made || made.from !== row.cipher) throw new Error("A row of the file changed between its sealing and the transaction.");
      if ("error" in made) throw made.error;
      yield* writeAudit(tx, {
        actor,
        action: "migration_item.credentials_decrypted",
        targetId: row.itemId,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        after: { purpose: `give the company the fresh tokens of ${current.fileName} for its retry`, company: row.name, rehearsal: false },
        at: now,
      });
      yield* giveFreshCredentials(tx, {
        itemId: row.itemId,
        cipher: made.cipher,
        mask: row.mask,
        accessTokenExpiresAt: row.accessTokenExpiresAt,
        fileId: current.id,
        now,
      });
    }
    const usableIds = new Set(usable.map((r) => r.id));
    const skipped = rows.filter((r) => !usableIds.has(r.id));
    yield* purgeRows(
      tx,
      current.id,
      now,
      skipped.map((r) => r.id),
    );
    const run = yield* requeueIntoBulkRun(tx, { engagementId: eng.id, itemIds: usable.map((r) => r.itemId), state: "connection_created", now });
    if (!run) throw new AppError("PRECONDITION_FAILED", "The engagement has no bulk run to retry the companies in.");
    yield* updateFile(tx, current.id, { status: "accepted", decidedById: actor.id, decidedAt: now });
    yield* writeAudit(tx, {
      actor,
      action: "supplementary.accepted",
      targetId: current.id,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      after: { fileName: current.fileName, companies: usable.length, skipped: skipped.length },
      at: now,
    });
    const skippedText = skipped.length
      ? ` ${companiesText(skipped.length)} no longer waited for tokens (${skipped
          .slice(0, 5)
          .map((r) => r.name)
          .join(", ")}${skipped.length > 5 ? ", …" : ""}) and ${plural(skipped.length, { one: "was", other: "were" })} skipped.`
      : "";
    return yield* withNotice(tx, deps.notify, eng.id, {
      companies: usable.length,
      skipped: skipped.length,
      waiting: yield* refreshWaiting(tx, eng.id, now, eng),
      notice: {
        to: "customer",
        subject: "Your fresh tokens were accepted",
        text: `${actor.name} accepted the fresh tokens of ${current.fileName}: ${companiesText(usable.length)} ${plural(usable.length, { one: "is", other: "are" })} being migrated again with them.${skippedText} Ferry deletes the fresh tokens once each company's retry has ended; you can follow it in the portal.`,
      },
    });
  }, { isolation: "read committed" });
}
