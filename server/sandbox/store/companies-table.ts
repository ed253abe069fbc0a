/** `companies`: each client's companies, with their tags. */
import type Database from "better-sqlite3";

export type CompanyRow = {
  id: string;
  clientId: string;
  name: string;
  description: string | null;
  tags: Record<string, string>;
  createdAt: number;
};

type RawCompany = Omit<CompanyRow, "tags"> & { tags: string };

const COLUMNS = "id, client_id AS clientId, name, description, tags, created_at AS createdAt";

function toRow(raw: RawCompany): CompanyRow {
  return { ...raw, tags: JSON.parse(raw.tags) as Record<string, string> };
}

/** The companies table's repository. */
export function createCompaniesTable(db: Database.Database) {
  const s = {
    insert: db.prepare<RawCompany>(
      `INSERT INTO companies (id, client_id, name, description, tags, created_at)
       VALUES (@id, @clientId, @name, @description, @tags, @createdAt)`,
    ),
    get: db.prepare<{ id: string }, RawCompany>(`SELECT ${COLUMNS} FROM companies WHERE id = @id`),
    count: db.prepare<{ clientId: string }, { n: number }>("SELECT COUNT(*) AS n FROM companies WHERE client_id = @clientId"),
    listAll: db.prepare<{ clientId: string }, RawCompany>(
      `SELECT ${COLUMNS} FROM companies WHERE client_id = @clientId ORDER BY created_at, rowid`,
    ),
    page: db.prepare<{ clientId: string; limit: number; offset: number }, RawCompany>(
      `SELECT ${COLUMNS} FROM companies WHERE client_id = @clientId ORDER BY created_at, rowid LIMIT @limit OFFSET @offset`,
    ),
    update: db.prepare<{ id: string; name: string; description: string | null; tags: string }>(
      "UPDATE companies SET name = @name, description = @description, tags = @tags WHERE id = @id",
    ),
    delete: db.prepare<{ id: string }>("DELETE FROM companies WHERE id = @id"),
  };
  return {
    insert: (row: CompanyRow): void => {
      s.insert.run({ ...row, tags: JSON.stringify(row.tags) });
    },
    get: (id: string): CompanyRow | undefined => {
      const raw = s.get.get({ id });
      return raw && toRow(raw);
    },
    count: (clientId: string): number => s.count.get({ clientId })?.n ?? 0,
    listAll: (clientId: string): CompanyRow[] => s.listAll.all({ clientId }).map(toRow),
    page: (params: { clientId: string; limit: number; offset: number }): CompanyRow[] => s.page.all(params).map(toRow),
    update: (row: CompanyRow): void => {
      s.update.run({ id: row.id, name: row.name, description: row.description, tags: JSON.stringify(row.tags) });
    },
    /** Deletes the row; connections and operations go with it (ON DELETE CASCADE). */
    delete: (id: string): void => {
      s.delete.run({ id });
    },
  };
}
