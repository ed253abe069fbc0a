/**
 * Before support proposes windows: would any of them overfill its target with the windows other
 * engagements already have there? Each window is checked with the engagement's estimate as
 * proposing would store it (the same estimate and limits as step 2), against every other
 * engagement's proposed and agreed windows on the same target. The form shows the answer and asks
 * before sending; proposing is still support's call.
 */
import { readSteps, type Database } from "@/db/database";
import type { Actor } from "@/core/accounts/actor";
import { isStaff } from "@/core/accounts/roles";
import type { ProposalOverlaps } from "@/core/engagements/calendar-schemas";
import { AppError } from "@/server/errors";
import { estimateForEngagement } from "../window/estimate-for-engagement";
import { loadWindowState } from "../window/load-window-state";
import { targetLimits, type SandboxAccess } from "../window/target-limits";
import { overlapView, targetKeyOf, windowsAround } from "./get-calendar";
import { overlapsOfCandidates } from "./window-overlap";

export async function checkProposalOverlaps(
  database: Database,
  deps: { sandbox?: SandboxAccess },
  actor: Actor,
  input: { engagementId: string; windows: { startsAt: Date; endsAt: Date }[] },
): Promise<ProposalOverlaps> {
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Support proposes migration windows.");
  const first = await readSteps(database, (tx) => loadWindowState(tx, actor, input.engagementId));
  const limits = await targetLimits(first.target, deps.sandbox);
  const estimated = await readSteps(database, function* (tx) {
    const { eng, platform } = yield* loadWindowState(tx, actor, input.engagementId);
    return yield* estimateForEngagement(tx, { engagementId: eng.id, platform, target: limits });
  });
  const valid = input.windows.filter((w) => w.endsAt.getTime() > w.startsAt.getTime());
  if (!estimated || !valid.length) return { windows: input.windows.map(() => null) };
  const from = new Date(Math.min(...valid.map((w) => w.startsAt.getTime())));
  const to = new Date(Math.max(...valid.map((w) => w.endsAt.getTime())));
  // The windows that could share a span with these (their own flags are the calendar's business).
  const rows = await readSteps(database, (tx) => windowsAround(tx, { from, to }));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const targetKey = targetKeyOf({ targetId: first.target?.id ?? null, targetBuiltIn: first.target?.builtIn ?? null });
  const others = rows.map((r) => ({
    id: r.id,
    engagementId: r.engagementId,
    targetKey: targetKeyOf(r),
    startsAt: r.startsAt,
    endsAt: r.endsAt,
    requests: r.estimateRequests,
    companies: r.estimateCompanies,
  }));
  const flags = overlapsOfCandidates(
    input.windows,
    { engagementId: first.eng.id, targetKey, requests: estimated.estimate.totalCalls, companies: estimated.view.companies },
    others,
    limits.limits,
  );
  const named = { limits: limits.limits, source: limits.source, name: first.target?.name ?? "Ferry's sandbox" };
  return { windows: flags.map((f) => (f ? overlapView(f, byId, named) : null)) };
}
