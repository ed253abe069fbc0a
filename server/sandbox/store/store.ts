/**
 * The sandbox's persistence: one better-sqlite3 connection and one repository per table
 * (`*-table.ts`, the only files that write SQL). Every method is synchronous, so callers can
 * compose them inside `store.transaction(() => ...)` and a limit check holds under concurrency.
 */
import Database from "better-sqlite3";
import { ownerOnlyDatabaseFile } from "@/db/owner-only-file";
import { createApiKeysTable } from "./api-keys-table";
import { createClientsTable } from "./clients-table";
import { createCompaniesTable } from "./companies-table";
import { createConnectionsTable } from "./connections-table";
import { createDropsTable } from "./drops-table";
import { createMetaTable } from "./meta-table";
import { createLinkNoncesTable } from "./link-nonces-table";
import { createLinkTokensTable } from "./link-tokens-table";
import { createOAuthAppsTable } from "./oauth-apps-table";
import { createPullsTable } from "./pulls-table";
import { createPushesTable } from "./pushes-table";
import { createQuotaUsageTable } from "./quota-usage-table";
import { DATA_TABLES, migrate } from "./schema";
import { createSyncSettingsTable } from "./sync-settings-table";
import { createTenantsTable } from "./tenants-table";
import { createTokensTable } from "./tokens-table";
import { createWebhooksTable } from "./webhooks-table";
import type { ConnectionRow } from "./connections-table";
import type { PullRow } from "./pulls-table";

export type { ApiKeyRow, ApiKeyWithClient } from "./api-keys-table";
export type { ClientRow, ClientWithCounts, Plan, SyncMode } from "./clients-table";
export type { CompanyRow } from "./companies-table";
export type { ConnectionErrorEntry, ConnectionRow } from "./connections-table";
export type { DropReason, DropRow } from "./drops-table";
export type { OAuthAppRow } from "./oauth-apps-table";
export type { PullOutcome, PullRow } from "./pulls-table";
export type { PushOutcome, PushRow, PushValidation } from "./pushes-table";
export type { SyncSettingsOwner, SyncSettingsRow } from "./sync-settings-table";
export type { TenantRow } from "./tenants-table";
export type { TokenRow } from "./tokens-table";
export type { WebhookConsumerRow, WebhookDeliveryRow, WebhookDeliveryStatus, WebhookMessageRow } from "./webhooks-table";

/**
 * Told of the state changes the service announces as events (webhooks/emitter.ts), inside the
 * transaction that makes them, so an event's outbox row commits with its change or not at all.
 */
export type StoreObserver = {
  /** A connection was written; `firstLinked` when this write made it Linked for the first time. */
  connectionSaved(params: { before: ConnectionRow | undefined; after: ConnectionRow; firstLinked: boolean }): void;
  connectionDeleted(before: ConnectionRow): void;
  /** Syncs whose outcome was just applied. */
  pullsSettled(ops: readonly PullRow[]): void;
};

const NO_OBSERVER: StoreObserver = {
  connectionSaved: () => {},
  connectionDeleted: () => {},
  pullsSettled: () => {},
};

/**
 * Opens (creating if needed) the sandbox database file and returns its repositories. The file holds
 * API keys, the admin token and simulated tokens: it is made readable by its owner only, as the
 * app database is.
 */
export function openStore(file: string) {
  if (file !== ":memory:") ownerOnlyDatabaseFile(file);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  migrate(db);

  const meta = createMetaTable(db);
  const apiKeys = createApiKeysTable(db);
  const companyTable = createCompaniesTable(db);
  const connectionTable = createConnectionsTable(db);
  const pulls = createPullsTable(db);
  const pushes = createPushesTable(db);
  const syncSettings = createSyncSettingsTable(db);

  // Bumped on every write that can change which companies are connected (a Linked connection),
  // so the daily quota recounts them only when they may have changed.
  let connectionChanges = 0;
  let observer: StoreObserver = NO_OBSERVER;

  /**
   * Runs a connection write with its observer's outbox rows as one unit: its own transaction, or a
   * savepoint inside the caller's (better-sqlite3 nests them), so an event commits with its change.
   */
  const atomically = (fn: () => void): void => {
    db.transaction(fn)();
  };

  /** Notes a first Linked and tells the observer of a connection's write. */
  const connectionWritten = (before: ConnectionRow | undefined, after: ConnectionRow): void => {
    const firstLinked = after.status === "Linked" && connectionTable.markFirstLinked({ id: after.id, at: after.authorizedAt ?? after.createdAt });
    observer.connectionSaved({ before, after, firstLinked });
  };

  const companies = {
    ...companyTable,
    /** Deletes the company with its own sync settings (connections and operations cascade). */
    delete: (id: string): void => {
      connectionChanges += 1;
      syncSettings.deleteForCompany(id);
      companyTable.delete(id);
    },
  };

  const connections = {
    ...connectionTable,
    insert: (row: ConnectionRow): void => {
      connectionChanges += 1;
      atomically(() => {
        connectionTable.insert(row);
        connectionWritten(undefined, row);
      });
    },
    save: (row: ConnectionRow): void => {
      connectionChanges += 1;
      atomically(() => {
        const before = connectionTable.get(row.id);
        connectionTable.save(row);
        connectionWritten(before, row);
      });
    },
    /** Deletes the connection with its sync and write history. */
    delete: (id: string): void => {
      connectionChanges += 1;
      atomically(() => {
        const before = connectionTable.get(id);
        pulls.deleteByConnection(id);
        pushes.deleteByConnection(id);
        connectionTable.delete(id);
        if (before) observer.connectionDeleted(before);
      });
    },
    /** A number that changes whenever a connection is written (a cache key, not a count). */
    changeCount: (): number => connectionChanges,
  };

  /** Empties every table; meta keys listed in `keepMeta` survive. */
  const wipe = (keepMeta: readonly string[]): void => {
    apiKeys.clearCache();
    connectionChanges += 1;
    db.transaction(() => {
      for (const table of DATA_TABLES) db.exec(`DELETE FROM ${table}`);
      meta.deleteAllExcept(keepMeta);
    })();
  };

  return {
    db,
    meta,
    clients: createClientsTable(db),
    apiKeys,
    companies,
    connections,
    tenants: createTenantsTable(db),
    tokens: createTokensTable(db),
    pulls,
    pushes,
    drops: createDropsTable(db),
    linkNonces: createLinkNoncesTable(db),
    linkTokens: createLinkTokensTable(db),
    oauthApps: createOAuthAppsTable(db),
    syncSettings,
    quotaUsage: createQuotaUsageTable(db),
    webhooks: createWebhooksTable(db),
    wipe,
    /** Sets who is told of announced state changes (the webhook emitter); one at a time. */
    observe: (next: StoreObserver): void => {
      observer = next;
    },
    /** The observer in force (settle tells it of settled syncs). */
    observer: (): StoreObserver => observer,
    /** Runs `fn` in one IMMEDIATE transaction (fn must be synchronous). */
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
    close: (): void => {
      db.close();
    },
  };
}

export type Store = ReturnType<typeof openStore>;
