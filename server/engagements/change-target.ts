/**
 * Pointing an engagement at a service target: the built-in sandbox to rehearse, the customer's own
 * account on the service for the window. A target is one customer's account, so an engagement may
 * use only its organisation's targets or the built-in sandbox.
 */
import { eq } from "drizzle-orm";
import { forUpdate, q, type Database, readSteps } from "@/db/database";
import { serviceTargets } from "@/db/schema";
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { targetUseRefusal } from "@/server/targets/rules";
import type { TargetChoicesView } from "@/core/targets/schemas";
import { findServiceTarget, listTargetChoices } from "@/server/targets/targets";
import { refuse } from "./access";
import { isStaff, targetChangeAvailability } from "./checklist";
import { findEngagement, loadForChange, updateEngagement } from "./engagement-repository";

/**
 * Changes the engagement's service target: support only, refused once it is completed or cancelled
 * (checked before the transaction and again inside it), and for a target it may not use.
 */
export async function changeTarget(database: Database, actor: Actor, input: { engagementId: string; serviceTargetId: string }): Promise<void> {
  const refusal = targetChangeAvailability(actor.role, (await readSteps(database, (tx) => loadForChange(tx, input.engagementId))).eng.status);
  if (refusal) refuse(refusal);
  // Read committed with row locks: the engagement's (loadForChange), so its status and target are
  // decided as they are, then the target's. Archiving a target locks its row and then checks that
  // no unfinished engagement points at it; with both locking it, the two queue whichever starts
  // first, and the second sees what the first did (an archived target, or an engagement using it).
  await database.transaction(
    function* (tx) {
      const { eng } = yield* loadForChange(tx, input.engagementId);
      yield* q.get(forUpdate(tx.select({ id: serviceTargets.id }).from(serviceTargets).where(eq(serviceTargets.id, input.serviceTargetId))));
      const target = yield* findServiceTarget(tx, input.serviceTargetId);
      if (!target) throw fieldError("serviceTargetId", "Choose an existing service target.");
      const locked = targetChangeAvailability(actor.role, eng.status);
      if (locked) refuse(locked);
      const refused = targetUseRefusal(target, eng.organizationId);
      if (refused) throw fieldError("serviceTargetId", refused);
      if (eng.serviceTargetId === target.id) return;
      const before = eng.serviceTargetId ? yield* findServiceTarget(tx, eng.serviceTargetId) : undefined;
      const now = new Date();
      yield* updateEngagement(tx, eng.id, { serviceTargetId: target.id }, now);
      yield* writeAudit(tx, {
        actor,
        action: "engagement.target_changed",
        targetId: eng.id,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        before: { serviceTarget: before?.name ?? null },
        after: { serviceTarget: target.name, baseUrl: target.baseUrl },
        at: now,
      });
    },
    { isolation: "read committed" },
  );
}

/** The targets the engagement may be pointed at (its organisation's and the built-in sandbox) and where it points now, for staff. */
export async function getTargetChoices(database: Database, actor: Actor, engagementId: string): Promise<TargetChoicesView> {
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Only support staff choose service targets.");
  const eng = await readSteps(database, (tx) => findEngagement(tx, engagementId));
  if (!eng) throw new AppError("NOT_FOUND", "No engagement with that id.");
  return listTargetChoices(database, eng);
}
