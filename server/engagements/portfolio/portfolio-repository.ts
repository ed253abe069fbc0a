/**
 * The portfolio's reads (the only part of it that touches drizzle). Each open engagement's move
 * carries its deadlines (`due_at`, `at_risk_at`: core/engagements/clocks.ts `moveDeadlines`,
 * stored with every change of whose move it is), so the database counts, filters, groups, orders
 * and pages by risk: a page reads its 50 rows, not every open engagement. Transaction steps.
 */
import { and, asc, count, eq, gt, inArray, isNotNull, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import { engagements, migrationRuns, organizations, serviceTargets, users, windowProposals } from "@/db/schema";
import { q, type Steps, type Tx } from "@/db/database";
import { clockTargetsFor, DEFAULT_CLOCK_TARGETS, type ClockTargetOverrides } from "@/core/engagements/clocks";
import type { PortfolioGroup, PortfolioRiskFilter } from "@/core/engagements/portfolio-schemas";

const e = engagements;
const DAY = 86_400_000;

/** The filters the portfolio applies, at `now`. */
export type PortfolioWhere = { ownerId?: string; organizationId?: string; platformKey?: string; targetId?: string; risk?: PortfolioRiskFilter };

/** The organisations that changed their stale days, by those days (few: most keep the default). */
export function* staleDaysByOrganization(tx: Tx): Steps<Map<number, string[]>> {
  const rows = yield* q.all(tx.select({ id: organizations.id, clockTargets: organizations.clockTargets }).from(organizations).where(isNotNull(organizations.clockTargets)));
  const out = new Map<number, string[]>();
  for (const r of rows) {
    const days = clockTargetsFor(r.clockTargets as ClockTargetOverrides).staleAfterDays;
    if (days !== DEFAULT_CLOCK_TARGETS.staleAfterDays) out.set(days, [...(out.get(days) ?? []), r.id]);
  }
  return out;
}

/** The conditions the risk words stand for at `now` (the same moments `riskOf` decides on). */
export function riskConditions(now: Date, staleDays: Map<number, string[]>) {
  const live = eq(e.status, "active");
  const custom = [...staleDays.values()].flat();
  const staleBefore = (days: number) => new Date(now.getTime() - days * DAY);
  return {
    late: and(live, lt(e.dueAt, now)),
    at_risk: and(live, lt(e.atRiskAt, now), sql`not (${lt(e.dueAt, now)})`),
    on_pace: and(live, sql`not (${lt(e.atRiskAt, now)})`),
    on_hold: eq(e.status, "on_hold"),
    stale: or(
      and(custom.length ? sql`not (${inArray(e.organizationId, custom)})` : undefined, lt(e.updatedAt, staleBefore(DEFAULT_CLOCK_TARGETS.staleAfterDays))),
      ...[...staleDays].map(([days, ids]) => and(inArray(e.organizationId, ids), lt(e.updatedAt, staleBefore(days)))),
    ),
  } satisfies Record<PortfolioRiskFilter, SQL | undefined>;
}
export type RiskConditions = ReturnType<typeof riskConditions>;

/** Open engagements the filters other than risk let through. */
export function openWhere(where: PortfolioWhere): SQL | undefined {
  return and(
    inArray(e.status, ["active", "on_hold"]),
    where.ownerId ? eq(e.ownerId, where.ownerId) : undefined,
    where.organizationId ? eq(e.organizationId, where.organizationId) : undefined,
    where.platformKey ? eq(e.platformKey, where.platformKey) : undefined,
    // "none": engagements without a target yet.
    where.targetId === "none" ? isNull(e.serviceTargetId) : where.targetId ? eq(e.serviceTargetId, where.targetId) : undefined,
  );
}

/** 1 where the condition holds, summed. */
export const countWhere = (condition: SQL | undefined) => sql<number>`coalesce(sum(case when ${condition ?? sql`1 = 0`} then 1 else 0 end), 0)`.mapWith(Number);

/** Every count across the top of the portfolio, in one pass over the open engagements the filters let through. */
export function* portfolioCounts(tx: Tx, where: SQL | undefined, risk: RiskConditions) {
  const row = yield* q.get(
    tx
      .select({
        open: count(),
        late: countWhere(risk.late),
        atRisk: countWhere(risk.at_risk),
        onPace: countWhere(risk.on_pace),
        onHold: countWhere(risk.on_hold),
        stale: countWhere(risk.stale),
        supportsMove: countWhere(and(eq(e.status, "active"), eq(e.waitingOn, "support"))),
        customersMove: countWhere(and(eq(e.status, "active"), eq(e.waitingOn, "customer"))),
      })
      .from(e)
      .where(where),
  );
  return row ?? { open: 0, late: 0, atRisk: 0, onPace: 0, onHold: 0, stale: 0, supportsMove: 0, customersMove: 0 };
}

/** How urgent a row is: late 0, at risk 1, on pace 2, nobody's move 3, on hold 4. */
export function urgencyRank(risk: RiskConditions): SQL<number> {
  return sql<number>`case when ${risk.on_hold} then 4 when ${e.dueAt} is null then 3 when ${risk.late} then 0 when ${risk.at_risk} then 1 else 2 end`.mapWith(Number);
}

/** The column a grouping groups on (the risk group is the urgency rank). */
export function groupColumn(group: Exclude<PortfolioGroup, "none">, rank: SQL<number>): SQL {
  switch (group) {
    case "owner":
      return sql`${e.ownerId}`;
    case "customer":
      return sql`${e.organizationId}`;
    case "platform":
      return sql`${e.platformKey}`;
    case "target":
      return sql<string>`coalesce(${e.serviceTargetId}, 'none')`;
    case "risk":
      return rank;
    default: {
      const never: never = group;
      return never;
    }
  }
}

/** Each group's size, and its late and at risk, for the engagements `where` lets through. */
export function* groupCounts(tx: Tx, where: SQL | undefined, key: SQL, risk: RiskConditions) {
  return yield* q.all(
    tx
      .select({ key: sql<string>`${key}`.mapWith(String), count: count(), late: countWhere(risk.late), atRisk: countWhere(risk.at_risk) })
      .from(e)
      .where(where)
      .groupBy(key),
  );
}

/** One page of rows in the order given, with what each row shows and its clock needs. */
export function* portfolioPage(tx: Tx, where: SQL | undefined, orderBy: SQL[], page: { limit: number; offset: number }) {
  return yield* q.all(
    tx
      .select({
        id: e.id,
        reference: e.reference,
        organizationId: e.organizationId,
        organizationName: organizations.name,
        clockTargets: organizations.clockTargets,
        platformKey: e.platformKey,
        ownerId: e.ownerId,
        ownerName: users.name,
        targetId: e.serviceTargetId,
        targetName: serviceTargets.name,
        status: e.status,
        statusReason: e.statusReason,
        statusNote: e.statusNote,
        currentStep: e.currentStep,
        waitingOn: e.waitingOn,
        waitingSince: e.waitingSince,
        moveCreditMs: e.moveCreditMs,
        pausedMove: e.pausedMove,
        windowStartsAt: e.windowStartsAt,
        windowEndsAt: e.windowEndsAt,
        updatedAt: e.updatedAt,
      })
      .from(e)
      .innerJoin(organizations, eq(organizations.id, e.organizationId))
      .innerJoin(users, eq(users.id, e.ownerId))
      .leftJoin(serviceTargets, eq(serviceTargets.id, e.serviceTargetId))
      .where(where)
      .orderBy(...orderBy)
      .limit(page.limit)
      .offset(page.offset),
  );
}

/** Why the engagements `where` lets through are on hold, or (with status cancelled) were cancelled. */
export function* reasonCounts(tx: Tx, where: SQL | undefined) {
  return yield* q.all(tx.select({ reason: e.statusReason, n: count() }).from(e).where(and(where, isNotNull(e.statusReason))).groupBy(e.statusReason));
}

/** The filters other than risk and status, for the cancelled engagements' reasons. */
export function cancelledWhere(where: PortfolioWhere): SQL | undefined {
  return and(
    eq(e.status, "cancelled"),
    where.ownerId ? eq(e.ownerId, where.ownerId) : undefined,
    where.organizationId ? eq(e.organizationId, where.organizationId) : undefined,
    where.platformKey ? eq(e.platformKey, where.platformKey) : undefined,
    where.targetId === "none" ? isNull(e.serviceTargetId) : where.targetId ? eq(e.serviceTargetId, where.targetId) : undefined,
  );
}

/** The earliest proposed window still to come of each of these engagements that has one. */
export function* nextProposedWindows(tx: Tx, engagementIds: readonly string[], at: Date): Steps<Map<string, { startsAt: Date; endsAt: Date }>> {
  const out = new Map<string, { startsAt: Date; endsAt: Date }>();
  if (!engagementIds.length) return out;
  const rows = yield* q.all(
    tx
      .select({ engagementId: windowProposals.engagementId, startsAt: windowProposals.startsAt, endsAt: windowProposals.endsAt })
      .from(windowProposals)
      .where(and(inArray(windowProposals.engagementId, [...engagementIds]), eq(windowProposals.status, "proposed"), gt(windowProposals.startsAt, at)))
      .orderBy(asc(windowProposals.startsAt)),
  );
  for (const r of rows) if (!out.has(r.engagementId)) out.set(r.engagementId, { startsAt: r.startsAt, endsAt: r.endsAt });
  return out;
}

/** Every organisation, staff member and target a filter can pick, and the platforms in use (small tables). */
export function* portfolioOptions(tx: Tx) {
  const owners = yield* q.all(tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.role, ["support", "admin"])).orderBy(users.name));
  const customers = yield* q.all(tx.select({ id: organizations.id, name: organizations.name }).from(organizations).orderBy(organizations.name));
  const targets = yield* q.all(tx.select({ id: serviceTargets.id, name: serviceTargets.name }).from(serviceTargets).orderBy(serviceTargets.name));
  const platforms = yield* q.all(tx.select({ key: e.platformKey }).from(e).where(inArray(e.status, ["active", "on_hold"])).groupBy(e.platformKey));
  return { owners, customers, targets, platformKeys: platforms.map((p) => p.key) };
}

/** Each staff member's open engagements counted by risk and whose move (one pass, grouped by owner). */
export function* workloadCounts(tx: Tx, risk: RiskConditions) {
  return yield* q.all(
    tx
      .select({
        ownerId: e.ownerId,
        open: count(),
        late: countWhere(risk.late),
        atRisk: countWhere(risk.at_risk),
        onHold: countWhere(risk.on_hold),
        stale: countWhere(risk.stale),
        supportsMove: countWhere(and(eq(e.status, "active"), eq(e.waitingOn, "support"))),
      })
      .from(e)
      .where(inArray(e.status, ["active", "on_hold"]))
      .groupBy(e.ownerId),
  );
}

/** Each owner's runs under way (tests and bulk runs queued, running or paused). */
export function* liveRunsByOwner(tx: Tx) {
  return yield* q.all(
    tx
      .select({ ownerId: e.ownerId, n: count() })
      .from(migrationRuns)
      .innerJoin(e, eq(e.id, migrationRuns.engagementId))
      .where(inArray(migrationRuns.status, ["queued", "running", "paused"]))
      .groupBy(e.ownerId),
  );
}

/** Each owner's windows between `from` and `to`: agreed ones, and proposed ones waiting for an answer. */
export function* windowsByOwner(tx: Tx, from: Date, to: Date) {
  const agreed = yield* q.all(
    tx
      .select({ ownerId: e.ownerId, n: count() })
      .from(e)
      .where(and(inArray(e.status, ["active", "on_hold"]), lt(e.windowStartsAt, to), gt(e.windowEndsAt, from)))
      .groupBy(e.ownerId),
  );
  const proposed = yield* q.all(
    tx
      .select({ ownerId: e.ownerId, n: count() })
      .from(windowProposals)
      .innerJoin(e, eq(e.id, windowProposals.engagementId))
      .where(and(eq(windowProposals.status, "proposed"), inArray(e.status, ["active", "on_hold"]), lt(windowProposals.startsAt, to), gt(windowProposals.endsAt, from)))
      .groupBy(e.ownerId),
  );
  return { agreed, proposed };
}
