/**
 * The sandbox's persistence: one better-sqlite3 connection, prepared statements, and small
 * repositories per table. Only this folder writes SQL. Every method is synchronous, so callers can
 * compose them inside `store.transaction(() => ...)` and a limit check holds under concurrency.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { ConnectionStatus, PlatformKey } from "../../platforms";
import { DATA_TABLES, migrate } from "./schema";

export type Plan = "free" | "paid";

export type ClientRow = {
  id: string;
  name: string;
  plan: Plan;
  createdAt: number;
  isDemo: number;
};

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

export type CompanyRow = {
  id: string;
  clientId: string;
  name: string;
  description: string | null;
  tags: Record<string, string>;
  createdAt: number;
};

export type TenantRow = {
  id: string;
  platformKey: PlatformKey;
  name: string;
  records: number;
  /** Non-secret identity fields (realmId, shopDomain, ...) that tokens must be presented with. */
  identity: Record<string, string>;
  fetchErrorTypes: string[];
  pushDelayMs: number;
  generation: number;
  createdAt: number;
};

export type TokenRow = {
  token: string;
  tenantId: string;
  kind: "access" | "refresh";
  holder: "customer" | "service";
  issuedAt: number;
  expiresAt: number | null;
  retiredAt: number | null;
  retiredReason: string | null;
  consumedBy: string | null;
};

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
  accessToken: string | null;
  refreshToken: string | null;
  connectionInfo: Record<string, string> | null;
  errors: ConnectionErrorEntry[];
};

export type PullOutcome = "Complete" | "FetchError" | "AuthError" | "NotSupported";

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

export type SyncSettingsRow = {
  settings: unknown[];
  overridesDefaults: boolean;
};

type RawCompany = Omit<CompanyRow, "tags"> & { tags: string };
type RawTenant = Omit<TenantRow, "identity" | "fetchErrorTypes"> & { identity: string; fetchErrorTypes: string };
type RawConnection = Omit<ConnectionRow, "connectionInfo" | "errors"> & {
  connectionInfo: string | null;
  errors: string;
};
type RawPush = Omit<PushRow, "validation"> & { validation: string | null };

const COMPANY_COLUMNS = "id, client_id AS clientId, name, description, tags, created_at AS createdAt";
const CONNECTION_COLUMNS = `id, company_id AS companyId, platform_key AS platformKey, status, created_at AS createdAt,
  last_sync AS lastSync, authorized_at AS authorizedAt, tenant_id AS tenantId, access_token AS accessToken,
  refresh_token AS refreshToken, connection_info AS connectionInfo, errors`;
const PULL_COLUMNS = `id, company_id AS companyId, connection_id AS connectionId, tenant_id AS tenantId,
  data_type AS dataType, requested_at AS requestedAt, fetch_at AS fetchAt, complete_at AS completeAt, outcome,
  error_message AS errorMessage, records, settled`;
const PUSH_COLUMNS = `key, company_id AS companyId, connection_id AS connectionId, data_type AS dataType,
  requested_at AS requestedAt, resolves_at AS resolvesAt, outcome, status_code AS statusCode,
  platform_status_code AS platformStatusCode, error_message AS errorMessage, validation,
  timeout_minutes AS timeoutMinutes, record_id AS recordId, settled`;
const TENANT_COLUMNS = `id, platform_key AS platformKey, name, records, identity, fetch_error_types AS fetchErrorTypes,
  push_delay_ms AS pushDelayMs, generation, created_at AS createdAt`;
const TOKEN_COLUMNS = `token, tenant_id AS tenantId, kind, holder, issued_at AS issuedAt, expires_at AS expiresAt,
  retired_at AS retiredAt, retired_reason AS retiredReason, consumed_by AS consumedBy`;

function parseJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

function toCompany(raw: RawCompany): CompanyRow {
  return { ...raw, tags: parseJson<Record<string, string>>(raw.tags) };
}

function toConnection(raw: RawConnection): ConnectionRow {
  return {
    ...raw,
    connectionInfo: raw.connectionInfo === null ? null : parseJson<Record<string, string>>(raw.connectionInfo),
    errors: parseJson<ConnectionErrorEntry[]>(raw.errors),
  };
}

function toTenant(raw: RawTenant): TenantRow {
  return {
    ...raw,
    identity: parseJson<Record<string, string>>(raw.identity),
    fetchErrorTypes: parseJson<string[]>(raw.fetchErrorTypes),
  };
}

function toPush(raw: RawPush): PushRow {
  return { ...raw, validation: raw.validation === null ? null : parseJson<PushValidation>(raw.validation) };
}

/** Opens (creating if needed) the sandbox database file and returns its repositories. */
export function openStore(file: string) {
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  migrate(db);

  const s = {
    metaGet: db.prepare<[string], { value: string }>("SELECT value FROM meta WHERE key = ?"),
    metaSet: db.prepare<[string, string]>(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ),
    metaDelete: db.prepare<[string]>("DELETE FROM meta WHERE key = ?"),

    clientInsert: db.prepare<[string, string, Plan, number, number]>(
      "INSERT INTO clients (id, name, plan, created_at, is_demo) VALUES (?, ?, ?, ?, ?)",
    ),
    clientGet: db.prepare<[string], ClientRow>(
      "SELECT id, name, plan, created_at AS createdAt, is_demo AS isDemo FROM clients WHERE id = ?",
    ),
    clientList: db.prepare<[], ClientRow & { companies: number; apiKeys: number }>(
      `SELECT c.id, c.name, c.plan, c.created_at AS createdAt, c.is_demo AS isDemo,
        (SELECT COUNT(*) FROM companies WHERE client_id = c.id) AS companies,
        (SELECT COUNT(*) FROM api_keys WHERE client_id = c.id AND deleted_at IS NULL) AS apiKeys
       FROM clients c ORDER BY c.created_at, c.rowid`,
    ),

    keyInsert: db.prepare<[string, string, string | null, string, number]>(
      "INSERT INTO api_keys (id, client_id, name, api_key, created_at) VALUES (?, ?, ?, ?, ?)",
    ),
    keyByValue: db.prepare<[string], ApiKeyWithClient>(
      `SELECT k.id, k.client_id AS clientId, k.name, k.api_key AS apiKey, k.created_at AS createdAt,
        k.deleted_at AS deletedAt, c.plan AS clientPlan, c.created_at AS clientCreatedAt, c.name AS clientName
       FROM api_keys k JOIN clients c ON c.id = k.client_id WHERE k.api_key = ?`,
    ),
    keyGet: db.prepare<[string], ApiKeyRow>(
      `SELECT id, client_id AS clientId, name, api_key AS apiKey, created_at AS createdAt, deleted_at AS deletedAt
       FROM api_keys WHERE id = ?`,
    ),
    keyListActive: db.prepare<[string], ApiKeyRow>(
      `SELECT id, client_id AS clientId, name, api_key AS apiKey, created_at AS createdAt, deleted_at AS deletedAt
       FROM api_keys WHERE client_id = ? AND deleted_at IS NULL ORDER BY created_at, rowid`,
    ),
    keyCountActive: db.prepare<[string], { n: number }>(
      "SELECT COUNT(*) AS n FROM api_keys WHERE client_id = ? AND deleted_at IS NULL",
    ),
    keyDelete: db.prepare<[number, string]>("UPDATE api_keys SET deleted_at = ? WHERE id = ?"),

    companyInsert: db.prepare<[string, string, string, string | null, string, number]>(
      "INSERT INTO companies (id, client_id, name, description, tags, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    companyGet: db.prepare<[string], RawCompany>(`SELECT ${COMPANY_COLUMNS} FROM companies WHERE id = ?`),
    companyCount: db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM companies WHERE client_id = ?"),
    companyListAll: db.prepare<[string], RawCompany>(
      `SELECT ${COMPANY_COLUMNS} FROM companies WHERE client_id = ? ORDER BY created_at, rowid`,
    ),
    companyPage: db.prepare<[string, number, number], RawCompany>(
      `SELECT ${COMPANY_COLUMNS} FROM companies WHERE client_id = ? ORDER BY created_at, rowid LIMIT ? OFFSET ?`,
    ),
    companyUpdate: db.prepare<[string, string | null, string, string]>(
      "UPDATE companies SET name = ?, description = ?, tags = ? WHERE id = ?",
    ),
    companyDelete: db.prepare<[string]>("DELETE FROM companies WHERE id = ?"),

    connectionInsert: db.prepare<[string, string, string, string, number]>(
      "INSERT INTO connections (id, company_id, platform_key, status, created_at) VALUES (?, ?, ?, ?, ?)",
    ),
    connectionGet: db.prepare<[string], RawConnection>(`SELECT ${CONNECTION_COLUMNS} FROM connections WHERE id = ?`),
    connectionsByCompany: db.prepare<[string], RawConnection>(
      `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE company_id = ? ORDER BY created_at, rowid`,
    ),
    connectionsByTenant: db.prepare<[string], RawConnection>(
      `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE tenant_id = ?`,
    ),
    connectionSave: db.prepare<
      [string, number | null, number | null, string | null, string | null, string | null, string | null, string, string]
    >(
      `UPDATE connections SET status = ?, last_sync = ?, authorized_at = ?, tenant_id = ?, access_token = ?,
        refresh_token = ?, connection_info = ?, errors = ? WHERE id = ?`,
    ),
    connectionDelete: db.prepare<[string]>("DELETE FROM connections WHERE id = ?"),
    pullsDeleteByConnection: db.prepare<[string]>("DELETE FROM pull_operations WHERE connection_id = ?"),
    pushesDeleteByConnection: db.prepare<[string]>("DELETE FROM push_operations WHERE connection_id = ?"),

    tenantInsert: db.prepare<[string, string, string, number, string, string, number, number]>(
      `INSERT INTO tenants (id, platform_key, name, records, identity, fetch_error_types, push_delay_ms, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    tenantGet: db.prepare<[string], RawTenant>(`SELECT ${TENANT_COLUMNS} FROM tenants WHERE id = ?`),
    tenantList: db.prepare<[], RawTenant>(`SELECT ${TENANT_COLUMNS} FROM tenants ORDER BY created_at, rowid`),
    tenantBumpGeneration: db.prepare<[string]>("UPDATE tenants SET generation = generation + 1 WHERE id = ?"),

    tokenInsert: db.prepare<[string, string, string, string, number, number | null]>(
      "INSERT INTO tokens (token, tenant_id, kind, holder, issued_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    tokenGet: db.prepare<[string], TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM tokens WHERE token = ?`),
    tokenRetire: db.prepare<[number, string, string | null, string]>(
      "UPDATE tokens SET retired_at = ?, retired_reason = ?, consumed_by = ? WHERE token = ? AND retired_at IS NULL",
    ),
    tokenRetireTenant: db.prepare<[number, string, string]>(
      "UPDATE tokens SET retired_at = ?, retired_reason = ? WHERE tenant_id = ? AND retired_at IS NULL",
    ),

    pullInsert: db.prepare<
      [string, string, string, string | null, string, number, number, number, string, string | null, number, number]
    >(
      `INSERT INTO pull_operations (id, company_id, connection_id, tenant_id, data_type, requested_at, fetch_at,
        complete_at, outcome, error_message, records, settled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    pullGet: db.prepare<[string], PullRow>(`SELECT ${PULL_COLUMNS} FROM pull_operations WHERE id = ?`),
    pullsByCompany: db.prepare<[string], PullRow>(
      `SELECT ${PULL_COLUMNS} FROM pull_operations WHERE company_id = ? ORDER BY requested_at, rowid`,
    ),
    pullsDue: db.prepare<[number], PullRow>(
      `SELECT ${PULL_COLUMNS} FROM pull_operations WHERE settled = 0 AND complete_at <= ? ORDER BY complete_at, rowid`,
    ),
    pullSettle: db.prepare<[string]>("UPDATE pull_operations SET settled = 1 WHERE id = ?"),
    pullsPendingForTenant: db.prepare<[string, number], PullRow>(
      `SELECT ${PULL_COLUMNS} FROM pull_operations WHERE tenant_id = ? AND settled = 0 AND complete_at > ?`,
    ),
    pullReplan: db.prepare<[number, string, string | null, string]>(
      "UPDATE pull_operations SET complete_at = ?, outcome = ?, error_message = ? WHERE id = ?",
    ),

    pushInsert: db.prepare<
      [string, string, string, string, number, number, string, number, number, string | null, string | null, number | null, string | null]
    >(
      `INSERT INTO push_operations (key, company_id, connection_id, data_type, requested_at, resolves_at, outcome,
        status_code, platform_status_code, error_message, validation, timeout_minutes, record_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    pushGet: db.prepare<[string], RawPush>(`SELECT ${PUSH_COLUMNS} FROM push_operations WHERE key = ?`),
    pushesByCompany: db.prepare<[string], RawPush>(
      `SELECT ${PUSH_COLUMNS} FROM push_operations WHERE company_id = ? ORDER BY requested_at, rowid`,
    ),
    pushesDue: db.prepare<[number], RawPush>(
      `SELECT ${PUSH_COLUMNS} FROM push_operations WHERE settled = 0 AND resolves_at <= ? ORDER BY resolves_at, rowid`,
    ),
    pushSettle: db.prepare<[string]>("UPDATE push_operations SET settled = 1 WHERE key = ?"),

    syncSettingsGet: db.prepare<[string, string], { settings: string; overridesDefaults: number }>(
      `SELECT settings, overrides_defaults AS overridesDefaults FROM sync_settings
       WHERE owner_kind = ? AND owner_id = ?`,
    ),
    syncSettingsSet: db.prepare<[string, string, string, number]>(
      `INSERT INTO sync_settings (owner_kind, owner_id, settings, overrides_defaults) VALUES (?, ?, ?, ?)
       ON CONFLICT (owner_kind, owner_id) DO UPDATE SET settings = excluded.settings,
         overrides_defaults = excluded.overrides_defaults`,
    ),
    syncSettingsDeleteCompany: db.prepare<[string]>(
      "DELETE FROM sync_settings WHERE owner_kind = 'company' AND owner_id = ?",
    ),
  };

  const meta = {
    get: (key: string): string | undefined => s.metaGet.get(key)?.value,
    set: (key: string, value: string): void => {
      s.metaSet.run(key, value);
    },
    delete: (key: string): void => {
      s.metaDelete.run(key);
    },
  };

  const clients = {
    insert: (row: Omit<ClientRow, "isDemo"> & { isDemo?: boolean }): void => {
      s.clientInsert.run(row.id, row.name, row.plan, row.createdAt, row.isDemo ? 1 : 0);
    },
    get: (id: string): ClientRow | undefined => s.clientGet.get(id),
    listWithCounts: () => s.clientList.all(),
  };

  // Authentication runs on every request; keys and their clients change only through this
  // repository (delete, wipe), which clears the cache. Unknown keys are not cached.
  const keyCache = new Map<string, ApiKeyWithClient>();

  const apiKeys = {
    insert: (row: Omit<ApiKeyRow, "deletedAt">): void => {
      s.keyInsert.run(row.id, row.clientId, row.name, row.apiKey, row.createdAt);
    },
    findByValue: (apiKey: string): ApiKeyWithClient | undefined => {
      const cached = keyCache.get(apiKey);
      if (cached) return cached;
      const found = s.keyByValue.get(apiKey);
      if (found) keyCache.set(apiKey, found);
      return found;
    },
    get: (id: string): ApiKeyRow | undefined => s.keyGet.get(id),
    listActive: (clientId: string): ApiKeyRow[] => s.keyListActive.all(clientId),
    countActive: (clientId: string): number => s.keyCountActive.get(clientId)?.n ?? 0,
    markDeleted: (params: { id: string; at: number }): void => {
      s.keyDelete.run(params.at, params.id);
      keyCache.clear();
    },
  };

  const companies = {
    insert: (row: CompanyRow): void => {
      s.companyInsert.run(row.id, row.clientId, row.name, row.description, JSON.stringify(row.tags), row.createdAt);
    },
    get: (id: string): CompanyRow | undefined => {
      const raw = s.companyGet.get(id);
      return raw && toCompany(raw);
    },
    count: (clientId: string): number => s.companyCount.get(clientId)?.n ?? 0,
    listAll: (clientId: string): CompanyRow[] => s.companyListAll.all(clientId).map(toCompany),
    page: (params: { clientId: string; limit: number; offset: number }): CompanyRow[] =>
      s.companyPage.all(params.clientId, params.limit, params.offset).map(toCompany),
    update: (row: CompanyRow): void => {
      s.companyUpdate.run(row.name, row.description, JSON.stringify(row.tags), row.id);
    },
    delete: (id: string): void => {
      s.syncSettingsDeleteCompany.run(id);
      s.companyDelete.run(id);
    },
  };

  const connections = {
    insert: (row: { id: string; companyId: string; platformKey: PlatformKey; status: ConnectionStatus; createdAt: number }): void => {
      s.connectionInsert.run(row.id, row.companyId, row.platformKey, row.status, row.createdAt);
    },
    get: (id: string): ConnectionRow | undefined => {
      const raw = s.connectionGet.get(id);
      return raw && toConnection(raw);
    },
    listByCompany: (companyId: string): ConnectionRow[] => s.connectionsByCompany.all(companyId).map(toConnection),
    listByTenant: (tenantId: string): ConnectionRow[] => s.connectionsByTenant.all(tenantId).map(toConnection),
    save: (row: ConnectionRow): void => {
      s.connectionSave.run(
        row.status,
        row.lastSync,
        row.authorizedAt,
        row.tenantId,
        row.accessToken,
        row.refreshToken,
        row.connectionInfo === null ? null : JSON.stringify(row.connectionInfo),
        JSON.stringify(row.errors),
        row.id,
      );
    },
    /** Deletes the connection with its sync and write history. */
    delete: (id: string): void => {
      s.pullsDeleteByConnection.run(id);
      s.pushesDeleteByConnection.run(id);
      s.connectionDelete.run(id);
    },
  };

  const tenants = {
    insert: (row: Omit<TenantRow, "generation">): void => {
      s.tenantInsert.run(
        row.id,
        row.platformKey,
        row.name,
        row.records,
        JSON.stringify(row.identity),
        JSON.stringify(row.fetchErrorTypes),
        row.pushDelayMs,
        row.createdAt,
      );
    },
    get: (id: string): TenantRow | undefined => {
      const raw = s.tenantGet.get(id);
      return raw && toTenant(raw);
    },
    list: (): TenantRow[] => s.tenantList.all().map(toTenant),
    bumpGeneration: (id: string): void => {
      s.tenantBumpGeneration.run(id);
    },
  };

  const tokens = {
    insert: (row: Pick<TokenRow, "token" | "tenantId" | "kind" | "holder" | "issuedAt" | "expiresAt">): void => {
      s.tokenInsert.run(row.token, row.tenantId, row.kind, row.holder, row.issuedAt, row.expiresAt);
    },
    get: (token: string): TokenRow | undefined => s.tokenGet.get(token),
    retire: (params: { token: string; at: number; reason: string; consumedBy?: string }): void => {
      s.tokenRetire.run(params.at, params.reason, params.consumedBy ?? null, params.token);
    },
    retireAllForTenant: (params: { tenantId: string; at: number; reason: string }): void => {
      s.tokenRetireTenant.run(params.at, params.reason, params.tenantId);
    },
  };

  const pulls = {
    insert: (row: PullRow): void => {
      s.pullInsert.run(
        row.id,
        row.companyId,
        row.connectionId,
        row.tenantId,
        row.dataType,
        row.requestedAt,
        row.fetchAt,
        row.completeAt,
        row.outcome,
        row.errorMessage,
        row.records,
        row.settled,
      );
    },
    get: (id: string): PullRow | undefined => s.pullGet.get(id),
    listByCompany: (companyId: string): PullRow[] => s.pullsByCompany.all(companyId),
    due: (now: number): PullRow[] => s.pullsDue.all(now),
    markSettled: (id: string): void => {
      s.pullSettle.run(id);
    },
    pendingForTenant: (params: { tenantId: string; now: number }): PullRow[] =>
      s.pullsPendingForTenant.all(params.tenantId, params.now),
    replan: (params: { id: string; completeAt: number; outcome: PullOutcome; errorMessage: string | null }): void => {
      s.pullReplan.run(params.completeAt, params.outcome, params.errorMessage, params.id);
    },
  };

  const pushes = {
    insert: (row: Omit<PushRow, "settled">): void => {
      s.pushInsert.run(
        row.key,
        row.companyId,
        row.connectionId,
        row.dataType,
        row.requestedAt,
        row.resolvesAt,
        row.outcome,
        row.statusCode,
        row.platformStatusCode,
        row.errorMessage,
        row.validation === null ? null : JSON.stringify(row.validation),
        row.timeoutMinutes,
        row.recordId,
      );
    },
    get: (key: string): PushRow | undefined => {
      const raw = s.pushGet.get(key);
      return raw && toPush(raw);
    },
    listByCompany: (companyId: string): PushRow[] => s.pushesByCompany.all(companyId).map(toPush),
    due: (now: number): PushRow[] => s.pushesDue.all(now).map(toPush),
    markSettled: (key: string): void => {
      s.pushSettle.run(key);
    },
  };

  const syncSettings = {
    get: (params: { ownerKind: "client" | "company"; ownerId: string }): SyncSettingsRow | undefined => {
      const row = s.syncSettingsGet.get(params.ownerKind, params.ownerId);
      if (!row) return undefined;
      return { settings: parseJson<unknown[]>(row.settings), overridesDefaults: row.overridesDefaults === 1 };
    },
    set: (params: { ownerKind: "client" | "company"; ownerId: string } & SyncSettingsRow): void => {
      s.syncSettingsSet.run(
        params.ownerKind,
        params.ownerId,
        JSON.stringify(params.settings),
        params.overridesDefaults ? 1 : 0,
      );
    },
  };

  /** Empties every table; meta keys listed in `keepMeta` survive. */
  const wipe = (keepMeta: readonly string[]): void => {
    keyCache.clear();
    db.transaction(() => {
      for (const table of DATA_TABLES) db.exec(`DELETE FROM ${table}`);
      const placeholders = keepMeta.map(() => "?").join(", ");
      if (keepMeta.length === 0) db.exec("DELETE FROM meta");
      else db.prepare(`DELETE FROM meta WHERE key NOT IN (${placeholders})`).run(...keepMeta);
    })();
  };

  return {
    db,
    meta,
    clients,
    apiKeys,
    companies,
    connections,
    tenants,
    tokens,
    pulls,
    pushes,
    syncSettings,
    wipe,
    /** Runs `fn` in one IMMEDIATE transaction (fn must be synchronous). */
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
    close: (): void => {
      db.close();
    },
  };
}

export type Store = ReturnType<typeof openStore>;
