/**
 * The reconciliation's one query (the only part of it that touches drizzle): every count of an
 * engagement's real companies in one pass over its items, and the single-company test's company.
 *
 * How far a company got (created, linked, synced) is the database's own `reached` column, computed
 * from what the engine stored (see its description in db/schema-description.ts) and kept in the
 * real-state index with the state: the counts are read from that index alone, so the bulk panel's
 * poll costs milliseconds at 100,000 companies rather than a pass over every row and its JSON.
 */
import { count, eq, sql } from "drizzle-orm";
import { migrationItems } from "@/db/schema";
import { q, type Steps, type Tx } from "@/db/database";
import { realItems } from "@/server/items/item-scope";
import { passedPilotItem } from "./engine/run-repository";
import { countsByState, type MigrationItemState } from "@/core/migration/states";

const i = migrationItems;

/**
 * `reached` packs three marks into one number (1 created, 2^17 linked, 2^34 synced), so one sum over
 * a group of fewer than 2^17 companies holds its three counts, each in its own 17 bits; a larger
 * group (more companies in one state than any token file holds) is counted mark by mark.
 */
const FIELD = 2 ** 17;
const markOf = (mark: 0 | 1 | 2) => sql<number>`sum((${i.reached} / ${sql.raw(String(FIELD ** mark))}) % ${sql.raw(String(FIELD))})`.mapWith(Number);

/** The three counts held in a sum of `reached` over `n` companies, when n < 2^17. */
export function unpackReached(sum: number): { created: number; linked: number; synced: number } {
  return { created: sum % FIELD, linked: Math.floor(sum / FIELD) % FIELD, synced: Math.floor(sum / FIELD ** 2) };
}

export type ReconciliationCounts = {
  supplied: number;
  created: number;
  linked: number;
  synced: number;
  verified: number;
  reconnectPending: number;
  reauthRequired: number;
  setAside: number;
  failed: number;
};

/** The engagement's real companies per state, and the reconciliation's counts, from one statement. */
export type RealProgress = { byState: Record<MigrationItemState, number>; counts: ReconciliationCounts };

/**
 * Every count of the engagement's real companies, in one statement (a transaction step; see
 * reconcile): per state, how many and how many of them were created, linked and synced — a pass
 * over the real-state index in its order, so no sort — added up here.
 */
export function* realProgress(tx: Tx, engagementId: string, options: { fieldSize?: number } = {}): Steps<RealProgress> {
  const rows = yield* q.all(
    tx
      .select({ state: i.state, n: count(), reached: sql<number>`sum(${i.reached})`.mapWith(Number) })
      .from(migrationItems)
      .where(realItems(engagementId))
      .groupBy(i.state),
  );
  const byState = countsByState(rows);
  const totals = { supplied: 0, created: 0, linked: 0, synced: 0 };
  for (const r of rows) {
    const marks = r.n < (options.fieldSize ?? FIELD) ? unpackReached(r.reached) : yield* marksOneByOne(tx, engagementId, r.state);
    totals.supplied += r.n;
    totals.created += marks.created;
    totals.linked += marks.linked;
    totals.synced += marks.synced;
  }
  return {
    byState,
    counts: {
      ...totals,
      verified: byState.verified,
      reconnectPending: byState.reconnect_pending,
      reauthRequired: byState.reauth_required,
      setAside: byState.set_aside,
      failed: byState.failed,
    },
  };
}

/** The marks of one state's companies counted one mark at a time (a group too large to unpack). */
function* marksOneByOne(tx: Tx, engagementId: string, state: MigrationItemState): Steps<{ created: number; linked: number; synced: number }> {
  const row = yield* q.get(
    tx
      .select({ created: markOf(0), linked: markOf(1), synced: markOf(2) })
      .from(migrationItems)
      .where(realItems(engagementId, eq(i.state, state))),
  );
  return { created: row?.created ?? 0, linked: row?.linked ?? 0, synced: row?.synced ?? 0 };
}

/** The reconciliation's counts alone (see realProgress). */
export function* reconciliationCounts(tx: Tx, engagementId: string): Steps<ReconciliationCounts> {
  return (yield* realProgress(tx, engagementId)).counts;
}

/** The company of the engagement's passed single-company test, if there is one. */
export function* reconciliationPilot(tx: Tx, engagementId: string): Steps<{ name: string; state: MigrationItemState } | null> {
  const pilot = yield* passedPilotItem(tx, engagementId);
  return pilot ? { name: pilot.name, state: pilot.state } : null;
}
