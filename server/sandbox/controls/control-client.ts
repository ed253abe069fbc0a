/**
 * A small typed client of the sandbox's test controls (/_sandbox), for Ferry's demo seed, tests
 * and rehearsals. Every call goes over HTTP, exactly as a person would make it.
 */
import type { ConnectionStatus, PlatformKey } from "../../platforms";
import type { Faults } from "../domain/faults";
import type { SyncMode } from "../store/clients-table";

export type { SyncMode } from "../store/clients-table";

/** The limit a sandbox client has until the faults control sets another (requests per second). */
export { DEFAULT_RATE_LIMIT_PER_SECOND } from "../domain/faults";

export type TenantOptions = {
  name: string;
  /** Records per data type (default 50); sync time grows with it. */
  records?: number;
  /** Data types whose syncs end FetchError. */
  fetchErrorDataTypes?: string[];
  /** Time the platform takes to process a write (default 1). */
  pushDelaySeconds?: number;
  /** Validation issues its datasets show, per data type (default: none). */
  validationIssues?: Record<string, { errors?: number; warnings?: number }>;
  /**
   * Zoho Books only: the records per data type a fetch gets before the organisation's daily API
   * limit (shared by every app on it) runs out; the rest waits for the next day's (default: all).
   */
  dailyLimitRecords?: number;
};

export type Tenant = {
  tenantId: string;
  platformKey: PlatformKey;
  /** The body the authorization call accepts for this tenant. */
  credentials: Record<string, string>;
};

export type ClockState = { now: string; offsetSeconds: number };

/**
 * Credentials a tenant's token file might hold, for testing each refusal (the authorization call
 * then leaves the connection Deauthorized in the platform's words for that case):
 * - `valid`: good ones; `unknown`: well-formed tokens the platform never issued;
 * - `malformed`: a truncated token (Shopify: one the service's own check refuses with a 400);
 * - `otherApp`: tokens issued to another OAuth app (client id mismatch);
 * - `otherAccount`: the tenant's tokens with another account's identity (not for FreeAgent);
 * - `rotated`: tokens the customer's old app then refreshed (every earlier token of the tenant retired);
 * - `exchanged`: a refresh token already exchanged (rotating platforms: FreshBooks, QuickBooks Online, Wave);
 * - `revoked`: tokens of a grant the end customer then revoked (every token of the tenant retired);
 * - `expired`: tokens expired beyond refresh (refresh-token platforms only).
 */
export type CredentialKind =
  | "valid"
  | "unknown"
  | "malformed"
  | "otherApp"
  | "otherAccount"
  | "rotated"
  | "exchanged"
  | "revoked"
  | "expired";

export type IssuedCredentials = Tenant & { kind: CredentialKind };

/** A connection as the API shows it (the fields tests read; the rest as served). */
export type ConnectionJson = {
  id: string;
  status: ConnectionStatus;
  platformName: string;
  integrationKey: PlatformKey;
  linkUrl: string;
  dataConnectionErrors?: {
    statusCode: string;
    statusText: string;
    errorMessage: string;
    erroredOnUtc: string;
    status: "Active" | "Resolved";
    resolvedOnUtc?: string;
  }[];
  connectionInfo?: Record<string, string>;
  [field: string]: unknown;
};

/** The end customer's consent through Link: the connection, now Linked, and the platform account it holds. */
export type LinkResult = { companyId: string; tenantId: string; connection: ConnectionJson };

/** How a connection loses its authorization: the end customer disconnected the app, or uninstalled it. */
export type DropReason = "revoked" | "uninstalled";

export type DeauthorizeResult = {
  companyId: string;
  connectionId: string;
  /** When it happens (happened), on the sandbox clock. */
  at: string;
  reason: DropReason;
  /** True when it happened now; false when scheduled for `at` (the connection stays Linked until the clock gets there). */
  applied: boolean;
  /** Set when scheduled. */
  dropId?: string;
  connection: ConnectionJson;
};

/** A client as created: its id, its first API key, its sync mode and whether its Link URLs work once. */
export type CreatedClient = { clientId: string; apiKey: string; syncs: SyncMode; oneTimeLinkUrls: boolean };

/**
 * A client's settings, as the service's client settings: `oneTimeLinkUrls` — every company
 * `redirect` and connection `linkUrl` the API gives carries a token that works for one Connect and
 * expires a day (sandbox clock) after it was given out.
 */
export type ClientSettings = { oneTimeLinkUrls: boolean };

export type ClientSettingsResult = ClientSettings & { clientId: string };

export type SyncModeResult = { clientId: string; mode: SyncMode };

/** The release's answer: how many held syncs it ended (the mode is left as it was). */
export type ReleaseResult = SyncModeResult & { released: number };

/** A webhook consumer as the controls show it: the API's view plus its owner, secret and health. */
export type WebhookConsumerState = {
  id: string;
  url: string;
  eventTypes: string[];
  companyTags?: string[];
  disabled: boolean;
  clientId: string;
  secret: string;
  failingSince: string | null;
  createdAt: string;
};

/** One message's delivery to one consumer. */
export type WebhookDeliveryState = {
  messageId: string;
  eventType: string;
  createdAt: string;
  status: "pending" | "delivered" | "failed" | "missed";
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  lastResponse: string | null;
};

/**
 * A client's own OAuth app at a platform, which the service uses for that client's connections to
 * the platform (no app: the service's own, whose callback is always registered). A Connect is
 * refused (400, nothing links) while `redirectUris` lacks the platform's callback URL.
 * `consoleUrl`: the app's page on the platform's simulated developer console (public; the client
 * id in the address is its secret), where redirect URIs are added and removed.
 */
export type OAuthAppState = {
  clientId: string;
  platformKey: PlatformKey;
  appClientId: string;
  name: string;
  redirectUris: string[];
  consoleUrl: string;
};

export type SandboxControl = {
  /**
   * A client of the service. `syncs` (default "timed"): how its syncs run — "timed" on the sandbox
   * clock, "instant" (ended when queued) or "held" (Fetching until `releaseSyncs`); see `setSyncs`.
   * `oneTimeLinkUrls` (default false): see ClientSettings.
   */
  createClient(params: { plan: "free" | "paid"; createdAt?: string; name?: string; syncs?: SyncMode; oneTimeLinkUrls?: boolean }): Promise<CreatedClient>;
  /** Changes the client's settings (see ClientSettings); a setting left out stays as it is. Answers them all. */
  setClientSettings(clientId: string, settings: Partial<ClientSettings>): Promise<ClientSettingsResult>;
  getClientSettings(clientId: string): Promise<ClientSettingsResult>;
  /**
   * Creates or replaces the client's own OAuth app at the platform (see OAuthAppState). 400 for a
   * bad client id or redirect URI (the developer console's rules), 409 when another client's app
   * at the platform has that client id. `name` defaults to "<client>'s <platform> app".
   */
  setOAuthApp(clientId: string, platformKey: PlatformKey, app: { appClientId: string; name?: string; redirectUris: string[] }): Promise<OAuthAppState>;
  /** The client's own OAuth app at the platform; a 404 SandboxControlError when it has none. */
  getOAuthApp(clientId: string, platformKey: PlatformKey): Promise<OAuthAppState>;
  /** Back to the service's own app at the platform (no error when the client had none). */
  deleteOAuthApp(clientId: string, platformKey: PlatformKey): Promise<void>;
  /** Sets how the client's syncs queued from now on run; syncs already held stay held until released. */
  setSyncs(clientId: string, mode: SyncMode): Promise<SyncModeResult>;
  /** Ends every held sync of the client now, each with its planned outcome; later syncs are held again while the mode is "held". */
  releaseSyncs(clientId: string): Promise<ReleaseResult>;
  createTenant(platformKey: PlatformKey, options: TenantOptions): Promise<Tenant>;
  /** The customer's old app refreshed: every credential handed out so far stops working. */
  rotate(platformKey: PlatformKey, tenantId: string): Promise<Tenant>;
  /** Credentials of the tenant of the given kind (see CredentialKind); 400 where the kind does not apply to the platform. */
  issueCredentials(platformKey: PlatformKey, tenantId: string, kind: CredentialKind): Promise<IssuedCredentials>;
  /**
   * The end customer connects this connection on the Link page (new tokens for its account; Linked).
   * `otherTenant`: they are signed in to a different account of the platform than the one the
   * connection knows — it links with a new tenant of another identity (its connectionInfo changes).
   * Refused with a 400 SandboxControlError, as the Link page refuses it, when the client's own
   * OAuth app at the platform lacks the platform's callback URL (see OAuthAppState).
   */
  link(companyId: string, connectionId: string, options?: { otherTenant?: boolean }): Promise<LinkResult>;
  /**
   * The end customer of a company without a connection picks a platform on the Link page (a new
   * account and a Linked connection). Refused like `link` (400; the new connection stays PendingAuth).
   */
  linkNewConnection(companyId: string, platformKey: PlatformKey): Promise<LinkResult>;
  /**
   * The platform drops a Linked connection (its account's tokens revoked): Deauthorized in the
   * platform's words, now or at `at` (ISO, sandbox clock) when given.
   */
  deauthorize(companyId: string, connectionId: string, options?: { at?: string; reason?: DropReason }): Promise<DeauthorizeResult>;
  setFaults(patch: Partial<Omit<Faults, "rateLimitPerSecond">> & { rateLimitPerSecond?: number | null }): Promise<Faults>;
  getFaults(): Promise<Faults>;
  advanceClock(params: { days?: number; seconds?: number }): Promise<ClockState>;
  /** The sandbox's clock now (it may have been moved forward). */
  getClock(): Promise<ClockState>;
  reset(): Promise<void>;
  state(): Promise<unknown>;
  /** Every webhook consumer of every client, with its secret. */
  webhookConsumers(): Promise<{ results: WebhookConsumerState[] }>;
  /** The consumer's deliveries, oldest first. */
  webhookDeliveries(webhookId: string): Promise<{ consumer: WebhookConsumerState; results: WebhookDeliveryState[] }>;
  /** Enables the consumer and sends again every failed or missed message made since `since` (default: the 2-week window). */
  replayWebhooks(webhookId: string, options?: { since?: string }): Promise<{ webhookId: string; since: string; replayed: number }>;
};

/** Thrown when a control call does not answer 2xx. */
export class SandboxControlError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(params: { status: number; body: string; what: string }) {
    super(`Sandbox control ${params.what} answered ${params.status}: ${params.body}`);
    this.status = params.status;
    this.body = params.body;
  }
}

/** The error of a fetch whose connection the other side closed before answering. */
function socketClosed(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } } | null)?.cause;
  return error instanceof TypeError && (cause?.code === "UND_ERR_SOCKET" || cause?.code === "ECONNRESET");
}

function oauthAppPath(clientId: string, platformKey: PlatformKey): string {
  return `/_sandbox/clients/${encodeURIComponent(clientId)}/oauth-apps/${platformKey}`;
}

/** A control client for the sandbox at `url` with its admin token. */
export function createControlClient(params: { url: string; adminToken: string }): SandboxControl {
  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${params.url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${params.adminToken}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let response: Response;
    try {
      response = await send(method, path, body);
    } catch (error) {
      // A kept-alive socket the sandbox closed as the request went out (after a long clock advance
      // held its event loop): a read is sent again once; a change is not, since it may have arrived.
      if (method !== "GET" || !socketClosed(error)) throw error;
      response = await send(method, path, body);
    }
    const text = await response.text();
    if (!response.ok) throw new SandboxControlError({ status: response.status, body: text, what: `${method} ${path}` });
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return {
    createClient: (body) => call("POST", "/_sandbox/clients", body),
    setClientSettings: (clientId, settings) => call("PUT", `/_sandbox/clients/${encodeURIComponent(clientId)}/settings`, settings),
    getClientSettings: (clientId) => call("GET", `/_sandbox/clients/${encodeURIComponent(clientId)}/settings`),
    setOAuthApp: (clientId, platformKey, app) => call("PUT", oauthAppPath(clientId, platformKey), app),
    getOAuthApp: (clientId, platformKey) => call("GET", oauthAppPath(clientId, platformKey)),
    deleteOAuthApp: async (clientId, platformKey) => {
      await call("DELETE", oauthAppPath(clientId, platformKey));
    },
    setSyncs: (clientId, mode) => call("PUT", `/_sandbox/clients/${encodeURIComponent(clientId)}/syncs`, { mode }),
    releaseSyncs: (clientId) => call("POST", `/_sandbox/clients/${encodeURIComponent(clientId)}/syncs/release`),
    createTenant: (platformKey, options) => call("POST", `/_sandbox/platforms/${platformKey}/tenants`, options),
    rotate: (platformKey, tenantId) =>
      call("POST", `/_sandbox/platforms/${platformKey}/tenants/${encodeURIComponent(tenantId)}/rotate`),
    issueCredentials: (platformKey, tenantId, kind) =>
      call("POST", `/_sandbox/platforms/${platformKey}/tenants/${encodeURIComponent(tenantId)}/credentials`, { kind }),
    link: (companyId, connectionId, options) =>
      call("POST", `/_sandbox/companies/${encodeURIComponent(companyId)}/connections/${encodeURIComponent(connectionId)}/link`, options),
    linkNewConnection: (companyId, platformKey) => call("POST", `/_sandbox/companies/${encodeURIComponent(companyId)}/link`, { platformKey }),
    deauthorize: (companyId, connectionId, options = {}) =>
      call("POST", `/_sandbox/companies/${encodeURIComponent(companyId)}/connections/${encodeURIComponent(connectionId)}/deauthorize`, options),
    setFaults: (patch) => call("PUT", "/_sandbox/faults", patch),
    getFaults: () => call("GET", "/_sandbox/faults"),
    advanceClock: ({ days, seconds }) =>
      call("POST", "/_sandbox/clock", {
        ...(days === undefined ? {} : { advanceDays: days }),
        ...(seconds === undefined ? {} : { advanceSeconds: seconds }),
      }),
    getClock: () => call("GET", "/_sandbox/clock"),
    reset: async () => {
      await call("POST", "/_sandbox/reset");
    },
    state: () => call("GET", "/_sandbox/state"),
    webhookConsumers: () => call("GET", "/_sandbox/webhooks"),
    webhookDeliveries: (webhookId) => call("GET", `/_sandbox/webhooks/${encodeURIComponent(webhookId)}/deliveries`),
    replayWebhooks: (webhookId, options = {}) => call("POST", `/_sandbox/webhooks/${encodeURIComponent(webhookId)}/replay`, options),
  };
}

/** The `Authorization` header value for an API key: `Basic base64(key)`. */
export function basicAuth(apiKey: string): string {
  return `Basic ${Buffer.from(apiKey).toString("base64")}`;
}
