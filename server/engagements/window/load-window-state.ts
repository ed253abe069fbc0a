/** The state step 2's rules and operations read, inside or outside a transaction. */
import { AppError } from "@/server/errors";
import { getManagedPlatform, type ManagedPlatform } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import type { Steps, Tx } from "@/db/database";
import { findServiceTarget } from "@/server/targets/targets";
import { assertOrganization } from "../access";
import { loadForChange } from "../engagement-repository";
import { countProposedWindows, findWindow, type WindowRow } from "./window-repository";
import type { WindowRuleState } from "./window-rules";

/** The engagement, its platform and target, and the rule state for the actor; NOT_FOUND when not visible. */
export function* loadWindowState(tx: Tx, actor: Actor, engagementId: string) {
  const { eng, states } = yield* loadForChange(tx, engagementId);
  assertOrganization(actor, eng.organizationId);
  const platform: ManagedPlatform | undefined = getManagedPlatform(eng.platformKey);
  if (!platform) throw new AppError("PRECONDITION_FAILED", "This engagement's platform has no managed migration.");
  const target = eng.serviceTargetId ? ((yield* findServiceTarget(tx, eng.serviceTargetId)) ?? null) : null;
  const rule: WindowRuleState = {
    role: actor.role,
    status: eng.status,
    states,
    proposed: yield* countProposedWindows(tx, engagementId),
    agreed: eng.windowStartsAt !== null,
  };
  return { eng, states, platform, target, rule };
}

/** Throws the refusal of a rule: FORBIDDEN for the wrong role, PRECONDITION_FAILED otherwise. */
export function enforce(allowed: { allowed: boolean; reason: string | null }, roleOk: boolean): void {
  if (allowed.allowed) return;
  throw new AppError(roleOk ? "PRECONDITION_FAILED" : "FORBIDDEN", allowed.reason ?? "Not allowed now.");
}

/** The engagement's window `windowId`, which must still be proposed (`what` is the action, for the refusal). */
export function* proposedWindow(tx: Tx, engagementId: string, windowId: string, what: string): Steps<WindowRow> {
  const window = yield* findWindow(tx, engagementId, windowId);
  if (!window) throw new AppError("NOT_FOUND", "No such window on this engagement.");
  if (window.status !== "proposed") throw new AppError("PRECONDITION_FAILED", `That window is ${window.status}; only a proposed window can be ${what}.`);
  return window;
}
