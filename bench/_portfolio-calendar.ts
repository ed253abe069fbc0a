/**
 * The window calendar's part of the portfolio bench (issue 30, item 3): a month of everyone's
 * windows, with the overlap check per target, through the tRPC caller, against the named baseline
 * "load-everything": every window with its engagement, organisation, owner and target, filtered to
 * the month in JavaScript and checked for overlaps. Called by bench/portfolio.ts on its seeded data.
 */
import { eq } from "drizzle-orm";
import { engagements, organizations, serviceTargets, users, windowProposals } from "@/db/schema";
import { REAL_SERVICE_LIMITS } from "@/server/intake";
import { findOverlaps } from "@/server/engagements/calendar/window-overlap";
import type { callerAs } from "@/server/testing/caller";
import type { createTestDb } from "@/server/testing/test-db";

type Caller = ReturnType<typeof callerAs>;
type Timer = (fn: () => Promise<unknown> | unknown) => Promise<number>;

/** Gives the seeded windows the estimate figures proposing stores, and a few targets known limits (so some windows overlap). */
export function prepareCalendar(t: ReturnType<typeof createTestDb>): void {
  const sqlite = t.db.$client;
  sqlite.exec("update window_proposals set estimate_companies = 20 + (abs(random()) % 400), estimate_requests = 0");
  sqlite.exec("update window_proposals set estimate_requests = estimate_companies * 12");
  sqlite.exec("update service_targets set requests_per_minute = 20 where rowid % 3 = 0");
}

export async function benchCalendar(t: ReturnType<typeof createTestDb>, caller: Caller, time: Timer): Promise<{ month: number; base: number; windows: number; flagged: number }> {
  const day = new Date().toISOString().slice(0, 10);
  const month = () => caller.calendar.get({ view: "month", scope: "everyone", day });
  const sample = await month();
  const loadEverything = () => {
    const from = sample.from.getTime();
    const to = sample.to.getTime();
    const rows = t.db
      .select({ w: windowProposals, e: engagements, org: organizations, owner: users, target: serviceTargets })
      .from(windowProposals)
      .innerJoin(engagements, eq(engagements.id, windowProposals.engagementId))
      .innerJoin(organizations, eq(organizations.id, engagements.organizationId))
      .innerJoin(users, eq(users.id, engagements.ownerId))
      .leftJoin(serviceTargets, eq(serviceTargets.id, engagements.serviceTargetId))
      .all()
      .filter((r) => (r.w.status === "proposed" || r.w.status === "accepted") && r.e.status !== "cancelled" && r.w.startsAt.getTime() < to && r.w.endsAt.getTime() > from);
    return findOverlaps(
      rows.map((r) => ({ id: r.w.id, engagementId: r.e.id, targetKey: r.e.serviceTargetId ?? "sandbox", startsAt: r.w.startsAt, endsAt: r.w.endsAt, requests: r.w.estimateRequests, companies: r.w.estimateCompanies })),
      () => REAL_SERVICE_LIMITS,
    );
  };
  const ferry = await time(month);
  const base = await time(loadEverything);
  return { month: ferry, base, windows: sample.windows.length, flagged: sample.flagged };
}
