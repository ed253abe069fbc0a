/**
 * Support's portfolio: every open engagement with its clock at `now` (core/engagements/clocks.ts,
 * under its organisation's targets), the counts by risk, whose move and reason, filtered by owner,
 * customer, platform, target and risk, grouped by one of them, most urgent first, one page at a
 * time. The database decides risk from each move's stored deadlines (portfolio-repository.ts), so
 * only the page's rows are read; their clocks (due, elapsed, projected finish) are worked out here.
 */
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { readSteps, type Database } from "@/db/database";
import { engagements } from "@/db/schema";
import { clockOf, clockTargetsFor, RISK_LABELS } from "@/core/engagements/clocks";
import { STATUS_REASON_LABELS, type StatusReason } from "@/core/engagements/status-reasons";
import { STEP_NUMBERS, type StepNumber } from "@/core/engagements/states";
import { stepDefinition } from "@/core/engagements/steps";
import type { Portfolio, PortfolioFilter, PortfolioGroup, PortfolioRow } from "@/core/engagements/portfolio-schemas";
import { getManagedPlatform, MANAGED_PLATFORMS } from "@/server/platforms";
import {
  cancelledWhere,
  groupColumn,
  groupCounts,
  nextProposedWindows,
  openWhere,
  portfolioCounts,
  portfolioOptions,
  portfolioPage,
  reasonCounts,
  riskConditions,
  staleDaysByOrganization,
  urgencyRank,
} from "./portfolio-repository";

const stepTitle = (n: number) => ((STEP_NUMBERS as readonly number[]).includes(n) ? stepDefinition(n as StepNumber).title : "All steps done");

/** The risk group's keys (urgency ranks) as words, in their order. */
const RISK_GROUPS: Record<string, { key: string; label: string }> = {
  "0": { key: "late", label: RISK_LABELS.late },
  "1": { key: "at_risk", label: RISK_LABELS.at_risk },
  "2": { key: "on_pace", label: RISK_LABELS.on_pace },
  "3": { key: "none", label: "Nobody's move" },
  "4": { key: "on_hold", label: "On hold" },
};

type Options = { owners: { id: string; name: string }[]; customers: { id: string; name: string }[]; targets: { id: string; name: string }[]; platformKeys: string[] };

/** A group's words from its key. */
function groupLabel(group: Exclude<PortfolioGroup, "none">, key: string, options: Options): { key: string; label: string } {
  const named = (list: { id: string; name: string }[]) => list.find((x) => x.id === key)?.name ?? key;
  switch (group) {
    case "owner":
      return { key, label: named(options.owners) };
    case "customer":
      return { key, label: named(options.customers) };
    case "platform":
      return { key, label: getManagedPlatform(key)?.name ?? key };
    case "target":
      return { key, label: key === "none" ? "No target yet" : named(options.targets) };
    case "risk":
      return RISK_GROUPS[key] ?? { key, label: key };
    default: {
      const never: never = group;
      return never;
    }
  }
}

function reasonsInWords(rows: readonly { reason: StatusReason | null; n: number }[]): Portfolio["holdReasons"] {
  return rows
    .filter((r): r is { reason: StatusReason; n: number } => r.reason !== null)
    .map((r) => ({ key: r.reason, label: STATUS_REASON_LABELS[r.reason], count: r.n }))
    .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
}

type PageRow = Awaited<ReturnType<typeof readPage>>["rows"][number];

/** What the portfolio shows of one row, its clock read at `now`. */
function toRow(r: PageRow, now: Date, windows: Map<string, { startsAt: Date; endsAt: Date }>): PortfolioRow {
  const clock = clockOf(r, clockTargetsFor(r.clockTargets), now);
  const agreed = r.windowStartsAt && r.windowEndsAt && r.windowEndsAt.getTime() > now.getTime() ? { startsAt: r.windowStartsAt, endsAt: r.windowEndsAt, agreed: true } : null;
  const proposed = windows.get(r.id);
  return {
    id: r.id,
    reference: r.reference,
    organizationId: r.organizationId,
    organizationName: r.organizationName,
    platformKey: r.platformKey,
    platformName: getManagedPlatform(r.platformKey)?.name ?? r.platformKey,
    ownerId: r.ownerId,
    ownerName: r.ownerName,
    targetId: r.targetId,
    targetName: r.targetName,
    status: r.status,
    statusReason: r.status === "on_hold" ? r.statusReason : null,
    statusNote: r.status === "on_hold" ? r.statusNote : null,
    currentStep: r.currentStep,
    stepTitle: stepTitle(r.currentStep),
    party: clock.party,
    waitingSince: clock.paused ? null : r.waitingSince,
    paused: clock.paused,
    dueAt: clock.dueAt,
    risk: clock.risk,
    stale: clock.stale,
    idleDays: clock.idleDays,
    updatedAt: r.updatedAt,
    projectedFinish: clock.projectedFinish,
    nextWindow: agreed ?? (proposed ? { ...proposed, agreed: false } : null),
  };
}

/** Everything the portfolio reads, in one read transaction. */
function readPage(database: Database, filter: PortfolioFilter, now: Date) {
  return readSteps(database, function* (tx) {
    const risk = riskConditions(now, yield* staleDaysByOrganization(tx));
    const open = openWhere(filter);
    const shown = and(open, filter.risk ? risk[filter.risk] : undefined);
    const rank = urgencyRank(risk);
    const options = yield* portfolioOptions(tx);
    const counts = yield* portfolioCounts(tx, open, risk);
    let groups: Portfolio["groups"] = [];
    const order: SQL[] = [];
    if (filter.group !== "none") {
      const key = groupColumn(filter.group, rank);
      const stats = (yield* groupCounts(tx, shown, key, risk)).map((g) => ({ ...g, ...groupLabel(filter.group as Exclude<PortfolioGroup, "none">, g.key, options), raw: g.key }));
      // The risk groups in their own order; others with the most late first, then by name.
      stats.sort((a, b) => (filter.group === "risk" ? Number(a.raw) - Number(b.raw) : b.late - a.late || b.atRisk - a.atRisk || a.label.localeCompare(b.label)));
      groups = stats.map(({ key: k, label, count, late, atRisk }) => ({ key: k, label, count, late, atRisk }));
      if (stats.length > 1) order.push(sql`case ${sql.join(stats.map((g, i) => sql`when ${key} = ${filter.group === "risk" ? Number(g.raw) : g.raw} then ${i}`), sql` `)} else ${stats.length} end`);
    }
    order.push(rank, sql`${engagements.dueAt} is null`, asc(engagements.dueAt), asc(engagements.reference));
    const rows = yield* portfolioPage(tx, shown, order, { limit: filter.pageSize, offset: (filter.page - 1) * filter.pageSize });
    const total = filter.risk ? (yield* portfolioCounts(tx, shown, risk)).open : counts.open;
    return {
      rows,
      total,
      counts,
      groups,
      options,
      windows: yield* nextProposedWindows(tx, rows.map((r) => r.id), now),
      holdReasons: reasonsInWords(yield* reasonCounts(tx, and(open, eq(engagements.status, "on_hold")))),
      cancelReasons: reasonsInWords(yield* reasonCounts(tx, cancelledWhere(filter))),
    };
  });
}

/** The portfolio at `now`: one page, its counts, groups, reasons and filter choices. */
export async function getPortfolio(database: Database, filter: PortfolioFilter, now = new Date()): Promise<Portfolio> {
  const read = await readPage(database, filter, now);
  const { platformKeys, ...options } = read.options;
  return {
    at: now,
    rows: read.rows.map((r) => toRow(r, now, read.windows)),
    total: read.total,
    page: filter.page,
    pageSize: filter.pageSize,
    counts: read.counts,
    holdReasons: read.holdReasons,
    cancelReasons: read.cancelReasons,
    groups: read.groups,
    options: {
      ...options,
      platforms: MANAGED_PLATFORMS.filter((p) => platformKeys.includes(p.key) || p.key === filter.platformKey).map((p) => ({ key: p.key, name: p.name })),
    },
  };
}
