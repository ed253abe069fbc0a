/** `clients`: the service's customers (free or paid), each with its API keys. */
import type Database from "better-sqlite3";

export type Plan = "free" | "paid";

/**
 * How a client's syncs run (a test control): `timed` on the sandbox clock (the default),
 * `instant` (over when queued) or `held` (Fetching until the release control).
 */
export const SYNC_MODES = ["timed", "instant", "held"] as const;
export type SyncMode = (typeof SYNC_MODES)[number];

export type ClientRow = {
  id: string;
  name: string;
  plan: Plan;
  createdAt: number;
  isDemo: number;
  syncs: SyncMode;
  /** 1 when the client has the service's "one-time Link URLs" setting on (link/link-token.ts). */
  oneTimeLinkUrls: number;
};

/** A client with the counts the state control shows. */
export type ClientWithCounts = ClientRow & { companies: number; apiKeys: number };

const COLUMNS = "id, name, plan, created_at AS createdAt, is_demo AS isDemo, syncs, one_time_link_urls AS oneTimeLinkUrls";

/** The clients table's repository. */
export function createClientsTable(db: Database.Database) {
  const s = {
    insert: db.prepare<{ id: string; name: string; plan: Plan; createdAt: number; isDemo: number; syncs: SyncMode; oneTimeLinkUrls: number }>(
      `INSERT INTO clients (id, name, plan, created_at, is_demo, syncs, one_time_link_urls)
       VALUES (@id, @name, @plan, @createdAt, @isDemo, @syncs, @oneTimeLinkUrls)`,
    ),
    get: db.prepare<{ id: string }, ClientRow>(`SELECT ${COLUMNS} FROM clients WHERE id = @id`),
    syncMode: db.prepare<{ id: string }, { syncs: SyncMode }>("SELECT syncs FROM clients WHERE id = @id"),
    setSyncMode: db.prepare<{ id: string; syncs: SyncMode }>("UPDATE clients SET syncs = @syncs WHERE id = @id"),
    oneTimeLinkUrls: db.prepare<{ id: string }, { enabled: number }>("SELECT one_time_link_urls AS enabled FROM clients WHERE id = @id"),
    setOneTimeLinkUrls: db.prepare<{ id: string; enabled: number }>("UPDATE clients SET one_time_link_urls = @enabled WHERE id = @id"),
    listWithCounts: db.prepare<[], ClientWithCounts>(
      `SELECT c.id, c.name, c.plan, c.created_at AS createdAt, c.is_demo AS isDemo, c.syncs, c.one_time_link_urls AS oneTimeLinkUrls,
        (SELECT COUNT(*) FROM companies WHERE client_id = c.id) AS companies,
        (SELECT COUNT(*) FROM api_keys WHERE client_id = c.id AND deleted_at IS NULL) AS apiKeys
       FROM clients c ORDER BY c.created_at, c.rowid`,
    ),
  };
  return {
    insert: (row: Omit<ClientRow, "isDemo" | "syncs" | "oneTimeLinkUrls"> & { isDemo?: boolean; syncs?: SyncMode; oneTimeLinkUrls?: boolean }): void => {
      s.insert.run({
        id: row.id,
        name: row.name,
        plan: row.plan,
        createdAt: row.createdAt,
        isDemo: row.isDemo ? 1 : 0,
        syncs: row.syncs ?? "timed",
        oneTimeLinkUrls: row.oneTimeLinkUrls ? 1 : 0,
      });
    },
    get: (id: string): ClientRow | undefined => s.get.get({ id }),
    /** The client's sync mode, read fresh (the API-key cache holds clients without it); `timed` for an unknown client. */
    syncMode: (id: string): SyncMode => s.syncMode.get({ id })?.syncs ?? "timed",
    setSyncMode: (params: { id: string; syncs: SyncMode }): void => {
      s.setSyncMode.run(params);
    },
    /** Whether the client's Link URLs work once (read fresh: the API-key cache holds clients without it); false for an unknown client. */
    oneTimeLinkUrls: (id: string): boolean => s.oneTimeLinkUrls.get({ id })?.enabled === 1,
    setOneTimeLinkUrls: (params: { id: string; enabled: boolean }): void => {
      s.setOneTimeLinkUrls.run({ id: params.id, enabled: params.enabled ? 1 : 0 });
    },
    listWithCounts: (): ClientWithCounts[] => s.listWithCounts.all(),
  };
}
