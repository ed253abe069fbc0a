/**
 * Fresh tokens from a supplementary file are purged once used. When support accepts the file, each
 * company's fresh credentials are sealed again into its migration item (`supplementary_file_id`
 * set) and the company is retried; once that retry reaches a final state — verified, or refused
 * again, failed or set aside — the tokens have done what they could: the item's credentials and
 * the row's copy are deleted (overwritten in the file: the database runs with secure_delete),
 * masks kept, and the purge is audited. This happens whether or not the engagement's other
 * credentials were purged already (fresh tokens may come during the hypercare watch, after the
 * handover's purge).
 *
 * Called by whatever moves an item into a final state (the engine storing a call's result, a
 * company failed alone, support setting it aside), inside that change's transaction.
 */
import { and, eq, isNotNull } from "drizzle-orm";
import { engagements, migrationItems, supplementaryRows } from "@/db/schema";
import { q, type Database, type Steps, type Tx } from "@/db/database";
import { writeAudit } from "@/server/security/audit";
import { checkpointAfterSecretOverwrite } from "@/db/checkpoint";

/**
 * Deletes an item's fresh tokens if it was retried with some and still holds them (its own sealed
 * copy and its supplementary rows'); returns whether anything was deleted. Idempotent. A step of
 * the transaction that moves the item into its final state.
 */
export function* purgeUsedFreshTokens(tx: Tx, params: { itemId: string; at: Date }): Steps<boolean> {
  const item = yield* q.get(
    tx
      .select({
        id: migrationItems.id,
        name: migrationItems.name,
        state: migrationItems.state,
        engagementId: migrationItems.engagementId,
        organizationId: engagements.organizationId,
        fileId: migrationItems.supplementaryFileId,
        cipher: migrationItems.credentialsCipher,
      })
      .from(migrationItems)
      .innerJoin(engagements, eq(engagements.id, migrationItems.engagementId))
      .where(eq(migrationItems.id, params.itemId)),
  );
  if (!item?.fileId) return false;
  const { changes: rows } = yield* q.run(
    tx
      .update(supplementaryRows)
      .set({ credentialsCipher: null, credentialsPurgedAt: params.at })
      .where(and(eq(supplementaryRows.itemId, item.id), isNotNull(supplementaryRows.credentialsCipher))),
  );
  if (item.cipher) {
    yield* q.run(tx.update(migrationItems).set({ credentialsCipher: null, credentialsPurgedAt: params.at }).where(eq(migrationItems.id, item.id)));
  }
  if (!item.cipher && !rows) return false;
  yield* writeAudit(tx, {
    actor: null,
    action: "supplementary.tokens_purged",
    targetId: item.id,
    engagementId: item.engagementId,
    organizationId: item.organizationId,
    after: { company: item.name, state: item.state },
    at: params.at,
  });
  return true;
}

/** After a purge has committed: clears the write-ahead log's copies of the deleted tokens (see db/checkpoint.ts). */
export function checkpointAfterFreshTokenPurge(database: Database): void {
  checkpointAfterSecretOverwrite(database);
}
