/** Handing an engagement to another support user. */
import type { Db } from "@/db/client";
import { runSync } from "@/db/database";
import { findUser } from "@/server/accounts/users";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { recordAudit } from "@/server/security/audit";
import { refuse } from "./access";
import { isEligibleOwner, isStaff, OWNER_REFUSAL } from "./checklist";
import { loadForChange, updateEngagement } from "./engagement-repository";

/** Makes another active staff member the owner; no change when they already are. */
export function changeOwner(db: Db, actor: Actor, input: { engagementId: string; ownerId: string }): void {
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Only support staff change owners.");
  db.transaction((tx) => {
    const { eng } = loadForChange(tx, input.engagementId);
    const owner = runSync(findUser(tx, input.ownerId));
    if (!isEligibleOwner(owner)) refuse(OWNER_REFUSAL);
    if (owner.id === eng.ownerId) return;
    const previous = runSync(findUser(tx, eng.ownerId));
    const now = new Date();
    updateEngagement(tx, eng.id, { ownerId: owner.id }, now);
    recordAudit(tx, {
      actor,
      action: "engagement.owner_changed",
      targetId: eng.id,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      before: { owner: previous?.name ?? null },
      after: { owner: owner.name },
      at: now,
    });
  });
}
