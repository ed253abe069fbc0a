/**
 * The sandbox's own SQLite schema, created and upgraded at open. `PRAGMA user_version` holds the
 * number of migrations applied; each migration runs once, in order, inside one transaction.
 *
 * Times are integers: milliseconds since the epoch on the sandbox clock (real time + offset).
 */
import type Database from "better-sqlite3";

const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE clients (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    plan TEXT NOT NULL CHECK (plan IN ('free', 'paid')),
    created_at INTEGER NOT NULL,
    is_demo INTEGER NOT NULL DEFAULT 0
  );

  -- Deleted keys stay (deleted_at set) so a request with one answers 403 "outdated key", not 401.
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
    name TEXT,
    api_key TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    deleted_at INTEGER
  );
  CREATE INDEX api_keys_active ON api_keys (client_id) WHERE deleted_at IS NULL;

  CREATE TABLE companies (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    description TEXT,
    tags TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL
  );
  CREATE INDEX companies_client ON companies (client_id, created_at);

  -- A tenant is one end customer's account at a simulated platform.
  CREATE TABLE tenants (
    id TEXT PRIMARY KEY,
    platform_key TEXT NOT NULL,
    name TEXT NOT NULL,
    records INTEGER NOT NULL,
    identity TEXT NOT NULL,
    fetch_error_types TEXT NOT NULL DEFAULT '[]',
    push_delay_ms INTEGER NOT NULL,
    generation INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL
  );

  -- Every token a simulated platform has issued; the platform accepts only unretired ones.
  CREATE TABLE tokens (
    token TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
    holder TEXT NOT NULL CHECK (holder IN ('customer', 'service')),
    issued_at INTEGER NOT NULL,
    expires_at INTEGER,
    retired_at INTEGER,
    retired_reason TEXT,
    consumed_by TEXT
  );
  CREATE INDEX tokens_live ON tokens (tenant_id) WHERE retired_at IS NULL;

  CREATE TABLE connections (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    platform_key TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_sync INTEGER,
    authorized_at INTEGER,
    tenant_id TEXT,
    access_token TEXT,
    refresh_token TEXT,
    connection_info TEXT,
    errors TEXT NOT NULL DEFAULT '[]'
  );
  CREATE INDEX connections_company ON connections (company_id, created_at);
  CREATE INDEX connections_tenant ON connections (tenant_id);

  -- Progress is derived from the planned phase times and the sandbox clock; settled marks that
  -- the outcome's side effects (lastSync, Deauthorized) have been applied.
  CREATE TABLE pull_operations (
    id TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    connection_id TEXT NOT NULL,
    tenant_id TEXT,
    data_type TEXT NOT NULL,
    requested_at INTEGER NOT NULL,
    fetch_at INTEGER NOT NULL,
    complete_at INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    error_message TEXT,
    records INTEGER NOT NULL DEFAULT 0,
    settled INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX pulls_company ON pull_operations (company_id, requested_at);
  CREATE INDEX pulls_connection ON pull_operations (connection_id, data_type, requested_at);
  CREATE INDEX pulls_due ON pull_operations (complete_at) WHERE settled = 0;

  CREATE TABLE push_operations (
    key TEXT PRIMARY KEY,
    company_id TEXT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    connection_id TEXT NOT NULL,
    data_type TEXT NOT NULL,
    requested_at INTEGER NOT NULL,
    resolves_at INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    platform_status_code INTEGER NOT NULL,
    error_message TEXT,
    validation TEXT,
    timeout_minutes INTEGER,
    record_id TEXT,
    settled INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX pushes_company ON push_operations (company_id, requested_at);
  CREATE INDEX pushes_due ON push_operations (resolves_at) WHERE settled = 0;

  CREATE TABLE sync_settings (
    owner_kind TEXT NOT NULL CHECK (owner_kind IN ('client', 'company')),
    owner_id TEXT NOT NULL,
    settings TEXT NOT NULL,
    overrides_defaults INTEGER NOT NULL,
    PRIMARY KEY (owner_kind, owner_id)
  );
  `,
  `
  -- Requests counted against a client's daily quota (faults.quotaPerDay), per sandbox-clock UTC day.
  CREATE TABLE quota_usage (
    client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
    day INTEGER NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (client_id, day)
  );
  CREATE INDEX connections_linked ON connections (company_id) WHERE status = 'Linked';
  `,
  `
  -- Tokens a platform issued to another OAuth app than the one the service presents them with
  -- (a test control makes them): the platform refuses them with its client-mismatch answer.
  ALTER TABLE tokens ADD COLUMN foreign_app INTEGER NOT NULL DEFAULT 0;

  -- The platform account the connection's end customer holds, as far as the service knows it
  -- (from the last authorization, even a refused one): the account the Link flow reconnects.
  ALTER TABLE connections ADD COLUMN account_tenant_id TEXT;

  -- Losses of authorization at the platform (tokens revoked, app uninstalled), applied at their
  -- sandbox time when the sandbox next settles what fell due, so a scheduled one follows the clock.
  CREATE TABLE connection_drops (
    id TEXT PRIMARY KEY,
    connection_id TEXT NOT NULL REFERENCES connections (id) ON DELETE CASCADE,
    company_id TEXT NOT NULL,
    at INTEGER NOT NULL,
    reason TEXT NOT NULL CHECK (reason IN ('revoked', 'uninstalled')),
    created_at INTEGER NOT NULL,
    applied_at INTEGER
  );
  CREATE INDEX connection_drops_due ON connection_drops (at) WHERE applied_at IS NULL;
  CREATE INDEX connection_drops_connection ON connection_drops (connection_id);
  `,
  `
  -- How the client's syncs run (a test control sets it, per client so parallel tests do not meet):
  -- 'timed' on the sandbox clock, 'instant' (over when queued) or 'held' (Fetching until released).
  ALTER TABLE clients ADD COLUMN syncs TEXT NOT NULL DEFAULT 'timed' CHECK (syncs IN ('timed', 'instant', 'held'));
  `,
  // Link pages' nonces once used (a Connect may be sent once per page), kept for their lifetime.
  `
  CREATE TABLE used_link_nonces (
    nonce TEXT PRIMARY KEY,
    used_at INTEGER NOT NULL
  );
  CREATE INDEX used_link_nonces_used_at ON used_link_nonces (used_at);
  `,
  // Webhooks (reference §11): the client's consumers, the messages its events made (kept for the
  // two-week replay window) and one delivery row per message and consumer: the outbox a timer drains.
  `
  CREATE TABLE webhook_consumers (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
    url TEXT NOT NULL,
    event_types TEXT NOT NULL,
    company_tags TEXT,
    secret TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0,
    failing_since INTEGER,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX webhook_consumers_client ON webhook_consumers (client_id, created_at);

  CREATE TABLE webhook_messages (
    id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
    event_type TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX webhook_messages_created ON webhook_messages (created_at);

  -- Sent in rowid order (the order the events happened). status: pending (an attempt is due at next_attempt_at), delivered, failed (the schedule ran out
  -- or the endpoint was disabled), missed (the endpoint was disabled when the message was made).
  CREATE TABLE webhook_deliveries (
    message_id TEXT NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
    consumer_id TEXT NOT NULL REFERENCES webhook_consumers (id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'missed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    last_attempt_at INTEGER,
    last_response TEXT,
    PRIMARY KEY (message_id, consumer_id)
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_consumer ON webhook_deliveries (consumer_id);

  -- Days on which a client went over its daily quota (client.rateLimit.reached was made), and
  -- whether the reset at the day's end has been announced.
  CREATE TABLE webhook_quota_days (
    client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
    day INTEGER NOT NULL,
    reset_sent INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (client_id, day)
  );

  -- When the connection was first Linked: a later Linked is a reconnection, not a connection.
  ALTER TABLE connections ADD COLUMN first_linked_at INTEGER;
  UPDATE connections SET first_linked_at = authorized_at WHERE status = 'Linked' OR tenant_id IS NOT NULL;
  `,
  // One-time Link URLs (the service's client setting): with it on, every company redirect and
  // connection linkUrl the API gives carries a token that works for one Connect, for one day. The
  // demo client shows it. The tokens need no state; the spent ones are kept for their lifetime.
  `
  ALTER TABLE clients ADD COLUMN one_time_link_urls INTEGER NOT NULL DEFAULT 0 CHECK (one_time_link_urls IN (0, 1));
  UPDATE clients SET one_time_link_urls = 1 WHERE is_demo = 1;

  CREATE TABLE used_link_tokens (
    token TEXT PRIMARY KEY,
    issued_at INTEGER NOT NULL,
    used_at INTEGER NOT NULL
  );
  CREATE INDEX used_link_tokens_issued_at ON used_link_tokens (issued_at);
  `,
  // The customer's own OAuth app at a platform, which the service uses for the client's connections
  // to that platform (managed token migrations, step 3), with the redirect URIs registered on it
  // (a JSON array, in the order added). No row: the service's own app, whose callback is always
  // registered. The platform's client id is unique per platform, as at the platform itself.
  `
  CREATE TABLE oauth_apps (
    client_id TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
    platform_key TEXT NOT NULL,
    app_client_id TEXT NOT NULL,
    name TEXT NOT NULL,
    redirect_uris TEXT NOT NULL DEFAULT '[]',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (client_id, platform_key),
    UNIQUE (platform_key, app_client_id)
  );
  `,
  // Complete data per company: validation issues a tenant's synced data types show (per data type:
  // how many errors and warnings), and for Zoho Books how many records per data type a fetch gets
  // before the organisation's shared daily API limit runs out (null: all of them).
  `
  ALTER TABLE tenants ADD COLUMN validation_issues TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE tenants ADD COLUMN daily_limit_records INTEGER;
  `,
];

/** Applies the migrations the file has not seen yet. */
export function migrate(db: Database.Database): void {
  const current = db.pragma("user_version", { simple: true });
  const applied = typeof current === "number" ? current : 0;
  if (applied > MIGRATIONS.length) {
    throw new Error(
      `The sandbox database is at schema version ${applied}, newer than this code knows (${MIGRATIONS.length}).`,
    );
  }
  for (let version = applied; version < MIGRATIONS.length; version++) {
    const sql = MIGRATIONS[version];
    if (sql === undefined) continue;
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}

/** Tables emptied by the reset control (meta is handled separately: some keys survive a reset). */
export const DATA_TABLES = [
  "oauth_apps",
  "webhook_quota_days",
  "webhook_deliveries",
  "webhook_messages",
  "webhook_consumers",
  "used_link_nonces",
  "used_link_tokens",
  "quota_usage",
  "connection_drops",
  "push_operations",
  "pull_operations",
  "connections",
  "tokens",
  "tenants",
  "sync_settings",
  "companies",
  "api_keys",
  "clients",
] as const;
