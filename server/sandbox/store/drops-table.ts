/**
 * `connection_drops`: a connection's loss of authorization at its platform (the end customer
 * revoked the app's access or uninstalled it), applied at `at` on the sandbox clock.
 */
import type Database from "better-sqlite3";

export type DropReason = "revoked" | "uninstalled";

export type DropRow = {
  id: string;
  connectionId: string;
  companyId: string;
  at: number;
  reason: DropReason;
  createdAt: number;
  appliedAt: number | null;
};

const COLUMNS = `id, connection_id AS connectionId, company_id AS companyId, at, reason, created_at AS createdAt,
  applied_at AS appliedAt`;

/** The connection_drops table's repository. */
export function createDropsTable(db: Database.Database) {
  const s = {
    insert: db.prepare<Omit<DropRow, "appliedAt">>(
      `INSERT INTO connection_drops (id, connection_id, company_id, at, reason, created_at)
       VALUES (@id, @connectionId, @companyId, @at, @reason, @createdAt)`,
    ),
    due: db.prepare<{ now: number }, DropRow>(
      `SELECT ${COLUMNS} FROM connection_drops WHERE applied_at IS NULL AND at <= @now ORDER BY at, rowid`,
    ),
    markApplied: db.prepare<{ id: string; at: number }>("UPDATE connection_drops SET applied_at = @at WHERE id = @id"),
    list: db.prepare<[], DropRow>(`SELECT ${COLUMNS} FROM connection_drops ORDER BY at, rowid`),
  };
  return {
    insert: (row: Omit<DropRow, "appliedAt">): void => {
      s.insert.run(row);
    },
    /** Drops not yet applied whose time has come by `now`, oldest first. */
    due: (now: number): DropRow[] => s.due.all({ now }),
    markApplied: (params: { id: string; at: number }): void => {
      s.markApplied.run(params);
    },
    list: (): DropRow[] => s.list.all(),
  };
}
