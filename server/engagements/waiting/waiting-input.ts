/**
 * What the waiting rule reads of an engagement, in one place for the engagement's page and for
 * refreshing whose move it is after a change: the submission, the proposed windows and, after the
 * bulk run, the handover, the companies waiting for their end customers and a supplementary file.
 */
import { and, count, desc, eq, ne } from "drizzle-orm";
import { handovers, migrationItems, migrationRuns, supplementaryFiles } from "@/db/schema";
import type { EngagementStatus } from "@/core/engagements/states";
import { realItems } from "@/server/items/item-scope";
import { q, type Steps, type Tx } from "@/db/database";
import type { StepStates } from "../checklist";
import { findCurrentSubmission } from "../intake/intake-repository";
import { countProposedWindows } from "../window/window-repository";
import type { LastMile, WaitingInput } from "./waiting-rule";

/** The last mile's facts (see LastMile). */
export function* loadLastMile(tx: Tx, engagementId: string): Steps<LastMile> {
  const run = yield* q.get(
    tx
      .select({ status: migrationRuns.status })
      .from(migrationRuns)
      .where(and(eq(migrationRuns.engagementId, engagementId), eq(migrationRuns.kind, "bulk")))
      .orderBy(desc(migrationRuns.requestedAt)),
  );
  const handover = yield* q.get(tx.select({ acknowledgedAt: handovers.acknowledgedAt }).from(handovers).where(eq(handovers.engagementId, engagementId)));
  const pending = (yield* q.get(tx.select({ n: count() }).from(migrationItems).where(realItems(engagementId, eq(migrationItems.state, "reconnect_pending")))))?.n ?? 0;
  const supplementary = yield* q.get(
    tx
      .select({ status: supplementaryFiles.status })
      .from(supplementaryFiles)
      .where(and(eq(supplementaryFiles.engagementId, engagementId), ne(supplementaryFiles.status, "replaced")))
      .orderBy(desc(supplementaryFiles.submittedAt)),
  );
  return {
    bulkRunEnded: run?.status === "completed" || run?.status === "cancelled",
    handover: handover ? { acknowledged: handover.acknowledgedAt !== null } : null,
    reconnectPending: pending,
    supplementary: supplementary?.status ?? null,
  };
}

/** Everything the waiting rule reads, for an engagement in `status` with its steps in `states`. */
export function* loadWaitingInput(tx: Tx, eng: { id: string; status: EngagementStatus }, states: StepStates): Steps<WaitingInput> {
  return {
    status: eng.status,
    states,
    submission: (yield* findCurrentSubmission(tx, eng.id))?.status ?? null,
    proposedWindows: yield* countProposedWindows(tx, eng.id),
    lastMile: yield* loadLastMile(tx, eng.id),
  };
}
