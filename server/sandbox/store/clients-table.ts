/** `clients`: the service's customers (free or paid), each with its API keys. */
import type Database from "better-sqlite3";

export type Plan = "free" | "paid";

export type ClientRow = {
  id: string;
  name: string;
  plan: Plan;
  createdAt: number;
  isDemo: number;
};

/** A client with the counts the state control shows. */
export type ClientWithCounts = ClientRow & { companies: number; apiKeys: number };

const COLUMNS = "id, name, plan, created_at AS createdAt, is_demo AS isDemo";

/** The clients table's repository. */
export function createClientsTable(db: Database.Database) {
  const s = {
    insert: db.prepare<{ id: string; name: string; plan: Plan; createdAt: number; isDemo: number }>(
      "INSERT INTO clients (id, name, plan, created_at, is_demo) VALUES (@id, @name, @plan, @createdAt, @isDemo)",
    ),
    get: db.prepare<{ id: string }, ClientRow>(`SELECT ${COLUMNS} FROM clients WHERE id = @id`),
    listWithCounts: db.prepare<[], ClientWithCounts>(
      `SELECT c.id, c.name, c.plan, c.created_at AS createdAt, c.is_demo AS isDemo,
        (SELECT COUNT(*) FROM companies WHERE client_id = c.id) AS companies,
        (SELECT COUNT(*) FROM api_keys WHERE client_id = c.id AND deleted_at IS NULL) AS apiKeys
       FROM clients c ORDER BY c.created_at, c.rowid`,
    ),
  };
  return {
    insert: (row: Omit<ClientRow, "isDemo"> & { isDemo?: boolean }): void => {
      s.insert.run({ id: row.id, name: row.name, plan: row.plan, createdAt: row.createdAt, isDemo: row.isDemo ? 1 : 0 });
    },
    get: (id: string): ClientRow | undefined => s.get.get({ id }),
    listWithCounts: (): ClientWithCounts[] => s.listWithCounts.all(),
  };
}
