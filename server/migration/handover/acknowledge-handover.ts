/**
 * The customer acknowledges the handover report (or staff record their acknowledgement, with a
 * note of how it was given): the engagement's credentials are purged, step 6 completes with the
 * handover as its evidence, and so the engagement completes.
 */
import type { Db } from "@/db/client";
import { databaseOf, runSync } from "@/db/database";
import { checkpointAfterSecretOverwrite } from "@/server/security/checkpoint";
import { assertOrganization, refuse } from "@/server/engagements/access";
import { applyStepAction } from "@/server/engagements/act-on-step";
import { loadForChange } from "@/server/engagements/engagement-repository";
import type { EngagementStatus } from "@/core/engagements/states";
import type { Actor } from "@/core/accounts/actor";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
import type { HandoverDeps } from "./confirm-handover";
import { engagementOwner, findHandover, markAcknowledged } from "./handover-repository";
import { mailAcknowledged } from "./handover-mail";
import { purgeEngagementCredentials, type PurgeCounts } from "./purge-credentials";
import { acknowledgementNeedsNote, acknowledgementNoteRefusal, acknowledgeRefusal, NOT_PRODUCED } from "./rules";

function decide(tx: DbOrTx, actor: Actor, input: { engagementId: string; note?: string }) {
  const { eng, states } = runSync(loadForChange(tx, input.engagementId));
  assertOrganization(actor, eng.organizationId);
  const handover = runSync(findHandover(tx, eng.id)) ?? null;
  const refusal = acknowledgeRefusal({ role: actor.role, engagementStatus: eng.status, states, handover }) ?? acknowledgementNoteRefusal(actor.role, input.note);
  if (refusal || !handover) refuse(refusal ?? NOT_PRODUCED);
  return { eng, handover };
}

/**
 * Acknowledges the report, purges the credentials and completes step 6, in one transaction
 * (checked before it and again inside it); then clears the purged pages from the write-ahead log
 * and mails the engagement's owner. Returns what was purged and the engagement's new status.
 */
export async function acknowledgeHandover(
  db: Db,
  actor: Actor,
  deps: HandoverDeps,
  input: { engagementId: string; note?: string },
): Promise<{ purged: PurgeCounts; status: EngagementStatus }> {
  const note = input.note?.trim() || undefined;
  decide(db, actor, { ...input, note });
  const onBehalf = acknowledgementNeedsNote(actor.role);
  const at = new Date();
  const done = db.transaction((tx) => {
    const { eng, handover } = decide(tx, actor, { ...input, note });
    runSync(markAcknowledged(tx, handover.id, { byId: actor.id, at, note: onBehalf ? (note ?? null) : null }));
    recordAudit(tx, {
      actor,
      action: "handover.acknowledged",
      targetId: eng.id,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      after: { onBehalfOfCustomer: onBehalf, ...(onBehalf && note ? { note } : {}) },
      at,
    });
    const purged = runSync(purgeEngagementCredentials(tx, { actor, engagementId: eng.id, organizationId: eng.organizationId, trigger: "handover_acknowledged", at }));
    // An automatic purge may have come first: the evidence keeps when the credentials went.
    const purgedAt = runSync(findHandover(tx, eng.id))?.purgedAt ?? at;
    const step = runSync(applyStepAction(tx, actor, {
      engagementId: eng.id,
      step: 6,
      action: "complete",
      via: "flow",
      note: onBehalf ? note : undefined,
      evidence: { kind: "handed_over", acknowledgedAt: at, purgedAt, counts: handover.counts },
      at,
    }));
    return { eng, purged, status: step.status, owner: runSync(engagementOwner(tx, eng.id)) };
  });
  checkpointAfterSecretOverwrite(databaseOf(db));
  if (done.owner) {
    await mailAcknowledged(db, deps, {
      engagement: done.eng,
      owner: done.owner,
      by: actor.name,
      onBehalf,
      purgedItems: done.purged.items,
      purgedSecrets: done.purged.submissions,
    });
  }
  return { purged: done.purged, status: done.status };
}
