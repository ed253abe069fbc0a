/** Opening an engagement for a customer organisation on one of the six managed platforms. */
import type { Database, Steps, Tx } from "@/db/database";
import { findOrganization } from "@/server/accounts/organizations";
import { findUser } from "@/server/accounts/users";
import { AppError, fieldError } from "@/server/errors";
import { getManagedPlatform, unmanagedReason } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { findBuiltInSandbox } from "@/server/targets/targets";
import { refuse } from "./access";
import { isEligibleOwner, isStaff, OWNER_REFUSAL } from "./checklist";
import { findOpenEngagement, insertEngagement, nextReference } from "./engagement-repository";
import { queueNotice, type NotifyDeps } from "./waiting/notify";
import { refreshWaiting, type WaitingChange } from "./waiting/refresh-waiting";

/** Creates an engagement (owned by the creator unless another owner is named), targeting the built-in sandbox. */
export async function createEngagement(
  database: Database,
  deps: NotifyDeps,
  actor: Actor,
  input: { organizationId: string; platformKey: string; ownerId?: string | null },
): Promise<{ id: string; reference: string; waiting: WaitingChange | null }> {
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Only support staff create engagements.");
  const platform = getManagedPlatform(input.platformKey);
  if (!platform) throw fieldError("platformKey", unmanagedReason(input.platformKey) ?? "Unknown platform.");
  const ownerId = input.ownerId ?? actor.id;

  // Serializable: the checks are about rows that may not exist yet (no open engagement of the
  // organisation on the platform; no engagement with the next reference). Two creations at once:
  // one commits, the other runs again and is refused (or takes the next reference).
  return database.transaction(
    function* (tx) {
      const opened = yield* openEngagement(tx, actor, { organizationId: input.organizationId, platformKey: platform.key, ownerId, at: new Date() });
      yield* queueNotice(tx, deps.notify, { engagementId: opened.id, waiting: opened.waiting });
      return opened;
    },
    { isolation: "serializable" },
  );
}

/**
 * Opens the engagement, as a step of the caller's serializable transaction (creating one by hand,
 * or accepting a customer's request): checks the organisation, the owner and that no engagement of
 * the organisation on the platform is still open, takes the next reference, audits, and decides
 * whose move it is. Refusals name their field.
 */
export function* openEngagement(
  tx: Tx,
  actor: Actor,
  input: { organizationId: string; platformKey: string; ownerId: string; at: Date },
): Steps<{ id: string; reference: string; waiting: WaitingChange | null }> {
  const platform = getManagedPlatform(input.platformKey);
  if (!platform) throw fieldError("platformKey", unmanagedReason(input.platformKey) ?? "Unknown platform.");
  const org = yield* findOrganization(tx, input.organizationId);
  if (!org) throw fieldError("organizationId", "Choose an existing customer organisation.");
  const owner = yield* findUser(tx, input.ownerId);
  if (!isEligibleOwner(owner)) refuse(OWNER_REFUSAL);
  const open = yield* findOpenEngagement(tx, org.id, platform.key);
  if (open) {
    const message = `${org.name} already has an open ${platform.name} engagement (${open.reference}).`;
    throw new AppError("CONFLICT", message, { fields: { platformKey: message } });
  }
  const now = input.at;
  const reference = yield* nextReference(tx);
  const eng = yield* insertEngagement(tx, {
    reference,
    organizationId: org.id,
    platformKey: platform.key,
    ownerId: owner.id,
    // The built-in sandbox serves every organisation: a safe start until support picks the customer's own account.
    serviceTargetId: (yield* findBuiltInSandbox(tx))?.id ?? null,
    at: now,
  });
  yield* writeAudit(tx, {
    actor,
    action: "engagement.created",
    targetId: eng.id,
    engagementId: eng.id,
    organizationId: org.id,
    after: { reference, organization: org.name, platformKey: platform.key, owner: owner.name },
    at: now,
  });
  return { id: eng.id, reference, waiting: yield* refreshWaiting(tx, eng.id, now) };
}
