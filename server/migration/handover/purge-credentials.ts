/**
 * Purging an engagement's credentials: every item's credential ciphertext, every submission's
 * OAuth client secret and the fresh tokens of its supplementary files set to NULL — and, with SQLite's secure_delete on (db/client.ts), overwritten
 * in the database file — with the masks kept for the screens. It happens when the customer
 * acknowledges the handover report, and automatically a set time after the report was produced
 * (and not acknowledged) or after the engagement was cancelled: `purgeDueCredentials`, which the
 * worker calls periodically.
 */
import type { Db } from "@/db/client";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
import type { Actor } from "@/core/accounts/actor";
import { engagementsDueForPurge, markHandoverPurged, purgeClientSecrets, purgeItemCredentials, purgeRehearsalKeys, purgeSupplementaryRows } from "./handover-repository";
import { purgeCutoff } from "./purge-schedule";
import type { PurgeTrigger } from "@/core/migration/handover-states";

/**
 * What a purge deleted: real and simulated companies' credentials, client secrets, rehearsals'
 * sandbox keys, and supplementary files' fresh tokens not yet used.
 */
export type PurgeCounts = { items: number; rehearsalItems: number; submissions: number; rehearsalKeys: number; supplementaryRows: number };

/**
 * Deletes the engagement's credentials inside the caller's transaction, records when on the
 * handover (if any), and audits it when anything was deleted. Idempotent: a second call deletes
 * nothing and records nothing.
 */
export function purgeEngagementCredentials(
  tx: DbOrTx,
  params: { actor: Actor | null; engagementId: string; organizationId: string; trigger: PurgeTrigger; at: Date; afterDays?: number },
): PurgeCounts {
  const { items, rehearsalItems } = purgeItemCredentials(tx, params.engagementId, params.at);
  const submissions = purgeClientSecrets(tx, params.engagementId, params.at);
  const rehearsalKeys = purgeRehearsalKeys(tx, params.engagementId);
  const supplementaryRows = purgeSupplementaryRows(tx, params.engagementId, params.at);
  markHandoverPurged(tx, params.engagementId, { at: params.at, trigger: params.trigger });
  if (items + rehearsalItems + submissions + rehearsalKeys + supplementaryRows > 0) {
    recordAudit(tx, {
      actor: params.actor,
      action: "credentials.purged",
      targetId: params.engagementId,
      engagementId: params.engagementId,
      organizationId: params.organizationId,
      after: {
        trigger: params.trigger,
        items,
        rehearsalItems,
        submissions,
        rehearsalKeys,
        ...(supplementaryRows ? { supplementaryRows } : {}),
        ...(params.afterDays !== undefined ? { afterDays: params.afterDays } : {}),
      },
      at: params.at,
    });
  }
  return { items, rehearsalItems, submissions, rehearsalKeys, supplementaryRows };
}

/**
 * Clears the copies of purged pages the write-ahead log still holds: a checkpoint that copies the
 * log into the database file (where secure_delete has zeroed the deleted bytes) and truncates it.
 * Best effort: while another connection reads, SQLite checkpoints what it can and the rest is
 * overwritten as the log is reused.
 */
export function checkpointAfterPurge(db: Db): void {
  db.$client.pragma("wal_checkpoint(TRUNCATE)");
}

/**
 * The automatic purge: deletes the credentials of every engagement whose handover report was
 * produced, or which was cancelled, `afterDays` days or more before `now`, and still holds any.
 * Each engagement in its own transaction, checked again inside it; audited with the system as the
 * actor. Idempotent: a second run finds nothing. Returns how many engagements and items it purged.
 */
export function purgeDueCredentials(db: Db, options: { now: Date; afterDays: number }): { engagements: number } & PurgeCounts {
  const cutoff = purgeCutoff(options.now, options.afterDays);
  const total = { engagements: 0, items: 0, rehearsalItems: 0, submissions: 0, rehearsalKeys: 0, supplementaryRows: 0 };
  for (const due of engagementsDueForPurge(db, cutoff)) {
    const counts = db.transaction((tx) => {
      const still = engagementsDueForPurge(tx, cutoff, due.engagementId)[0];
      if (!still) return null;
      return purgeEngagementCredentials(tx, { actor: null, ...still, at: options.now, afterDays: options.afterDays });
    });
    if (!counts) continue;
    total.engagements += 1;
    total.items += counts.items;
    total.rehearsalItems += counts.rehearsalItems;
    total.submissions += counts.submissions;
    total.rehearsalKeys += counts.rehearsalKeys;
    total.supplementaryRows += counts.supplementaryRows;
  }
  if (total.engagements) checkpointAfterPurge(db);
  return total;
}
