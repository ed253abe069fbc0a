/** Step 2 as the viewer sees it: the estimate with its formula, the windows, and what the viewer may do. */
import { readSteps } from "@/db/database";
import type { Database } from "@/db/database";
import type { Actor } from "@/core/accounts/actor";
import { findRecipients } from "../waiting/recipients-repository";
import { estimateForEngagement } from "./estimate-for-engagement";
import { loadWindowState } from "./load-window-state";
import type { WindowPlan } from "@/core/engagements/window-schemas";
import { targetLimits, type SandboxAccess } from "./target-limits";
import { listDeclines, listWindows } from "./window-repository";
import { acceptWindowRule, declineRule, proposeRule, rescheduleRule, withdrawRule } from "./window-rules";
import { windowView } from "./window-view";

/** The window plan of one engagement for the viewer. */
export async function getWindowPlan(database: Database, deps: { sandbox?: SandboxAccess }, actor: Actor, engagementId: string): Promise<WindowPlan> {
  const first = await readSteps(database, (tx) => loadWindowState(tx, actor, engagementId));
  const limits = await targetLimits(first.target, deps.sandbox);
  // Read again after the (possibly remote) limits: what is shown is the state as it is now.
  const { rule, listed, declines, recipients, estimated } = await readSteps(database, function* (tx) {
    const { eng, platform, rule } = yield* loadWindowState(tx, actor, engagementId);
    return {
      rule,
      listed: yield* listWindows(tx, eng.id),
      declines: yield* listDeclines(tx, eng.id),
      recipients: yield* findRecipients(tx, eng.id),
      estimated: yield* estimateForEngagement(tx, { engagementId: eng.id, platform, target: limits }),
    };
  });
  const windows = listed.rows.map((r) => windowView(r, listed.people));
  const owner = recipients?.owner ?? { name: "Ferry support", email: "" };
  return {
    estimate: estimated?.view ?? null,
    windows,
    agreed: windows.find((w) => w.status === "accepted") ?? null,
    contact: owner,
    propose: proposeRule(rule),
    accept: acceptWindowRule(rule),
    withdraw: withdrawRule(rule),
    reschedule: rescheduleRule(rule),
    decline: declineRule(rule),
    declines: declines.map(({ d, by }) => ({
      id: d.id,
      reason: d.reason,
      suggested: d.suggested.map((w) => ({ startsAt: new Date(w.startsAt), endsAt: new Date(w.endsAt) })),
      windows: d.windowIds.length,
      declinedBy: by,
      declinedAt: d.declinedAt,
      // A proposal after the decline answers it.
      answered: listed.rows.some((w) => w.proposedAt.getTime() > d.declinedAt.getTime()),
    })),
  };
}
