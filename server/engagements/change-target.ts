/**
 * Pointing an engagement at a service target: the built-in sandbox to rehearse, the customer's own
 * account on the service for the window. A target is one customer's account, so an engagement may
 * use only its organisation's targets or the built-in sandbox.
 */
import type { Db } from "@/db/client";
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { recordAudit } from "@/server/security/audit";
import { targetUseRefusal } from "@/server/targets/rules";
import type { TargetChoicesView } from "@/core/targets/schemas";
import { databaseOf, runSync } from "@/db/database";
import { findServiceTarget, listTargetChoices } from "@/server/targets/targets";
import { refuse } from "./access";
import { isStaff, targetChangeAvailability } from "./checklist";
import { findEngagement, loadForChange, updateEngagement } from "./engagement-repository";

/**
 * Changes the engagement's service target: support only, refused once it is completed or cancelled
 * (checked before the transaction and again inside it), and for a target it may not use.
 */
export function changeTarget(db: Db, actor: Actor, input: { engagementId: string; serviceTargetId: string }): void {
  const refusal = targetChangeAvailability(actor.role, loadForChange(db, input.engagementId).eng.status);
  if (refusal) refuse(refusal);
  db.transaction((tx) => {
    const target = runSync(findServiceTarget(tx, input.serviceTargetId));
    if (!target) throw fieldError("serviceTargetId", "Choose an existing service target.");
    const { eng } = loadForChange(tx, input.engagementId);
    const locked = targetChangeAvailability(actor.role, eng.status);
    if (locked) refuse(locked);
    const refused = targetUseRefusal(target, eng.organizationId);
    if (refused) throw fieldError("serviceTargetId", refused);
    if (eng.serviceTargetId === target.id) return;
    const before = eng.serviceTargetId ? runSync(findServiceTarget(tx, eng.serviceTargetId)) : undefined;
    const now = new Date();
    updateEngagement(tx, eng.id, { serviceTargetId: target.id }, now);
    recordAudit(tx, {
      actor,
      action: "engagement.target_changed",
      targetId: eng.id,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      before: { serviceTarget: before?.name ?? null },
      after: { serviceTarget: target.name, baseUrl: target.baseUrl },
      at: now,
    });
  });
}

/** The targets the engagement may be pointed at (its organisation's and the built-in sandbox) and where it points now, for staff. */
export async function getTargetChoices(db: Db, actor: Actor, engagementId: string): Promise<TargetChoicesView> {
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Only support staff choose service targets.");
  const eng = findEngagement(db, engagementId);
  if (!eng) throw new AppError("NOT_FOUND", "No engagement with that id.");
  return listTargetChoices(databaseOf(db), eng);
}
