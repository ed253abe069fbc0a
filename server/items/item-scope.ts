/**
 * Which migration items a query is about. A rehearsal adds simulated companies to the same table
 * (so the same pipeline runs them), marked with the rehearsal's run; every query about the
 * customer's real migration (counts, step 4's risk, the bulk run, the handover, the purge) goes
 * through `realItems`, so a rehearsal can never be counted, migrated or reported as real.
 */
import { and, eq, isNull, type SQL } from "drizzle-orm";
import { migrationItems } from "@/db/schema";

/** The customer's real items of an engagement (no rehearsal items), with any further conditions. */
export function realItems(engagementId: string, ...more: (SQL | undefined)[]): SQL | undefined {
  return and(eq(migrationItems.engagementId, engagementId), isNull(migrationItems.rehearsalRunId), ...more);
}

/** The simulated items of one rehearsal run. */
export function rehearsalItems(runId: string, ...more: (SQL | undefined)[]): SQL | undefined {
  return and(eq(migrationItems.rehearsalRunId, runId), ...more);
}
