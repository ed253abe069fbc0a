/** The state step 2's rules and operations read, inside or outside a transaction. */
import { AppError } from "@/server/errors";
import { getManagedPlatform, type ManagedPlatform } from "@/server/platforms";
import type { Actor } from "@/server/security/actor";
import type { DbOrTx } from "@/server/security/audit";
import { findServiceTarget } from "@/server/targets/targets";
import { assertOrganization } from "../access";
import { loadForChange } from "../engagement-repository";
import { countProposedWindows } from "./window-repository";
import type { WindowRuleState } from "./window-rules";

/** The engagement, its platform and target, and the rule state for the actor; NOT_FOUND when not visible. */
export function loadWindowState(tx: DbOrTx, actor: Actor, engagementId: string) {
  const { eng, states } = loadForChange(tx, engagementId);
  assertOrganization(actor, eng.organizationId);
  const platform: ManagedPlatform | undefined = getManagedPlatform(eng.platformKey);
  if (!platform) throw new AppError("PRECONDITION_FAILED", "This engagement's platform has no managed migration.");
  const target = eng.serviceTargetId ? (findServiceTarget(tx, eng.serviceTargetId) ?? null) : null;
  const rule: WindowRuleState = {
    role: actor.role,
    status: eng.status,
    states,
    proposed: countProposedWindows(tx, engagementId),
    agreed: eng.windowStartsAt !== null,
  };
  return { eng, states, platform, target, rule };
}

/** Throws the refusal of a rule: FORBIDDEN for the wrong role, PRECONDITION_FAILED otherwise. */
export function enforce(allowed: { allowed: boolean; reason: string | null }, roleOk: boolean): void {
  if (allowed.allowed) return;
  throw new AppError(roleOk ? "PRECONDITION_FAILED" : "FORBIDDEN", allowed.reason ?? "Not allowed now.");
}
