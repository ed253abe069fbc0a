/** Handing an engagement to another support user. */
import { eq } from "drizzle-orm";
import { forUpdate, q, type Database } from "@/db/database";
import { users } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { refuse } from "./access";
import { isEligibleOwner, isStaff, OWNER_REFUSAL } from "./checklist";
import { loadForChange, updateEngagement } from "./engagement-repository";

/** Makes another active staff member the owner; no change when they already are. */
export async function changeOwner(database: Database, actor: Actor, input: { engagementId: string; ownerId: string }): Promise<void> {
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Only support staff change owners.");
  // Read committed with row locks: the engagement (loadForChange) and the new owner's row, so
  // neither a parallel change of owner nor the owner's deactivation slips between check and write.
  await database.transaction(
    function* (tx) {
        const { eng } = yield* loadForChange(tx, input.engagementId);
        const owner = yield* q.get(
          forUpdate(tx.select({ id: users.id, name: users.name, role: users.role, active: users.active }).from(users).where(eq(users.id, input.ownerId))),
        );
        if (!isEligibleOwner(owner)) refuse(OWNER_REFUSAL);
        if (owner.id === eng.ownerId) return;
        const previous = yield* q.get(tx.select({ name: users.name }).from(users).where(eq(users.id, eng.ownerId)));
        const now = new Date();
        yield* updateEngagement(tx, eng.id, { ownerId: owner.id }, now);
        yield* writeAudit(tx, {
        actor,
        action: "engagement.owner_changed",
        targetId: eng.id,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        before: { owner: previous?.name ?? null },
        after: { owner: owner.name },
        at: now,
      });
    },
    { isolation: "read committed" },
  );
}
