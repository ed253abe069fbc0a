/** Who may see an engagement: staff see every one; customers only their own organisation's. */
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import type { Steps, Tx } from "@/db/database";
import { isStaff, type Refusal } from "./checklist";
import { findEngagement } from "./engagement-repository";

/**
 * A customer may see only their organisation's engagements. Another organisation's is refused
 * exactly like an unknown id, so a customer cannot learn which ids exist.
 */
export function assertOrganization(actor: Actor, organizationId: string): void {
  if (!isStaff(actor.role) && organizationId !== actor.organizationId) {
    throw new AppError("NOT_FOUND", "No engagement with that id.");
  }
}

/** Throws NOT_FOUND for an unknown engagement, and for a customer also for another organisation's. */
export function* assertCanView(tx: Tx, actor: Actor, engagementId: string): Steps<{ organizationId: string }> {
  const row = yield* findEngagement(tx, engagementId);
  if (!row) throw new AppError("NOT_FOUND", "No engagement with that id.");
  assertOrganization(actor, row.organizationId);
  return { organizationId: row.organizationId };
}

/** Turns a checklist refusal into the application error the caller sees. */
export function refuse(refusal: Refusal): never {
  if (refusal.code === "BAD_INPUT" && refusal.field) throw fieldError(refusal.field, refusal.reason);
  throw new AppError(refusal.code, refusal.reason);
}
