/**
 * `pull_operations`: syncs, planned when queued. Progress is derived from the planned phase times
 * and the sandbox clock; `settled` marks that the outcome's side effects have been applied.
 */
import type Database from "better-sqlite3";

export type PullOutcome = "Complete" | "FetchError" | "AuthError" | "NotSupported";

/**
 * `complete_at` of a held operation (its client's syncs are held): the latest time a JavaScript
 * Date holds, later than any sandbox time, so every "still running" check (now < completeAt) holds
 * for it and it never falls due; the release control sets its real end.
 */
export const HELD_UNTIL = 8_640_000_000_000_000;

export type PullRow = {
  id: string;
  companyId: string;
  connectionId: string;
  tenantId: string | null;
  dataType: string;
  requestedAt: number;
  fetchAt: number;
  completeAt: number;
  outcome: PullOutcome;
  errorMessage: string | null;
  records: number;
  settled: number;
};

const COLUMNS = `id, company_id AS companyId, connection_id AS connectionId, tenant_id AS tenantId,
  data_type AS dataType, requested_at AS requestedAt, fetch_at AS fetchAt, complete_at AS completeAt, outcome,
  error_message AS errorMessage, records, settled`;

/** The pull_operations table's repository. */
export function createPullsTable(db: Database.Database) {
  const s = {
    insert: db.prepare<PullRow>(
      `INSERT INTO pull_operations (id, company_id, connection_id, tenant_id, data_type, requested_at, fetch_at,
        complete_at, outcome, error_message, records, settled)
       VALUES (@id, @companyId, @connectionId, @tenantId, @dataType, @requestedAt, @fetchAt,
        @completeAt, @outcome, @errorMessage, @records, @settled)`,
    ),
    get: db.prepare<{ id: string }, PullRow>(`SELECT ${COLUMNS} FROM pull_operations WHERE id = @id`),
    byCompany: db.prepare<{ companyId: string }, PullRow>(
      `SELECT ${COLUMNS} FROM pull_operations WHERE company_id = @companyId ORDER BY requested_at, rowid`,
    ),
    due: db.prepare<{ now: number }, PullRow>(
      `SELECT ${COLUMNS} FROM pull_operations WHERE settled = 0 AND complete_at <= @now ORDER BY complete_at, rowid`,
    ),
    settle: db.prepare<{ id: string }>("UPDATE pull_operations SET settled = 1 WHERE id = @id"),
    pendingForTenant: db.prepare<{ tenantId: string; now: number }, PullRow>(
      `SELECT ${COLUMNS} FROM pull_operations WHERE tenant_id = @tenantId AND settled = 0 AND complete_at > @now`,
    ),
    replan: db.prepare<{ id: string; completeAt: number; outcome: PullOutcome; errorMessage: string | null }>(
      "UPDATE pull_operations SET complete_at = @completeAt, outcome = @outcome, error_message = @errorMessage WHERE id = @id",
    ),
    batch: db.prepare<{ companyId: string; requestedAt: number }, PullRow>(
      `SELECT ${COLUMNS} FROM pull_operations WHERE company_id = @companyId AND requested_at = @requestedAt ORDER BY rowid`,
    ),
    deleteByConnection: db.prepare<{ connectionId: string }>("DELETE FROM pull_operations WHERE connection_id = @connectionId"),
    releaseHeld: db.prepare<{ clientId: string; now: number; held: number }>(
      `UPDATE pull_operations SET complete_at = MAX(fetch_at, @now)
       WHERE settled = 0 AND complete_at = @held AND company_id IN (SELECT id FROM companies WHERE client_id = @clientId)`,
    ),
  };
  return {
    insert: (row: PullRow): void => {
      s.insert.run(row);
    },
    get: (id: string): PullRow | undefined => s.get.get({ id }),
    listByCompany: (companyId: string): PullRow[] => s.byCompany.all({ companyId }),
    due: (now: number): PullRow[] => s.due.all({ now }),
    /** The operations one request queued for the company (they share its time). */
    batch: (params: { companyId: string; requestedAt: number }): PullRow[] => s.batch.all(params),
    markSettled: (id: string): void => {
      s.settle.run({ id });
    },
    pendingForTenant: (params: { tenantId: string; now: number }): PullRow[] => s.pendingForTenant.all(params),
    replan: (params: { id: string; completeAt: number; outcome: PullOutcome; errorMessage: string | null }): void => {
      s.replan.run(params);
    },
    deleteByConnection: (connectionId: string): void => {
      s.deleteByConnection.run({ connectionId });
    },
    /** Ends the client's held operations at `now` (their planned outcome stands); returns how many. */
    releaseHeld: (params: { clientId: string; now: number }): number =>
      s.releaseHeld.run({ ...params, held: HELD_UNTIL }).changes,
  };
}
