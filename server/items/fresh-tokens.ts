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
import type { Db } from "@/db/client";
import { recordAudit, type DbOrTx } from "@/server/security/audit";

/**
 * Deletes an item's fresh tokens if it was retried with some and still holds them (its own sealed
 * copy and its supplementary rows'); returns whether anything was deleted. Idempotent.
 */
export function purgeUsedFreshTokens(tx: DbOrTx, params: { itemId: string; at: Date }): boolean {
  const item = tx
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
    .where(eq(migrationItems.id, params.itemId))
    .get();
  if (!item?.fileId) return false;
  const rows = tx
    .update(supplementaryRows)
    .set({ credentialsCipher: null, credentialsPurgedAt: params.at })
    .where(and(eq(supplementaryRows.itemId, item.id), isNotNull(supplementaryRows.credentialsCipher)))
    .returning({ id: supplementaryRows.id })
    .all().length;
  if (item.cipher) {
    tx.update(migrationItems).set({ credentialsCipher: null, credentialsPurgedAt: params.at }).where(eq(migrationItems.id, item.id)).run();
  }
  if (!item.cipher && !rows) return false;
  recordAudit(tx, {
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

/**
 * After a purge has committed: copies the write-ahead log into the database file (where
 * secure_delete has zeroed the deleted bytes) and truncates it, so no copy of the old page stays in
 * the log. Best effort while other connections read.
 */
export function checkpointAfterFreshTokenPurge(db: Db): void {
  db.$client.pragma("wal_checkpoint(TRUNCATE)");
}
