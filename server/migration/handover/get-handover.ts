/** The handover of one engagement as the viewer sees it: live counts, the report's record, what they may do. */
import { runSync } from "@/db/database";
import type { Db } from "@/db/client";
import { AppError } from "@/server/errors";
import { assertOrganization } from "@/server/engagements/access";
import { isStaff } from "@/server/engagements/checklist";
import { loadForChange } from "@/server/engagements/engagement-repository";
import type { Actor } from "@/core/accounts/actor";
import { activeBulkRunStatus, countHeldCredentials, countRealItems, findHandover, namesOf } from "./handover-repository";
import { automaticPurgeAt } from "./purge-schedule";
import { reconcile } from "../reconciliation";
import { acknowledgementNeedsNote, acknowledgeRefusal, confirmRefusal } from "./rules";
import type { HandoverView } from "@/core/migration/handover-schemas";

const offer = (refusal: { reason: string } | null) => ({ allowed: !refusal, reason: refusal?.reason ?? null });

/** The engagement's handover (null until the report is produced), with the actions the viewer may take. */
export function getHandover(db: Db, actor: Actor, deps: { purgeAfterDays: number }, engagementId: string): HandoverView {
  const { eng, states } = runSync(loadForChange(db, engagementId));
  assertOrganization(actor, eng.organizationId);
  const { total, counts } = runSync(countRealItems(db, eng.id));
  const activeBulkRun = runSync(activeBulkRunStatus(db, eng.id));
  const h = runSync(findHandover(db, eng.id)) ?? null;
  const names = runSync(namesOf(db, [h?.confirmedById ?? null, h?.acknowledgedById ?? null]));
  const person = (id: string | null | undefined) => (id ? (names.get(id) ?? null) : null);
  const confirm = isStaff(actor.role)
    ? confirmRefusal({ engagementStatus: eng.status, states, counts, total, activeBulkRun, handover: h })
    : { reason: "Support produces the handover report." };
  return {
    engagementId: eng.id,
    reference: eng.reference,
    total,
    counts,
    reconciliation: runSync(reconcile(db, eng.id)),
    activeBulkRun,
    credentialsHeld: runSync(countHeldCredentials(db, eng.id)),
    handover: h
      ? {
          confirmedAt: h.confirmedAt,
          confirmedBy: person(h.confirmedById),
          total: h.total,
          counts: h.counts,
          acknowledgedAt: h.acknowledgedAt,
          acknowledgedBy: person(h.acknowledgedById),
          acknowledgementNote: h.acknowledgementNote,
          purgedAt: h.purgedAt,
          purgeTrigger: h.purgeTrigger,
          automaticPurgeAt: automaticPurgeAt(h.confirmedAt, deps.purgeAfterDays),
        }
      : null,
    actions: {
      confirm: offer(confirm),
      acknowledge: { ...offer(acknowledgeRefusal({ role: actor.role, engagementStatus: eng.status, states, handover: h })), needsNote: acknowledgementNeedsNote(actor.role) },
    },
  };
}

/** A customer reads the report once it is produced; staff also before (a preview). */
export function assertReportReadable(db: Db, actor: Actor, engagementId: string): void {
  if (!isStaff(actor.role) && !runSync(findHandover(db, engagementId))) {
    throw new AppError("PRECONDITION_FAILED", "The handover report has not been produced yet.");
  }
}
