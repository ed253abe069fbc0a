/**
 * What the waiting rule reads of an engagement, in one place for the engagement's page and for
 * refreshing whose move it is after a change: the submission, the proposed windows and, after the
 * bulk run, the handover, the companies waiting for their end customers and a supplementary file.
 */
import { and, count, desc, eq, gt, inArray, isNotNull, ne } from "drizzle-orm";
import { handovers, migrationItems, migrationRuns, supplementaryFiles, supplementaryRows, watches } from "@/db/schema";
import { ACTIVE_RUN_STATUSES, TEST_RUN_KINDS } from "@/core/migration/states";
import type { EngagementStatus } from "@/core/engagements/states";
import { realItems } from "@/server/items/item-scope";
import { q, type Steps, type Tx } from "@/db/database";
import type { StepStates } from "../checklist";
import { findCurrentSubmission } from "../intake/intake-repository";
import { countProposedWindows, unansweredDecline } from "../window/window-repository";
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
      .select({ id: supplementaryFiles.id, status: supplementaryFiles.status })
      .from(supplementaryFiles)
      .where(and(eq(supplementaryFiles.engagementId, engagementId), ne(supplementaryFiles.status, "replaced")))
      .orderBy(desc(supplementaryFiles.submittedAt)),
  );
  // Companies waiting for their end customers whose fresh tokens are in the file support has yet to review.
  const inReview =
    supplementary?.status === "submitted" && pending > 0
      ? ((yield* q.get(
          tx
            .select({ n: count() })
            .from(supplementaryRows)
            .innerJoin(migrationItems, eq(migrationItems.id, supplementaryRows.itemId))
            .where(and(eq(supplementaryRows.fileId, supplementary.id), eq(migrationItems.state, "reconnect_pending"))),
        ))?.n ?? 0)
      : 0;
  return {
    unseenDrops: yield* countUnseenDrops(tx, engagementId),
    bulkRunEnded: run?.status === "completed" || run?.status === "cancelled",
    handover: handover ? { acknowledged: handover.acknowledgedAt !== null } : null,
    reconnectPending: pending,
    supplementary: supplementary?.status ?? null,
    freshTokensInReview: inReview,
  };
}

/** The engagement's real companies the watch found dropped since support last marked the drops seen. */
export function* countUnseenDrops(tx: Tx, engagementId: string): Steps<number> {
  const watch = yield* q.get(tx.select({ seen: watches.dropsSeenAt, drops: watches.drops }).from(watches).where(eq(watches.engagementId, engagementId)));
  // Only an engagement whose watch found drops reads its companies (every change asks this).
  if (!watch || watch.drops === 0) return 0;
  const seen = watch.seen;
  const row = yield* q.get(
    tx
      .select({ n: count() })
      .from(migrationItems)
      .where(realItems(engagementId, seen ? gt(migrationItems.droppedAt, seen) : isNotNull(migrationItems.droppedAt))),
  );
  return row?.n ?? 0;
}

/** Everything the waiting rule reads, for an engagement in `status` with its steps in `states`. */
export function* loadWaitingInput(tx: Tx, eng: { id: string; status: EngagementStatus }, states: StepStates): Steps<WaitingInput> {
  return {
    status: eng.status,
    states,
    submission: (yield* findCurrentSubmission(tx, eng.id))?.status ?? null,
    proposedWindows: yield* countProposedWindows(tx, eng.id),
    windowDecline: yield* loadWindowDecline(tx, eng.id),
    testUnderWay: yield* loadTestUnderWay(tx, eng.id),
    lastMile: yield* loadLastMile(tx, eng.id),
  };
}

/** The customer's decline support has not answered yet (see WaitingInput.windowDecline). */
function* loadWindowDecline(tx: Tx, engagementId: string): Steps<WaitingInput["windowDecline"]> {
  const d = yield* unansweredDecline(tx, engagementId);
  return d ? { reason: d.reason, suggested: d.suggested.length } : null;
}

/** A single-company test or rehearsal still under way (queued or running), or null. */
function* loadTestUnderWay(tx: Tx, engagementId: string): Steps<WaitingInput["testUnderWay"]> {
  const run = yield* q.get(
    tx
      .select({ kind: migrationRuns.kind, status: migrationRuns.status })
      .from(migrationRuns)
      .where(and(eq(migrationRuns.engagementId, engagementId), inArray(migrationRuns.kind, [...TEST_RUN_KINDS]), inArray(migrationRuns.status, [...ACTIVE_RUN_STATUSES])))
      .orderBy(desc(migrationRuns.requestedAt)),
  );
  if (!run || run.kind === "bulk") return null;
  return { kind: run.kind, queued: run.status === "queued" };
}
