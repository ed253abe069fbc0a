/** The handover of one engagement as the viewer sees it: live counts, the report's record, what they may do. */
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
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
export function getHandover(database: Database, actor: Actor, deps: { purgeAfterDays: number }, engagementId: string): Promise<HandoverView> {
  return readSteps(database, (tx) => handoverView(tx, actor, deps, engagementId));
}

/** `getHandover`, read inside `readSteps`. */
function* handoverView(tx: Tx, actor: Actor, deps: { purgeAfterDays: number }, engagementId: string): Steps<HandoverView> {
  const { eng, states } = yield* loadForChange(tx, engagementId);
  assertOrganization(actor, eng.organizationId);
  const { total, counts } = yield* countRealItems(tx, eng.id);
  const activeBulkRun = yield* activeBulkRunStatus(tx, eng.id);
  const h = (yield* findHandover(tx, eng.id)) ?? null;
  const names = yield* namesOf(tx, [h?.confirmedById ?? null, h?.acknowledgedById ?? null]);
  const person = (id: string | null | undefined) => (id ? (names.get(id) ?? null) : null);
  const confirm = isStaff(actor.role)
    ? confirmRefusal({ engagementStatus: eng.status, states, counts, total, activeBulkRun, handover: h })
    : { reason: "Support produces the handover report." };
  return {
    engagementId: eng.id,
    reference: eng.reference,
    total,
    counts,
    reconciliation: yield* reconcile(tx, eng.id),
    activeBulkRun,
    credentialsHeld: yield* countHeldCredentials(tx, eng.id),
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

/** A customer reads the report once it is produced; staff also before (a preview). A transaction step. */
export function* assertReportReadable(tx: Tx, actor: Actor, engagementId: string): Steps<void> {
  if (!isStaff(actor.role) && !(yield* findHandover(tx, engagementId))) {
    throw new AppError("PRECONDITION_FAILED", "The handover report has not been produced yet.");
  }
}
