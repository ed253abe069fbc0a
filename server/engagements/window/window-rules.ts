/**
 * Step 2's rules as data, pure: who may propose, accept, withdraw or reschedule a window in which state,
 * with the reason when not. The screens show the same answers the operations enforce.
 */
import { isStaff, type Role } from "@/core/accounts/roles";
import type { StepStates } from "../checklist";
import type { EngagementStatus } from "@/core/engagements/states";
import type { Allowed } from "@/core/engagements/intake-schemas";

export type WindowRuleState = { role: Role; status: EngagementStatus; states: StepStates; proposed: number; agreed: boolean };

const yes: Allowed = { allowed: true, reason: null };
const no = (reason: string): Allowed => ({ allowed: false, reason });

function active(s: WindowRuleState): Allowed | null {
  return s.status === "active" ? null : no(`The engagement is ${s.status.replace("_", " ")}; the window can change only while it is active.`);
}

/** Support proposes windows once step 1 is done and until one is accepted. */
export function proposeRule(s: WindowRuleState): Allowed {
  if (!isStaff(s.role)) return no("Support proposes migration windows.");
  const inactive = active(s);
  if (inactive) return inactive;
  if (s.states[1] !== "done") return no("Windows can be proposed once step 1 (Details gathered) is done: the estimate needs the accepted token file.");
  if (s.states[2] === "done") return no("A window is already agreed; reschedule it to propose others.");
  return yes;
}

/** The customer accepts one proposed window. */
export function acceptWindowRule(s: WindowRuleState): Allowed {
  if (s.role !== "customer") return no("The customer accepts a proposed window.");
  const inactive = active(s);
  if (inactive) return inactive;
  if (s.states[2] === "done") return no("A window is already agreed.");
  if (!s.proposed) return no("There is no proposed migration window to accept yet.");
  return yes;
}

/** The customer declines the proposed windows (with a reason, and times that would suit) instead of accepting one. */
export function declineRule(s: WindowRuleState): Allowed {
  if (s.role !== "customer") return no("The customer declines proposed windows; support withdraws its own.");
  const inactive = active(s);
  if (inactive) return inactive;
  if (s.states[2] === "done") return no("A window is already agreed; ask support to reschedule it.");
  if (!s.proposed) return no("There is no proposed migration window to decline.");
  return yes;
}

/** Support withdraws a window it proposed, while the engagement is active (the window itself must still be proposed). */
export function withdrawRule(s: WindowRuleState): Allowed {
  if (!isStaff(s.role)) return no("Support withdraws the windows it proposed.");
  return active(s) ?? yes;
}

/** Support reschedules an agreed window (reopening step 2 with a reason). */
export function rescheduleRule(s: WindowRuleState): Allowed {
  if (!isStaff(s.role)) return no("Support reschedules the window; ask your Ferry contact.");
  const inactive = active(s);
  if (inactive) return inactive;
  if (s.states[2] !== "done" || !s.agreed) return no("No window is agreed yet.");
  return yes;
}
