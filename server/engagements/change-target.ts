/** Pointing an engagement at a service target: the sandbox to rehearse, the real service for the window. */
import type { Db } from "@/db/client";
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/server/security/actor";
import { recordAudit } from "@/server/security/audit";
import { findServiceTarget } from "@/server/targets/targets";
import { refuse } from "./access";
import { isStaff, targetChangeRefusal } from "./checklist";
import { loadForChange, updateEngagement } from "./engagement-repository";

/** Changes the engagement's service target; refused once it is completed or cancelled. */
export function changeTarget(db: Db, actor: Actor, input: { engagementId: string; serviceTargetId: string }): void {
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Only support staff choose service targets.");
  db.transaction((tx) => {
    const target = findServiceTarget(tx, input.serviceTargetId);
    if (!target) throw fieldError("serviceTargetId", "Choose an existing service target.");
    const { eng } = loadForChange(tx, input.engagementId);
    const locked = targetChangeRefusal(eng.status);
    if (locked) refuse(locked);
    if (eng.serviceTargetId === target.id) return;
    const before = eng.serviceTargetId ? findServiceTarget(tx, eng.serviceTargetId) : undefined;
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
