/**
 * The reconciliation's one query (the only part of it that touches drizzle): every count of an
 * engagement's real companies in one pass over its items, and the single-company test's company.
 *
 * How far a company got is read from what the engine stored, not only from its state now, since a
 * company that ended reauthorization required, failed or set aside may have been linked or synced
 * on the way (and one the watch found dropped was verified before):
 * - created: it has a companyId;
 * - linked: it is authorized or further on, its stored connection check says Linked, or it was
 *   dropped or reconnected after a verification;
 * - synced: it is verified (or was: dropped, reconnected), or its sync finished and did not fail
 *   it (a data type in error fails it at getDataStatus; an AuthError there needs reauthorization).
 */
import { sql, type AnyColumn, type SQL } from "drizzle-orm";
import { migrationItems } from "@/db/schema";
import { q, type Steps, type Tx } from "@/db/database";
import { realItems } from "@/server/items/item-scope";
import { passedPilotItem } from "./engine/run-repository";
import type { MigrationItemState } from "@/core/migration/states";

const i = migrationItems;

/** 1 for each item the condition holds for; 0 on an engagement without items. */
const countWhere = (condition: SQL) => sql<number>`coalesce(sum(case when ${condition} then 1 else 0 end), 0)`.mapWith(Number);
const inState = (...states: MigrationItemState[]) => sql.join(states.map((s) => sql`${i.state} = ${s}`), sql` or `);
const wasVerified = sql`(${i.droppedAt} is not null or ${i.reconnectedAt} is not null)`;

/**
 * The text at `key`.`field` of a JSON column: `column -> 'key' ->> 'field'`, which SQLite (3.38
 * and later) and PostgreSQL's jsonb both read alike (null when either is missing).
 */
const jsonText = (column: AnyColumn, key: string, field?: string) => {
  const literal = (name: string) => {
    if (!/^\w+$/.test(name)) throw new Error(`Not a JSON key this helper quotes: ${name}`);
    return sql.raw(`'${name}'`);
  };
  return field === undefined ? sql`${column} ->> ${literal(key)}` : sql`${column} -> ${literal(key)} ->> ${literal(field)}`;
};

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

/** Every count of the engagement's real companies, in one statement (a transaction step; see reconcile). */
export function* reconciliationCounts(tx: Tx, engagementId: string): Steps<ReconciliationCounts> {
  const row = yield* q.get(
    tx
      .select({
        supplied: sql<number>`count(*)`.mapWith(Number),
        created: countWhere(sql`${i.companyId} is not null`),
        // The cheap tests first: most companies are verified, and their checks need not be read.
        linked: countWhere(
          sql`${inState("authorized", "sync_requested", "verified")} or ${wasVerified} or ${jsonText(i.checks, "connection", "status")} = 'Linked'`,
        ),
        synced: countWhere(
          sql`${inState("verified")} or ${wasVerified} or (${jsonText(i.checks, "sync", "finishedAt")} is not null and not ((${inState("failed", "reauth_required", "reconnect_pending")}) and ${jsonText(i.lastError, "operation")} = 'getDataStatus'))`,
        ),
        verified: countWhere(inState("verified")),
        reconnectPending: countWhere(inState("reconnect_pending")),
        reauthRequired: countWhere(inState("reauth_required")),
        setAside: countWhere(inState("set_aside")),
        failed: countWhere(inState("failed")),
      })
      .from(migrationItems)
      .where(realItems(engagementId)),
  );
  return row ?? { supplied: 0, created: 0, linked: 0, synced: 0, verified: 0, reconnectPending: 0, reauthRequired: 0, setAside: 0, failed: 0 };
}

/** The company of the engagement's passed single-company test, if there is one. */
export function* reconciliationPilot(tx: Tx, engagementId: string): Steps<{ name: string; state: MigrationItemState } | null> {
  const pilot = yield* passedPilotItem(tx, engagementId);
  return pilot ? { name: pilot.name, state: pilot.state } : null;
}
