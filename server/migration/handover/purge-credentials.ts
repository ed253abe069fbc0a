/**
 * Purging an engagement's credentials: every item's credential ciphertext, every submission's
 * OAuth client secret and the fresh tokens of its supplementary files set to NULL — and, with SQLite's secure_delete on (db/client.ts), overwritten
 * in the database file (on PostgreSQL the old row versions go at VACUUM: see docs/migration-engine.md, "The handover and the token purge") — with
 * the masks kept for the screens. It happens when the customer
 * acknowledges the handover report, and automatically a set time after the report was produced
 * (and not acknowledged) or after the engagement was cancelled: `purgeDueCredentials`, which the
 * worker calls periodically.
 */
import type { Database, Steps, Tx } from "@/db/database";
import { writeAudit } from "@/server/security/audit";
import { checkpointAfterSecretOverwrite } from "@/db/checkpoint";
import type { Actor } from "@/core/accounts/actor";
import { engagementsDueForPurge, lockEngagementForPurge, markHandoverPurged, purgeClientSecrets, purgeItemCredentials, purgeRehearsalKeys, purgeSupplementaryRows } from "./handover-repository";
import { purgeCutoff } from "./purge-schedule";
import type { PurgeTrigger } from "@/core/migration/handover-states";

/**
 * What a purge deleted: real and simulated companies' credentials, client secrets, rehearsals'
 * sandbox keys, and supplementary files' fresh tokens not yet used.
 */
export type PurgeCounts = { items: number; rehearsalItems: number; submissions: number; rehearsalKeys: number; supplementaryRows: number };

/**
 * Deletes the engagement's credentials inside the caller's transaction, records when on the
 * handover (if any), and audits it when anything was deleted (a transaction step). Idempotent: a
 * second call deletes nothing and records nothing — also when it runs at the same time as the
 * first on PostgreSQL, at read committed: each write takes only rows still holding a secret, so the
 * second waits on the first's row locks and then finds them purged.
 */
export function* purgeEngagementCredentials(
  tx: Tx,
  params: { actor: Actor | null; engagementId: string; organizationId: string; trigger: PurgeTrigger; at: Date; afterDays?: number },
): Steps<PurgeCounts> {
  const { items, rehearsalItems } = yield* purgeItemCredentials(tx, params.engagementId, params.at);
  const submissions = yield* purgeClientSecrets(tx, params.engagementId, params.at);
  const rehearsalKeys = yield* purgeRehearsalKeys(tx, params.engagementId);
  const supplementaryRows = yield* purgeSupplementaryRows(tx, params.engagementId, params.at);
  yield* markHandoverPurged(tx, params.engagementId, { at: params.at, trigger: params.trigger });
  if (items + rehearsalItems + submissions + rehearsalKeys + supplementaryRows > 0) {
    yield* writeAudit(tx, {
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
 * The automatic purge: deletes the credentials of every engagement whose handover report was
 * produced, or which was cancelled, `afterDays` days or more before `now`, and still holds any.
 * Each engagement in its own transaction, checked again inside it; audited with the system as the
 * actor. Idempotent: a second run finds nothing. Returns how many engagements and items it purged.
 */
export async function purgeDueCredentials(database: Database, options: { now: Date; afterDays: number }): Promise<{ engagements: number } & PurgeCounts> {
  const cutoff = purgeCutoff(options.now, options.afterDays);
  const total = { engagements: 0, items: 0, rehearsalItems: 0, submissions: 0, rehearsalKeys: 0, supplementaryRows: 0 };
  const due = await database.transaction((tx) => engagementsDueForPurge(tx, cutoff), { isolation: "read committed" });
  for (const one of due) {
    // Read committed, with the engagement's row locked before it is checked again: a purge running
    // at once (another worker's) waits, then finds nothing left to purge.
    const counts = await database.transaction(
      function* (tx) {
        yield* lockEngagementForPurge(tx, one.engagementId);
        const still = (yield* engagementsDueForPurge(tx, cutoff, one.engagementId))[0];
        if (!still) return null;
        return yield* purgeEngagementCredentials(tx, { actor: null, ...still, at: options.now, afterDays: options.afterDays });
      },
      { isolation: "read committed" },
    );
    if (!counts) continue;
    total.engagements += 1;
    total.items += counts.items;
    total.rehearsalItems += counts.rehearsalItems;
    total.submissions += counts.submissions;
    total.rehearsalKeys += counts.rehearsalKeys;
    total.supplementaryRows += counts.supplementaryRows;
  }
  if (total.engagements) checkpointAfterSecretOverwrite(database);
  return total;
}
