/** `connections`: companies' data connections, with the service's tokens and their errors. */
import type Database from "better-sqlite3";
import type { ConnectionStatus, PlatformKey } from "../../platforms";

/** One entry of a connection's `dataConnectionErrors`. */
export type ConnectionErrorEntry = {
  statusCode: string;
  statusText: string;
  errorMessage: string;
  erroredOnUtc: string;
  status: "Active" | "Resolved";
  resolvedOnUtc?: string;
};

export type ConnectionRow = {
  id: string;
  companyId: string;
  platformKey: PlatformKey;
  status: ConnectionStatus;
  createdAt: number;
  lastSync: number | null;
  authorizedAt: number | null;
  tenantId: string | null;
  /**
   * The platform account (tenant) the connection's end customer holds, as far as the service
   * knows: set by every authorization that could tell, even a refused one. The Link flow
   * reconnects this account.
   */
  accountTenantId: string | null;
  accessToken: string | null;
  refreshToken: string | null;
  connectionInfo: Record<string, string> | null;
  errors: ConnectionErrorEntry[];
};

type RawConnection = Omit<ConnectionRow, "connectionInfo" | "errors"> & { connectionInfo: string | null; errors: string };

const COLUMNS = `id, company_id AS companyId, platform_key AS platformKey, status, created_at AS createdAt,
  last_sync AS lastSync, authorized_at AS authorizedAt, tenant_id AS tenantId, account_tenant_id AS accountTenantId, access_token AS accessToken,
  refresh_token AS refreshToken, connection_info AS connectionInfo, errors`;

function toRow(raw: RawConnection): ConnectionRow {
  return {
    ...raw,
    connectionInfo: raw.connectionInfo === null ? null : (JSON.parse(raw.connectionInfo) as Record<string, string>),
    errors: JSON.parse(raw.errors) as ConnectionErrorEntry[],
  };
}

/** The connections table's repository. */
export function createConnectionsTable(db: Database.Database) {
  const s = {
    insert: db.prepare<{ id: string; companyId: string; platformKey: string; status: string; createdAt: number }>(
      `INSERT INTO connections (id, company_id, platform_key, status, created_at)
       VALUES (@id, @companyId, @platformKey, @status, @createdAt)`,
    ),
    get: db.prepare<{ id: string }, RawConnection>(`SELECT ${COLUMNS} FROM connections WHERE id = @id`),
    byCompany: db.prepare<{ companyId: string }, RawConnection>(
      `SELECT ${COLUMNS} FROM connections WHERE company_id = @companyId ORDER BY created_at, rowid`,
    ),
    byTenant: db.prepare<{ tenantId: string }, RawConnection>(`SELECT ${COLUMNS} FROM connections WHERE tenant_id = @tenantId`),
    save: db.prepare<Omit<RawConnection, "companyId" | "platformKey" | "createdAt">>(
      `UPDATE connections SET status = @status, last_sync = @lastSync, authorized_at = @authorizedAt,
        tenant_id = @tenantId, account_tenant_id = @accountTenantId, access_token = @accessToken, refresh_token = @refreshToken,
        connection_info = @connectionInfo, errors = @errors
       WHERE id = @id`,
    ),
    countLinkedCompanies: db.prepare<{ clientId: string }, { n: number }>(
      `SELECT COUNT(DISTINCT c.company_id) AS n FROM companies co JOIN connections c ON c.company_id = co.id
       WHERE co.client_id = @clientId AND c.status = 'Linked'`,
    ),
    delete: db.prepare<{ id: string }>("DELETE FROM connections WHERE id = @id"),
    markFirstLinked: db.prepare<{ id: string; at: number }>(
      "UPDATE connections SET first_linked_at = @at WHERE id = @id AND first_linked_at IS NULL",
    ),
  };
  return {
    insert: (row: { id: string; companyId: string; platformKey: PlatformKey; status: ConnectionStatus; createdAt: number }): void => {
      s.insert.run(row);
    },
    get: (id: string): ConnectionRow | undefined => {
      const raw = s.get.get({ id });
      return raw && toRow(raw);
    },
    listByCompany: (companyId: string): ConnectionRow[] => s.byCompany.all({ companyId }).map(toRow),
    listByTenant: (tenantId: string): ConnectionRow[] => s.byTenant.all({ tenantId }).map(toRow),
    save: (row: ConnectionRow): void => {
      s.save.run({
        id: row.id,
        status: row.status,
        lastSync: row.lastSync,
        authorizedAt: row.authorizedAt,
        tenantId: row.tenantId,
        accountTenantId: row.accountTenantId,
        accessToken: row.accessToken,
        refreshToken: row.refreshToken,
        connectionInfo: row.connectionInfo === null ? null : JSON.stringify(row.connectionInfo),
        errors: JSON.stringify(row.errors),
      });
    },
    /** Companies of the client with at least one Linked connection ("connected companies"). */
    countLinkedCompanies: (clientId: string): number => s.countLinkedCompanies.get({ clientId })?.n ?? 0,
    /** Notes that the connection is Linked at `at`; true the first time (a later Linked is a reconnection). */
    markFirstLinked: (params: { id: string; at: number }): boolean => s.markFirstLinked.run(params).changes > 0,
    /** Deletes the row only; the store deletes its operations first. */
    delete: (id: string): void => {
      s.delete.run({ id });
    },
  };
}
