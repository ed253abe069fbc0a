/** Step 2 as the viewer sees it: the estimate with its formula, the windows, and what the viewer may do. */
import type { Db } from "@/db/client";
import type { Actor } from "@/core/accounts/actor";
import { findRecipients } from "../waiting/recipients-repository";
import { estimateForEngagement } from "./estimate-for-engagement";
import { loadWindowState } from "./load-window-state";
import type { WindowPlan } from "@/core/engagements/window-schemas";
import { targetLimits, type SandboxAccess } from "./target-limits";
import { listWindows } from "./window-repository";
import { acceptWindowRule, proposeRule, rescheduleRule, withdrawRule } from "./window-rules";
import { windowView } from "./window-view";

/** The window plan of one engagement for the viewer. */
export async function getWindowPlan(db: Db, deps: { sandbox?: SandboxAccess }, actor: Actor, engagementId: string): Promise<WindowPlan> {
  const first = loadWindowState(db, actor, engagementId);
  const limits = await targetLimits(first.target, deps.sandbox);
  // Read again after the (possibly remote) limits: what is shown is the state as it is now.
  const { eng, platform, rule } = loadWindowState(db, actor, engagementId);
  const { rows, people } = listWindows(db, eng.id);
  const windows = rows.map((r) => windowView(r, people));
  const owner = findRecipients(db, eng.id)?.owner ?? { name: "Ferry support", email: "" };
  return {
    estimate: estimateForEngagement(db, { engagementId: eng.id, platform, target: limits })?.view ?? null,
    windows,
    agreed: windows.find((w) => w.status === "accepted") ?? null,
    contact: owner,
    propose: proposeRule(rule),
    accept: acceptWindowRule(rule),
    withdraw: withdrawRule(rule),
    reschedule: rescheduleRule(rule),
  };
}
