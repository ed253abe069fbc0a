/** Support produces the handover report once every real company of the engagement is final. */
import { runSync } from "@/db/database";
import type { Db } from "@/db/client";
import { assertOrganization, refuse } from "@/server/engagements/access";
import { applyStepAction } from "@/server/engagements/act-on-step";
import { loadForChange } from "@/server/engagements/engagement-repository";
import type { Actor } from "@/core/accounts/actor";
import { recordAudit, type DbOrTx } from "@/server/security/audit";
import { activeBulkRunStatus, countRealItems, customerRecipients, findHandover, insertHandover } from "./handover-repository";
import { refreshWaiting } from "@/server/engagements/waiting/refresh-waiting";
import { ensureWatch } from "../watch/watch-repository";
import { mailReportReady, type HandoverMailDeps } from "./handover-mail";
import { automaticPurgeAt } from "./purge-schedule";
import { confirmRefusal } from "./rules";
import { reconcile } from "../reconciliation";

export type HandoverDeps = HandoverMailDeps & { purgeAfterDays: number };

/** The engagement as a confirmation needs it, refused when the report cannot be produced. */
function decide(tx: DbOrTx, actor: Actor, engagementId: string) {
  const { eng, states } = runSync(loadForChange(tx, engagementId));
  assertOrganization(actor, eng.organizationId);
  const { total, counts } = runSync(countRealItems(tx, eng.id));
  const refusal = confirmRefusal({
    engagementStatus: eng.status,
    states,
    counts,
    total,
    activeBulkRun: runSync(activeBulkRunStatus(tx, eng.id)),
    handover: runSync(findHandover(tx, eng.id)) ?? null,
  });
  if (refusal) refuse(refusal);
  return { eng, states, total, counts };
}

/**
 * Produces the handover report: records the counts per final state, starts step 6 if nobody has
 * yet, audits it, and mails the customer (the organisation's customer users and the submission's
 * contacts) that the report is ready. Checked before the transaction and again inside it.
 */
export async function confirmHandover(db: Db, actor: Actor, deps: HandoverDeps, input: { engagementId: string }): Promise<{ handoverId: string }> {
  decide(db, actor, input.engagementId);
  const at = new Date();
  const done = db.transaction((tx) => {
    const { eng, states, total, counts } = decide(tx, actor, input.engagementId);
    if (states[6] === "pending") runSync(applyStepAction(tx, actor, { engagementId: eng.id, step: 6, action: "start", via: "flow", at }));
    const { id } = runSync(insertHandover(tx, { engagementId: eng.id, confirmedById: actor.id, confirmedAt: at, counts, total }));
    const reconciliation = runSync(reconcile(tx, eng.id));
    recordAudit(tx, {
      actor,
      action: "handover.confirmed",
      targetId: eng.id,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      after: { total, counts, reconciliation },
      at,
    });
    // The hypercare days begin with the watch's next check (on the target's clock); it is the customer's move now.
    runSync(ensureWatch(tx, { engagementId: eng.id, now: at, dueNow: true }));
    runSync(refreshWaiting(tx, eng.id, at));
    return { id, eng, reconciliation, recipients: runSync(customerRecipients(tx, eng.id, eng.organizationId)) };
  });
  await mailReportReady(db, deps, {
    engagement: done.eng,
    recipients: done.recipients,
    reconciliation: done.reconciliation,
    automaticPurgeAt: automaticPurgeAt(at, deps.purgeAfterDays),
  });
  return { handoverId: done.id };
}
