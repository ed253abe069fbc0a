/**
 * What a route handler gets: the sandbox's parts, the authenticated client, the request's
 * parameters, and lookups that answer 404/403 the same way everywhere.
 */
import { companyNotFound, connectionNotFound, forbidden } from "./http/errors";
import type { SandboxClock } from "./domain/clock";
import type { FaultState } from "./domain/faults";
import type { RateLimits } from "./domain/rate-limits";
import type { Client } from "./domain/client-accounts";
import type { CompanyRow, ConnectionRow, Store } from "./store/store";
import type { WebhookEmitter } from "./webhooks/emitter";

export type SandboxApp = {
  store: Store;
  clock: SandboxClock;
  faults: FaultState;
  rateLimits: RateLimits;
  /** Makes webhook messages of state changes (also the store's observer). */
  webhooks: WebhookEmitter;
  adminToken: string;
  /** Base URL of this sandbox (for linkUrl and redirect), known once it listens. */
  publicUrl: string;
  /** The path prefix the sandbox serves under ("" or "/segment…"), for the Link pages' own links. */
  basePath: string;
  /** Secret for the Link pages' nonces; kept in the store across restarts and resets. */
  linkSecret: string;
  /** Demo client kept across resets (main.ts), if any. */
  demoApiKey: string | null;
  log: (line: string) => void;
};

export type ApiContext = {
  app: SandboxApp;
  /** Sandbox time at the start of the request. */
  now: number;
  client: Client;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Path without the query string, as requested. */
  path: string;
  /** Parsed JSON body; undefined when empty. */
  body: unknown;
};

/** The path parameter, which the router guarantees for the pattern. */
export function param(ctx: Pick<ApiContext, "params">, name: string): string {
  const value = ctx.params[name];
  if (value === undefined) throw new Error(`Route has no :${name} parameter`);
  return value;
}

/** The company, if it exists and belongs to the caller: 404 unknown, 403 another client's. */
export function requireCompany(ctx: ApiContext, companyId = param(ctx, "companyId")): CompanyRow {
  const company = ctx.app.store.companies.get(companyId);
  if (!company) throw companyNotFound(companyId);
  if (company.clientId !== ctx.client.id) throw forbidden();
  return company;
}

/** The company's connection, or 404 (also when it belongs to another company). */
export function requireConnection(
  ctx: ApiContext,
  company: CompanyRow,
  connectionId = param(ctx, "connectionId"),
): ConnectionRow {
  const connection = ctx.app.store.connections.get(connectionId);
  if (!connection || connection.companyId !== company.id) throw connectionNotFound(connectionId);
  return connection;
}
