/**
 * The customer acknowledges the handover report (or staff record their acknowledgement, with a
 * note of how it was given): the engagement's credentials are purged, step 6 completes with the
 * handover as its evidence, and so the engagement completes.
 */
import { readSteps, type Database, type Tx } from "@/db/database";
import { checkpointAfterSecretOverwrite } from "@/db/checkpoint";
import { assertOrganization, refuse } from "@/server/engagements/access";
import { applyStepAction } from "@/server/engagements/act-on-step";
import { loadForChange } from "@/server/engagements/engagement-repository";
import type { EngagementStatus } from "@/core/engagements/states";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import type { HandoverDeps } from "./confirm-handover";
import { engagementOwner, findHandover, markAcknowledged } from "./handover-repository";
import { queueAcknowledgedMail } from "./handover-mail";
import { purgeEngagementCredentials, type PurgeCounts } from "./purge-credentials";
import { acknowledgementNeedsNote, acknowledgementNoteRefusal, acknowledgeRefusal, NOT_PRODUCED } from "./rules";

/**
 * The engagement and its report, refused unless the actor may acknowledge it now. The engagement
 * row is locked first (loadForChange): two acknowledgements at once queue on it, and the second
 * finds the report acknowledged.
 */
function* decide(tx: Tx, actor: Actor, input: { engagementId: string; note?: string }) {
  const { eng, states } = yield* loadForChange(tx, input.engagementId);
  assertOrganization(actor, eng.organizationId);
  const handover = (yield* findHandover(tx, eng.id)) ?? null;
  const refusal = acknowledgeRefusal({ role: actor.role, engagementStatus: eng.status, states, handover }) ?? acknowledgementNoteRefusal(actor.role, input.note);
  if (refusal || !handover) refuse(refusal ?? NOT_PRODUCED);
  return { eng, handover };
}

/**
 * Acknowledges the report, purges the credentials and completes step 6, in one transaction
 * (checked before it and again inside it); then clears the purged pages from SQLite's write-ahead
 * log. The engagement's owner is mailed in the same transaction. Returns what was purged and the
 * engagement's new status.
 */
export async function acknowledgeHandover(
  database: Database,
  actor: Actor,
  deps: HandoverDeps,
  input: { engagementId: string; note?: string },
): Promise<{ purged: PurgeCounts; status: EngagementStatus }> {
  const note = input.note?.trim() || undefined;
  await readSteps(database, (tx) => decide(tx, actor, { ...input, note }));
  const onBehalf = acknowledgementNeedsNote(actor.role);
  const at = new Date();
  // Read committed: decide locks the engagement row before it reads the report; the automatic
  // purge locks the same row (lockEngagementForPurge), so the two never count a secret twice.
  const done = await database.transaction(
    function* (tx) {
      const { eng, handover } = yield* decide(tx, actor, { ...input, note });
      yield* markAcknowledged(tx, handover.id, { byId: actor.id, at, note: onBehalf ? (note ?? null) : null });
      yield* writeAudit(tx, {
        actor,
        action: "handover.acknowledged",
        targetId: eng.id,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        after: { onBehalfOfCustomer: onBehalf, ...(onBehalf && note ? { note } : {}) },
        at,
      });
      const purged = yield* purgeEngagementCredentials(tx, { actor, engagementId: eng.id, organizationId: eng.organizationId, trigger: "handover_acknowledged", at });
      // An automatic purge may have come first: the evidence keeps when the credentials went.
      const purgedAt = (yield* findHandover(tx, eng.id))?.purgedAt ?? at;
      const step = yield* applyStepAction(tx, actor, {
        engagementId: eng.id,
        step: 6,
        action: "complete",
        via: "flow",
        note: onBehalf ? note : undefined,
        evidence: { kind: "handed_over", acknowledgedAt: at, purgedAt, counts: handover.counts },
        at,
      });
      const owner = yield* engagementOwner(tx, eng.id);
      if (owner) {
        yield* queueAcknowledgedMail(tx, deps, { engagement: eng, owner, by: actor.name, onBehalf, purgedItems: purged.items, purgedSecrets: purged.submissions });
      }
      return { purged, status: step.status };
    },
    { isolation: "read committed" },
  );
  checkpointAfterSecretOverwrite(database);
  return { purged: done.purged, status: done.status };
}
