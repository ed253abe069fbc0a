/**
 * What the digests tell of what happened, read for many engagements at once (a digest is written
 * for a batch of people in one transaction): runs that finished, with the words the timeline gives
 * them, and connections the hypercare watch found dropped. Each read is one query over the
 * engagements a condition picks (support's own, or a customer organisation's).
 */
import { and, desc, eq, gt, inArray, isNull, lte, or, type SQL } from "drizzle-orm";
import { q, type Steps, type Tx } from "@/db/database";
import { auditEvents, engagements, migrationItems, migrationRuns, watches } from "@/db/schema";
import { describeAuditEvent } from "../timeline";

/** The audited ends of runs, whose words say how each ended. */
const RUN_END_ACTIONS = ["migration.test_finished", "migration.test_cancelled", "migration.bulk_finished", "migration.bulk_cancelled"];

const KIND_WORDS: Record<string, string> = { pilot: "The single-company test", rehearsal: "The rehearsal on the sandbox", bulk: "The bulk migration" };

/** A run that finished: its engagement, when, and how it ended in words. */
export type FinishedRun = { engagementId: string; runId: string; kind: string; finishedAt: Date; words: string };

/** Runs of the engagements `which` picks that finished after `since` (up to `now`), oldest first. */
export function* finishedRuns(tx: Tx, which: SQL | undefined, since: Date, now: Date): Steps<FinishedRun[]> {
  const runs = yield* q.all(
    tx
      .select({ engagementId: migrationRuns.engagementId, runId: migrationRuns.id, kind: migrationRuns.kind, status: migrationRuns.status, finishedAt: migrationRuns.finishedAt })
      .from(migrationRuns)
      .innerJoin(engagements, eq(engagements.id, migrationRuns.engagementId))
      .where(and(which, gt(migrationRuns.finishedAt, since), lte(migrationRuns.finishedAt, now)))
      .orderBy(migrationRuns.finishedAt),
  );
  if (!runs.length) return [];
  // The latest audited end of each (a bulk run resumed after it finished ends again).
  const ends = yield* q.all(
    tx
      .select({ targetId: auditEvents.targetId, action: auditEvents.action, before: auditEvents.before, after: auditEvents.after })
      .from(auditEvents)
      .where(and(eq(auditEvents.targetType, "migration_run"), inArray(auditEvents.targetId, runs.map((r) => r.runId)), inArray(auditEvents.action, RUN_END_ACTIONS)))
      .orderBy(desc(auditEvents.id)),
  );
  const words = new Map<string, string>();
  for (const e of ends) if (!words.has(e.targetId)) words.set(e.targetId, describeAuditEvent(e));
  return runs.map((r) => ({
    engagementId: r.engagementId,
    runId: r.runId,
    kind: r.kind,
    finishedAt: r.finishedAt!,
    words: words.get(r.runId) ?? `${KIND_WORDS[r.kind] ?? "A run"} ended: ${r.status.replace(/_/g, " ")}`,
  }));
}

/** A migrated connection the watch found dropped: its engagement, company and when. */
export type Drop = { engagementId: string; name: string; droppedAt: Date };

/**
 * Connections of the engagements `which` picks that the watch found dropped after `since`: the
 * engagements watched now (or whose watch ended since) first, then only their companies, by the
 * index on (engagement, rehearsal) — never a look through every company of every engagement.
 */
export function* droppedConnections(tx: Tx, which: SQL | undefined, since: Date): Steps<Drop[]> {
  const watched = yield* q.all(
    tx
      .select({ engagementId: watches.engagementId })
      .from(watches)
      .innerJoin(engagements, eq(engagements.id, watches.engagementId))
      .where(and(which, or(eq(watches.status, "watching"), gt(watches.endedAt, since)))),
  );
  if (!watched.length) return [];
  const rows = yield* q.all(
    tx
      .select({ engagementId: migrationItems.engagementId, name: migrationItems.name, droppedAt: migrationItems.droppedAt })
      .from(migrationItems)
      .where(and(inArray(migrationItems.engagementId, watched.map((w) => w.engagementId)), isNull(migrationItems.rehearsalRunId), gt(migrationItems.droppedAt, since)))
      .orderBy(migrationItems.droppedAt),
  );
  return rows.map((r) => ({ ...r, droppedAt: r.droppedAt! }));
}
