/**
 * The calendar's reads and the feed secret's writes (the only part of the calendar that touches
 * drizzle). Transaction steps: `yield*` them in a body, or run them with readSteps.
 */
import { and, asc, eq, gt, inArray, lt, ne } from "drizzle-orm";
import { engagements, organizations, serviceTargets, users, windowProposals } from "@/db/schema";
import { q, type Steps, type Tx } from "@/db/database";

const w = windowProposals;
const e = engagements;

export type CalendarRow = {
  id: string;
  engagementId: string;
  reference: string;
  organizationName: string;
  platformKey: string;
  ownerId: string;
  ownerName: string;
  status: string;
  startsAt: Date;
  endsAt: Date;
  estimateSeconds: number;
  estimateRequests: number | null;
  estimateCompanies: number | null;
  targetId: string | null;
  targetName: string | null;
  targetBuiltIn: boolean | null;
  targetRequestsPerMinute: number | null;
  targetDailyQuota: number | null;
};

/**
 * Windows still in play (proposed or accepted) of engagements not cancelled that meet [from, to),
 * optionally only those of one owner's engagements. Read by the (starts_at, ends_at) index.
 */
export function* windowsMeeting(tx: Tx, range: { from: Date; to: Date }, options: { ownerId?: string; engagementIds?: string[] } = {}): Steps<CalendarRow[]> {
  return yield* q.all(
    tx
      .select({
        id: w.id,
        engagementId: w.engagementId,
        reference: e.reference,
        organizationName: organizations.name,
        platformKey: e.platformKey,
        ownerId: e.ownerId,
        ownerName: users.name,
        status: w.status,
        startsAt: w.startsAt,
        endsAt: w.endsAt,
        estimateSeconds: w.estimateSeconds,
        estimateRequests: w.estimateRequests,
        estimateCompanies: w.estimateCompanies,
        targetId: e.serviceTargetId,
        targetName: serviceTargets.name,
        targetBuiltIn: serviceTargets.builtIn,
        targetRequestsPerMinute: serviceTargets.requestsPerMinute,
        targetDailyQuota: serviceTargets.dailyQuota,
      })
      .from(w)
      .innerJoin(e, eq(e.id, w.engagementId))
      .innerJoin(organizations, eq(organizations.id, e.organizationId))
      .innerJoin(users, eq(users.id, e.ownerId))
      .leftJoin(serviceTargets, eq(serviceTargets.id, e.serviceTargetId))
      .where(
        and(
          lt(w.startsAt, range.to),
          gt(w.endsAt, range.from),
          inArray(w.status, ["proposed", "accepted"]),
          ne(e.status, "cancelled"),
          options.ownerId ? eq(e.ownerId, options.ownerId) : undefined,
          options.engagementIds ? inArray(e.id, options.engagementIds) : undefined,
        ),
      )
      .orderBy(asc(w.startsAt), asc(e.reference)),
  );
}

/** The person's feed secret, encrypted (null before they make one). */
export function* feedTokenOf(tx: Tx, userId: string): Steps<string | null> {
  const row = yield* q.get(tx.select({ token: users.calendarFeedToken }).from(users).where(eq(users.id, userId)));
  return row?.token ?? null;
}

/** Replaces the person's feed secret (its hash for lookup, the secret encrypted). */
export function* setFeedToken(tx: Tx, userId: string, value: { hash: string; cipher: string }): Steps<void> {
  yield* q.run(tx.update(users).set({ calendarFeedHash: value.hash, calendarFeedToken: value.cipher }).where(eq(users.id, userId)));
}

/** Whose feed a secret opens: an active staff member's, or undefined. */
export function* feedOwner(tx: Tx, hash: string) {
  return yield* q.get(
    tx.select({ id: users.id, name: users.name, role: users.role, active: users.active }).from(users).where(eq(users.calendarFeedHash, hash)),
  );
}
