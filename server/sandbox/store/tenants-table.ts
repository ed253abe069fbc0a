/** `tenants`: end customers' accounts at the simulated platforms. */
import type Database from "better-sqlite3";
import type { PlatformKey } from "../../platforms";

export type TenantRow = {
  id: string;
  platformKey: PlatformKey;
  name: string;
  records: number;
  /** Non-secret identity fields (realmId, shopDomain, ...) that tokens must be presented with. */
  identity: Record<string, string>;
  fetchErrorTypes: string[];
  /** Validation issues its synced data types show: per data type, how many errors and warnings. */
  validationIssues: ValidationIssueCounts;
  /** Zoho Books: the records per data type a fetch gets before the shared daily API limit runs out (null: all). */
  dailyLimitRecords: number | null;
  pushDelayMs: number;
  generation: number;
  createdAt: number;
};

/** Per data type, how many validation errors and warnings its datasets show. */
export type ValidationIssueCounts = Record<string, { errors: number; warnings: number }>;

type RawTenant = Omit<TenantRow, "identity" | "fetchErrorTypes" | "validationIssues"> & { identity: string; fetchErrorTypes: string; validationIssues: string };

const COLUMNS = `id, platform_key AS platformKey, name, records, identity, fetch_error_types AS fetchErrorTypes,
  push_delay_ms AS pushDelayMs, generation, created_at AS createdAt, validation_issues AS validationIssues,
  daily_limit_records AS dailyLimitRecords`;

function toRow(raw: RawTenant): TenantRow {
  return {
    ...raw,
    identity: JSON.parse(raw.identity) as Record<string, string>,
    fetchErrorTypes: JSON.parse(raw.fetchErrorTypes) as string[],
    validationIssues: JSON.parse(raw.validationIssues) as ValidationIssueCounts,
  };
}

/** The tenants table's repository. */
export function createTenantsTable(db: Database.Database) {
  const s = {
    insert: db.prepare<Omit<RawTenant, "generation">>(
      `INSERT INTO tenants (id, platform_key, name, records, identity, fetch_error_types, push_delay_ms, created_at, validation_issues, daily_limit_records)
       VALUES (@id, @platformKey, @name, @records, @identity, @fetchErrorTypes, @pushDelayMs, @createdAt, @validationIssues, @dailyLimitRecords)`,
    ),
    get: db.prepare<{ id: string }, RawTenant>(`SELECT ${COLUMNS} FROM tenants WHERE id = @id`),
    list: db.prepare<[], RawTenant>(`SELECT ${COLUMNS} FROM tenants ORDER BY created_at, rowid`),
    bumpGeneration: db.prepare<{ id: string }>("UPDATE tenants SET generation = generation + 1 WHERE id = @id"),
    byIdentity: db.prepare<{ platformKey: string; path: string; value: string }, RawTenant>(
      `SELECT ${COLUMNS} FROM tenants WHERE platform_key = @platformKey AND json_extract(identity, @path) = @value
       ORDER BY created_at, rowid LIMIT 1`,
    ),
  };
  return {
    insert: (row: Omit<TenantRow, "generation">): void => {
      s.insert.run({
        id: row.id,
        platformKey: row.platformKey,
        name: row.name,
        records: row.records,
        identity: JSON.stringify(row.identity),
        fetchErrorTypes: JSON.stringify(row.fetchErrorTypes),
        pushDelayMs: row.pushDelayMs,
        createdAt: row.createdAt,
        validationIssues: JSON.stringify(row.validationIssues),
        dailyLimitRecords: row.dailyLimitRecords,
      });
    },
    get: (id: string): TenantRow | undefined => {
      const raw = s.get.get({ id });
      return raw && toRow(raw);
    },
    list: (): TenantRow[] => s.list.all().map(toRow),
    bumpGeneration: (id: string): void => {
      s.bumpGeneration.run({ id });
    },
    /** The platform's tenant whose identity field `name` holds `value` (e.g. realmId), if any. */
    findByIdentity: (params: { platformKey: PlatformKey; name: string; value: string }): TenantRow | undefined => {
      if (!/^[A-Za-z]+$/.test(params.name)) return undefined;
      const raw = s.byIdentity.get({ platformKey: params.platformKey, path: `$.${params.name}`, value: params.value });
      return raw && toRow(raw);
    },
  };
}
