/**
 * The portfolio's reads (the only part of it that touches drizzle): every open engagement with
 * what its clock needs, its organisation's targets and its next window; the reasons cancelled
 * engagements were cancelled for. Transaction steps (see db/database.ts).
 */
import { and, asc, count, eq, gt, inArray, isNotNull, isNull, type SQL } from "drizzle-orm";
import { engagements, organizations, serviceTargets, users, windowProposals } from "@/db/schema";
import { q, type Steps, type Tx } from "@/db/database";

/** The filters the database applies (risk needs the clock, so it is applied after). */
export type PortfolioWhere = { ownerId?: string; organizationId?: string; platformKey?: string; targetId?: string };

function conditions(where: PortfolioWhere): (SQL | undefined)[] {
  return [
    where.ownerId ? eq(engagements.ownerId, where.ownerId) : undefined,
    where.organizationId ? eq(engagements.organizationId, where.organizationId) : undefined,
    where.platformKey ? eq(engagements.platformKey, where.platformKey) : undefined,
    // "none": engagements without a target yet.
    where.targetId === "none" ? isNull(engagements.serviceTargetId) : where.targetId ? eq(engagements.serviceTargetId, where.targetId) : undefined,
  ];
}

/** Open (active and on hold) engagements the filters let through, with their clocks' inputs. */
export function* openEngagements(tx: Tx, where: PortfolioWhere) {
  return yield* q.all(
    tx
      .select({
        id: engagements.id,
        reference: engagements.reference,
        organizationId: engagements.organizationId,
        organizationName: organizations.name,
        clockTargets: organizations.clockTargets,
        platformKey: engagements.platformKey,
        ownerId: engagements.ownerId,
        ownerName: users.name,
        targetId: engagements.serviceTargetId,
        targetName: serviceTargets.name,
        status: engagements.status,
        statusReason: engagements.statusReason,
        statusNote: engagements.statusNote,
        currentStep: engagements.currentStep,
        waitingOn: engagements.waitingOn,
        waitingSince: engagements.waitingSince,
        moveCreditMs: engagements.moveCreditMs,
        pausedMove: engagements.pausedMove,
        windowStartsAt: engagements.windowStartsAt,
        windowEndsAt: engagements.windowEndsAt,
        updatedAt: engagements.updatedAt,
      })
      .from(engagements)
      .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
      .innerJoin(users, eq(users.id, engagements.ownerId))
      .leftJoin(serviceTargets, eq(serviceTargets.id, engagements.serviceTargetId))
      .where(and(inArray(engagements.status, ["active", "on_hold"]), ...conditions(where))),
  );
}

/** The earliest proposed window still to come of each engagement that has one. */
export function* nextProposedWindows(tx: Tx, at: Date): Steps<Map<string, { startsAt: Date; endsAt: Date }>> {
  // Proposals waiting for an answer are few (a handful per engagement in step 2).
  const rows = yield* q.all(
    tx
      .select({ engagementId: windowProposals.engagementId, startsAt: windowProposals.startsAt, endsAt: windowProposals.endsAt })
      .from(windowProposals)
      .innerJoin(engagements, eq(engagements.id, windowProposals.engagementId))
      .where(and(eq(windowProposals.status, "proposed"), gt(windowProposals.startsAt, at), inArray(engagements.status, ["active", "on_hold"])))
      .orderBy(asc(windowProposals.startsAt)),
  );
  const out = new Map<string, { startsAt: Date; endsAt: Date }>();
  for (const r of rows) if (!out.has(r.engagementId)) out.set(r.engagementId, { startsAt: r.startsAt, endsAt: r.endsAt });
  return out;
}

/** How many cancelled engagements the filters let through were cancelled for each reason. */
export function* cancelReasonCounts(tx: Tx, where: PortfolioWhere) {
  return yield* q.all(
    tx
      .select({ reason: engagements.statusReason, n: count() })
      .from(engagements)
      .where(and(eq(engagements.status, "cancelled"), isNotNull(engagements.statusReason), ...conditions(where)))
      .groupBy(engagements.statusReason),
  );
}

/** Every organisation, staff member and target a filter can pick (small tables). */
export function* portfolioOptions(tx: Tx) {
  const owners = yield* q.all(tx.select({ id: users.id, name: users.name }).from(users).where(inArray(users.role, ["support", "admin"])).orderBy(users.name));
  const customers = yield* q.all(tx.select({ id: organizations.id, name: organizations.name }).from(organizations).orderBy(organizations.name));
  const targets = yield* q.all(tx.select({ id: serviceTargets.id, name: serviceTargets.name }).from(serviceTargets).orderBy(serviceTargets.name));
  return { owners, customers, targets };
}
