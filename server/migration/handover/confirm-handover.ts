/** Support produces the handover report once every real company of the engagement is final. */
import { readSteps, type Database, type Tx } from "@/db/database";
import { assertOrganization, refuse } from "@/server/engagements/access";
import { applyStepAction } from "@/server/engagements/act-on-step";
import { loadForChange } from "@/server/engagements/engagement-repository";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { activeBulkRunStatus, countRealItems, customerRecipients, findHandover, insertHandover } from "./handover-repository";
import { refreshWaiting } from "@/server/engagements/waiting/refresh-waiting";
import { ensureWatch } from "../watch/watch-repository";
import { queueReportReadyMail, type HandoverMailDeps } from "./handover-mail";
import { automaticPurgeAt } from "./purge-schedule";
import { confirmRefusal } from "./rules";
import { reconcile } from "../reconciliation";

export type HandoverDeps = HandoverMailDeps & { purgeAfterDays: number };

/**
 * The engagement as a confirmation needs it, refused when the report cannot be produced. The
 * engagement row is locked first (loadForChange): two confirmations at once queue on it, and the
 * second finds the first's report.
 */
function* decide(tx: Tx, actor: Actor, engagementId: string) {
  const { eng, states } = yield* loadForChange(tx, engagementId);
  assertOrganization(actor, eng.organizationId);
  const { total, counts } = yield* countRealItems(tx, eng.id);
  const refusal = confirmRefusal({
    engagementStatus: eng.status,
    states,
    counts,
    total,
    activeBulkRun: yield* activeBulkRunStatus(tx, eng.id),
    handover: (yield* findHandover(tx, eng.id)) ?? null,
  });
  if (refusal) refuse(refusal);
  return { eng, states, total, counts };
}

/**
 * Produces the handover report: records the counts per final state, starts step 6 if nobody has
 * yet, audits it, and mails the customer (the organisation's customer users and the submission's
 * contacts) that the report is ready, in the same transaction. Checked before the
 * transaction and again inside it.
 */
export async function confirmHandover(database: Database, actor: Actor, deps: HandoverDeps, input: { engagementId: string }): Promise<{ handoverId: string }> {
  await readSteps(database, (tx) => decide(tx, actor, input.engagementId));
  const at = new Date();
  // Read committed: decide locks the engagement row before it checks for a report, and every
  // change that could make the report wrong (a retry, a new run, another confirmation) locks it too.
  const done = await database.transaction(
    function* (tx) {
      const { eng, states, total, counts } = yield* decide(tx, actor, input.engagementId);
      if (states[6] === "pending") yield* applyStepAction(tx, actor, { engagementId: eng.id, step: 6, action: "start", via: "flow", at });
      const { id } = yield* insertHandover(tx, { engagementId: eng.id, confirmedById: actor.id, confirmedAt: at, counts, total });
      const reconciliation = yield* reconcile(tx, eng.id);
      yield* writeAudit(tx, {
        actor,
        action: "handover.confirmed",
        targetId: eng.id,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        after: { total, counts, reconciliation },
        at,
      });
      // The hypercare days begin with the watch's next check (on the target's clock); it is the customer's move now.
      yield* ensureWatch(tx, { engagementId: eng.id, now: at, dueNow: true });
      yield* refreshWaiting(tx, eng.id, at);
      yield* queueReportReadyMail(tx, deps, {
        engagement: eng,
        recipients: yield* customerRecipients(tx, eng.id, eng.organizationId),
        reconciliation,
        automaticPurgeAt: automaticPurgeAt(at, deps.purgeAfterDays),
      });
      return { id };
    },
    { isolation: "read committed" },
  );
  return { handoverId: done.id };
}
