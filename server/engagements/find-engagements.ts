/** The engagement list: filtered, searched, paged, with counts per step. */
import { readSteps } from "@/db/database";
import type { Database } from "@/db/database";
import { getManagedPlatform } from "@/server/platforms";
import type { Actor } from "@/core/accounts/actor";
import { isStaff } from "./checklist";
import { queryEngagementPage } from "./engagement-repository";
import type { EngagementList, EngagementListFilter } from "@/core/engagements/schemas";
import { ALL_STEPS_DONE, STEP_NUMBERS } from "@/core/engagements/states";

/**
 * One page of engagements, newest activity first, with counts per step. Customers only ever see
 * their own organisation's, whatever the filter says.
 */
export async function findEngagements(database: Database, actor: Actor, filter: EngagementListFilter): Promise<EngagementList> {
  const organizationId = isStaff(actor.role) ? filter.organizationId : (actor.organizationId ?? "\u0000none");
  const { rows, total, byStep } = await readSteps(database, (tx) => queryEngagementPage(tx, { ...filter, organizationId }));
  const countsByStep: Record<string, number> = Object.fromEntries([...STEP_NUMBERS, ALL_STEPS_DONE].map((s) => [String(s), 0]));
  for (const r of byStep) countsByStep[String(r.step)] = r.n;
  return {
    items: rows.map((r) => ({ ...r, platformName: getManagedPlatform(r.platformKey)?.name ?? r.platformKey })),
    total,
    page: filter.page,
    pageSize: filter.pageSize,
    countsByStep,
  };
}
