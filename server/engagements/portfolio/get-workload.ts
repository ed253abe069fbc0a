/**
 * The team's workload: for each staff member, their open engagements counted by risk (the
 * portfolio's clocks), support's moves among them, runs under way, and windows in the next seven
 * days. Counted in the database, grouped by owner; the people who own nothing are listed too, so
 * work can be handed to them.
 */
import { inArray } from "drizzle-orm";
import { readSteps, q, type Database } from "@/db/database";
import { users } from "@/db/schema";
import type { Workload } from "@/core/engagements/portfolio-schemas";
import { liveRunsByOwner, riskConditions, staleDaysByOrganization, windowsByOwner, workloadCounts } from "./portfolio-repository";

const WEEK = 7 * 86_400_000;

export async function getWorkload(database: Database, now = new Date()): Promise<Workload> {
  const weekEndsAt = new Date(now.getTime() + WEEK);
  const read = await readSteps(database, function* (tx) {
    const risk = riskConditions(now, yield* staleDaysByOrganization(tx));
    const staff = yield* q.all(
      tx.select({ id: users.id, name: users.name, role: users.role, active: users.active }).from(users).where(inArray(users.role, ["support", "admin"])).orderBy(users.name),
    );
    return { staff, counts: yield* workloadCounts(tx, risk), runs: yield* liveRunsByOwner(tx), windows: yield* windowsByOwner(tx, now, weekEndsAt) };
  });
  const byOwner = <T extends { ownerId: string }>(rows: T[]) => new Map(rows.map((r) => [r.ownerId, r]));
  const counts = byOwner(read.counts);
  const runs = byOwner(read.runs);
  const agreed = byOwner(read.windows.agreed);
  const proposed = byOwner(read.windows.proposed);
  const people = read.staff
    .map((s) => {
      const c = counts.get(s.id);
      return {
        id: s.id,
        name: s.name,
        role: s.role as "support" | "admin",
        active: s.active,
        open: c?.open ?? 0,
        late: c?.late ?? 0,
        atRisk: c?.atRisk ?? 0,
        onHold: c?.onHold ?? 0,
        stale: c?.stale ?? 0,
        supportsMove: c?.supportsMove ?? 0,
        liveRuns: runs.get(s.id)?.n ?? 0,
        windowsAgreed: agreed.get(s.id)?.n ?? 0,
        windowsProposed: proposed.get(s.id)?.n ?? 0,
      };
    })
    // Deactivated people are listed only while they still own open work (to hand it on).
    .filter((p) => p.active || p.open > 0)
    .sort((a, b) => b.late - a.late || b.open - a.open || a.name.localeCompare(b.name));
  return { at: now, weekEndsAt, people };
}
