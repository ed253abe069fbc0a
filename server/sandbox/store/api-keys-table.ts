/** `api_keys`: each client's keys; deleted ones stay so a request with one answers 403, not 401. */
import type Database from "better-sqlite3";
import type { Plan } from "./clients-table";

export type ApiKeyRow = {
  id: string;
  clientId: string;
  name: string | null;
  apiKey: string;
  createdAt: number;
  deletedAt: number | null;
};

/** A key looked up for authentication, with its client. */
export type ApiKeyWithClient = ApiKeyRow & { clientPlan: Plan; clientCreatedAt: number; clientName: string };

const COLUMNS = `id, client_id AS clientId, name, api_key AS apiKey, created_at AS createdAt, deleted_at AS deletedAt`;

/** The api_keys table's repository, with a cache of key lookups (authentication runs on every request). */
export function createApiKeysTable(db: Database.Database) {
  const s = {
    insert: db.prepare<Omit<ApiKeyRow, "deletedAt">>(
      `INSERT INTO api_keys (id, client_id, name, api_key, created_at)
       VALUES (@id, @clientId, @name, @apiKey, @createdAt)`,
    ),
    byValue: db.prepare<{ apiKey: string }, ApiKeyWithClient>(
      `SELECT k.id, k.client_id AS clientId, k.name, k.api_key AS apiKey, k.created_at AS createdAt,
        k.deleted_at AS deletedAt, c.plan AS clientPlan, c.created_at AS clientCreatedAt, c.name AS clientName
       FROM api_keys k JOIN clients c ON c.id = k.client_id WHERE k.api_key = @apiKey`,
    ),
    get: db.prepare<{ id: string }, ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = @id`),
    listActive: db.prepare<{ clientId: string }, ApiKeyRow>(
      `SELECT ${COLUMNS} FROM api_keys WHERE client_id = @clientId AND deleted_at IS NULL ORDER BY created_at, rowid`,
    ),
    countActive: db.prepare<{ clientId: string }, { n: number }>(
      "SELECT COUNT(*) AS n FROM api_keys WHERE client_id = @clientId AND deleted_at IS NULL",
    ),
    markDeleted: db.prepare<{ id: string; at: number }>("UPDATE api_keys SET deleted_at = @at WHERE id = @id"),
  };

  // Keys and their clients change only through this repository (delete) and the store's wipe,
  // which clear the cache. Unknown keys are not cached.
  const cache = new Map<string, ApiKeyWithClient>();

  return {
    insert: (row: Omit<ApiKeyRow, "deletedAt">): void => {
      s.insert.run({ id: row.id, clientId: row.clientId, name: row.name, apiKey: row.apiKey, createdAt: row.createdAt });
    },
    findByValue: (apiKey: string): ApiKeyWithClient | undefined => {
      const cached = cache.get(apiKey);
      if (cached) return cached;
      const found = s.byValue.get({ apiKey });
      if (found) cache.set(apiKey, found);
      return found;
    },
    get: (id: string): ApiKeyRow | undefined => s.get.get({ id }),
    listActive: (clientId: string): ApiKeyRow[] => s.listActive.all({ clientId }),
    countActive: (clientId: string): number => s.countActive.get({ clientId })?.n ?? 0,
    markDeleted: (params: { id: string; at: number }): void => {
      s.markDeleted.run(params);
      cache.clear();
    },
    clearCache: (): void => {
      cache.clear();
    },
  };
}
