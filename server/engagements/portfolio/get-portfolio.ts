/**
 * Support's portfolio: every open engagement with its clock at `now` (core/engagements/clocks.ts,
 * under its organisation's targets), the counts by risk, whose move and reason, filtered by owner,
 * customer, platform, target and risk, grouped by one of them, most urgent first, one page at a
 * time. The clocks depend on the time, so risk is decided here, after the database has applied
 * the other filters.
 */
import { readSteps, type Database } from "@/db/database";
import { clockOf, clockTargetsFor, RISK_LABELS, type Clock, type ClockTargets, type Risk } from "@/core/engagements/clocks";
import { STATUS_REASON_LABELS, type StatusReason } from "@/core/engagements/status-reasons";
import { STEP_NUMBERS, type StepNumber } from "@/core/engagements/states";
import { stepDefinition } from "@/core/engagements/steps";
import type { Portfolio, PortfolioFilter, PortfolioGroup, PortfolioRow } from "@/core/engagements/portfolio-schemas";
import { getManagedPlatform, MANAGED_PLATFORMS } from "@/server/platforms";
import { cancelReasonCounts, nextProposedWindows, openEngagements, portfolioOptions } from "./portfolio-repository";

type Loaded = PortfolioRow & { clock: Clock };

const stepTitle = (n: number) => ((STEP_NUMBERS as readonly number[]).includes(n) ? stepDefinition(n as StepNumber).title : "All steps done");

/** Most urgent first: late (most overdue first), at risk, on pace (soonest due first), then nobody's move and on hold. */
const RISK_RANK: Record<Risk, number> = { late: 0, at_risk: 1, on_pace: 2 };
function urgency(a: Loaded, b: Loaded): number {
  const rank = (r: Loaded) => (r.paused ? 4 : r.risk ? RISK_RANK[r.risk] : 3);
  return rank(a) - rank(b) || (a.dueAt?.getTime() ?? Infinity) - (b.dueAt?.getTime() ?? Infinity) || a.reference.localeCompare(b.reference);
}

/** The group a row falls in, as its key and words. */
function groupOf(row: Loaded, by: PortfolioGroup): { key: string; label: string } {
  switch (by) {
    case "owner":
      return { key: row.ownerId, label: row.ownerName };
    case "customer":
      return { key: row.organizationId, label: row.organizationName };
    case "platform":
      return { key: row.platformKey, label: row.platformName };
    case "target":
      return { key: row.targetId ?? "none", label: row.targetName ?? "No target yet" };
    case "risk":
      return row.paused ? { key: "on_hold", label: "On hold" } : row.risk ? { key: row.risk, label: RISK_LABELS[row.risk] } : { key: "none", label: "Nobody's move" };
    case "none":
      return { key: "all", label: "All" };
    default: {
      const never: never = by;
      return never;
    }
  }
}

/** Whether the row passes the risk filter. */
function passesRisk(row: Loaded, risk: PortfolioFilter["risk"]): boolean {
  if (!risk) return true;
  if (risk === "on_hold") return row.paused;
  if (risk === "stale") return row.stale;
  return !row.paused && row.risk === risk;
}

function countReasons(reasons: readonly (StatusReason | null)[]): Portfolio["holdReasons"] {
  const by = new Map<StatusReason, number>();
  for (const r of reasons) if (r) by.set(r, (by.get(r) ?? 0) + 1);
  return [...by].map(([key, n]) => ({ key, label: STATUS_REASON_LABELS[key], count: n })).sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
}

export async function getPortfolio(database: Database, filter: PortfolioFilter, now = new Date()): Promise<Portfolio> {
  const where = { ownerId: filter.ownerId, organizationId: filter.organizationId, platformKey: filter.platformKey, targetId: filter.targetId };
  const { open, windows, cancelled, options } = await readSteps(database, function* (tx) {
    return {
      open: yield* openEngagements(tx, where),
      windows: yield* nextProposedWindows(tx, now),
      cancelled: yield* cancelReasonCounts(tx, where),
      options: yield* portfolioOptions(tx),
    };
  });
  const targetsByOrg = new Map<string, ClockTargets>();
  const loaded: Loaded[] = open.map((e) => {
    let targets = targetsByOrg.get(e.organizationId);
    if (!targets) targetsByOrg.set(e.organizationId, (targets = clockTargetsFor(e.clockTargets)));
    const clock = clockOf(e, targets, now);
    const agreed = e.windowStartsAt && e.windowEndsAt && e.windowEndsAt.getTime() > now.getTime() ? { startsAt: e.windowStartsAt, endsAt: e.windowEndsAt, agreed: true } : null;
    const proposed = windows.get(e.id);
    return {
      id: e.id,
      reference: e.reference,
      organizationId: e.organizationId,
      organizationName: e.organizationName,
      platformKey: e.platformKey,
      platformName: getManagedPlatform(e.platformKey)?.name ?? e.platformKey,
      ownerId: e.ownerId,
      ownerName: e.ownerName,
      targetId: e.targetId,
      targetName: e.targetName,
      status: e.status,
      statusReason: e.status === "on_hold" ? e.statusReason : null,
      statusNote: e.status === "on_hold" ? e.statusNote : null,
      currentStep: e.currentStep,
      stepTitle: stepTitle(e.currentStep),
      party: clock.party,
      waitingSince: clock.paused ? null : e.waitingSince,
      paused: clock.paused,
      dueAt: clock.dueAt,
      risk: clock.risk,
      stale: clock.stale,
      idleDays: clock.idleDays,
      updatedAt: e.updatedAt,
      projectedFinish: clock.projectedFinish,
      nextWindow: agreed ?? (proposed ? { ...proposed, agreed: false } : null),
      clock,
    };
  });

  const live = loaded.filter((r) => !r.paused);
  const counts = {
    open: loaded.length,
    late: live.filter((r) => r.risk === "late").length,
    atRisk: live.filter((r) => r.risk === "at_risk").length,
    onPace: live.filter((r) => r.risk === "on_pace").length,
    onHold: loaded.length - live.length,
    stale: loaded.filter((r) => r.stale).length,
    supportsMove: live.filter((r) => r.party === "support").length,
    customersMove: live.filter((r) => r.party === "customer").length,
  };

  const shown = loaded.filter((r) => passesRisk(r, filter.risk));
  const groupIndex = new Map<string, { key: string; label: string; count: number; late: number; atRisk: number }>();
  for (const r of shown) {
    const g = groupOf(r, filter.group);
    const entry = groupIndex.get(g.key) ?? { ...g, count: 0, late: 0, atRisk: 0 };
    entry.count += 1;
    if (!r.paused && r.risk === "late") entry.late += 1;
    if (!r.paused && r.risk === "at_risk") entry.atRisk += 1;
    groupIndex.set(g.key, entry);
  }
  // Groups with the most late first (risk groups in their own order), then by name.
  const riskOrder = ["late", "at_risk", "on_pace", "none", "on_hold"];
  const groups = [...groupIndex.values()].sort((a, b) =>
    filter.group === "risk" ? riskOrder.indexOf(a.key) - riskOrder.indexOf(b.key) : b.late - a.late || b.atRisk - a.atRisk || a.label.localeCompare(b.label),
  );
  const order = new Map(groups.map((g, i) => [g.key, i]));
  shown.sort((a, b) => (order.get(groupOf(a, filter.group).key) ?? 0) - (order.get(groupOf(b, filter.group).key) ?? 0) || urgency(a, b));

  const start = (filter.page - 1) * filter.pageSize;
  const rows = shown.slice(start, start + filter.pageSize).map(({ clock: _clock, ...row }) => row);
  const platformsInUse = new Set(open.map((e) => e.platformKey));
  return {
    at: now,
    rows,
    total: shown.length,
    page: filter.page,
    pageSize: filter.pageSize,
    counts,
    holdReasons: countReasons(loaded.filter((r) => r.paused).map((r) => r.statusReason)),
    cancelReasons: cancelled
      .filter((c): c is { reason: StatusReason; n: number } => c.reason !== null)
      .map((c) => ({ key: c.reason, label: STATUS_REASON_LABELS[c.reason], count: c.n }))
      .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label)),
    groups: filter.group === "none" ? [] : groups,
    options: {
      ...options,
      platforms: MANAGED_PLATFORMS.filter((p) => platformsInUse.has(p.key) || p.key === filter.platformKey).map((p) => ({ key: p.key, name: p.name })),
    },
  };
}
