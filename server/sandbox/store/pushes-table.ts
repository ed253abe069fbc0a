/** `push_operations`: writes, planned when created and resolved on the sandbox clock. */
import type Database from "better-sqlite3";

export type PushOutcome = "Success" | "Failed" | "TimedOut";

export type PushValidation = { errors: { itemId: string; message: string; validatorName: string }[]; warnings: [] };

export type PushRow = {
  key: string;
  companyId: string;
  connectionId: string;
  dataType: string;
  requestedAt: number;
  resolvesAt: number;
  outcome: PushOutcome;
  statusCode: number;
  platformStatusCode: number;
  errorMessage: string | null;
  validation: PushValidation | null;
  timeoutMinutes: number | null;
  recordId: string | null;
  settled: number;
};

type RawPush = Omit<PushRow, "validation"> & { validation: string | null };

const COLUMNS = `key, company_id AS companyId, connection_id AS connectionId, data_type AS dataType,
  requested_at AS requestedAt, resolves_at AS resolvesAt, outcome, status_code AS statusCode,
  platform_status_code AS platformStatusCode, error_message AS errorMessage, validation,
  timeout_minutes AS timeoutMinutes, record_id AS recordId, settled`;

function toRow(raw: RawPush): PushRow {
  return { ...raw, validation: raw.validation === null ? null : (JSON.parse(raw.validation) as PushValidation) };
}

/** The push_operations table's repository. */
export function createPushesTable(db: Database.Database) {
  const s = {
    insert: db.prepare<Omit<RawPush, "settled">>(
      `INSERT INTO push_operations (key, company_id, connection_id, data_type, requested_at, resolves_at, outcome,
        status_code, platform_status_code, error_message, validation, timeout_minutes, record_id)
       VALUES (@key, @companyId, @connectionId, @dataType, @requestedAt, @resolvesAt, @outcome,
        @statusCode, @platformStatusCode, @errorMessage, @validation, @timeoutMinutes, @recordId)`,
    ),
    get: db.prepare<{ key: string }, RawPush>(`SELECT ${COLUMNS} FROM push_operations WHERE key = @key`),
    byCompany: db.prepare<{ companyId: string }, RawPush>(
      `SELECT ${COLUMNS} FROM push_operations WHERE company_id = @companyId ORDER BY requested_at, rowid`,
    ),
    due: db.prepare<{ now: number }, RawPush>(
      `SELECT ${COLUMNS} FROM push_operations WHERE settled = 0 AND resolves_at <= @now ORDER BY resolves_at, rowid`,
    ),
    settle: db.prepare<{ key: string }>("UPDATE push_operations SET settled = 1 WHERE key = @key"),
    deleteByConnection: db.prepare<{ connectionId: string }>("DELETE FROM push_operations WHERE connection_id = @connectionId"),
  };
  return {
    insert: (row: Omit<PushRow, "settled">): void => {
      s.insert.run({
        key: row.key,
        companyId: row.companyId,
        connectionId: row.connectionId,
        dataType: row.dataType,
        requestedAt: row.requestedAt,
        resolvesAt: row.resolvesAt,
        outcome: row.outcome,
        statusCode: row.statusCode,
        platformStatusCode: row.platformStatusCode,
        errorMessage: row.errorMessage,
        validation: row.validation === null ? null : JSON.stringify(row.validation),
        timeoutMinutes: row.timeoutMinutes,
        recordId: row.recordId,
      });
    },
    get: (key: string): PushRow | undefined => {
      const raw = s.get.get({ key });
      return raw && toRow(raw);
    },
    listByCompany: (companyId: string): PushRow[] => s.byCompany.all({ companyId }).map(toRow),
    due: (now: number): PushRow[] => s.due.all({ now }).map(toRow),
    markSettled: (key: string): void => {
      s.settle.run({ key });
    },
    deleteByConnection: (connectionId: string): void => {
      s.deleteByConnection.run({ connectionId });
    },
  };
}
