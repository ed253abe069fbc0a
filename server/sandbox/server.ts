/**
 * The sandbox HTTP server: the service's API, the test controls under /_sandbox, the Link
 * pages under /link (link/link-routes.ts) behind companies' redirect and connections' linkUrl,
 * and the simulated platforms' developer console under /developer (developer/developer-routes.ts).
 * Plain node:http; every response carries `X-Correlation-Id` (a new UUID),
 * every API response the three `X-Rate-Limit-*` headers.
 *
 * Webhooks (webhooks/): state changes make messages in the store; a timer sends them.
 *
 * API request pipeline, in order: latency fault → maintenance (503) → rate limit (429) →
 * route (404 / 405) → API key (401 / 403) → expired free account (402) → injected error (500) →
 * body (413 over 5 MB, 400 unreadable) → settle finished operations → handler. A client that
 * hangs up before its body is read gets no answer and no log line.
 */
import { randomBytes, randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { createClient, identifyCaller, newApiKeyValue } from "./domain/client-accounts";
import { createClock } from "./domain/clock";
import type { ApiContext, SandboxApp } from "./context";
import { assertAdmin, controlRoutes, type ControlContext } from "./controls/control-routes";
import {
  accountExpired,
  ApiError,
  badRequest,
  forbidden,
  internalError,
  maintenance,
  methodNotAllowed,
  pathNotFound,
  tooManyRequests,
  unauthorized,
  type ServiceName,
} from "./http/errors";
import { createFaultState } from "./domain/faults";
import { ClientGoneError, discardBody, parseJsonBody, readBody, writeResponse, type ApiResponse } from "./http/io";
import { isAccountExpired } from "./domain/limits";
import { RateLimits } from "./domain/rate-limits";
import { createRouter, MalformedPathError, type RouteMatch } from "./http/router";
import { handleDeveloperRequest } from "./developer/developer-routes";
import { handleLinkRequest, LINK_HEADERS } from "./link/link-routes";
import { API_ROUTES } from "./routes";
import { settleDue } from "./simulators/settle";
import { openStore, type Store } from "./store/store";
import { createWebhookDispatcher } from "./webhooks/dispatcher";
import { createWebhookEmitter } from "./webhooks/emitter";

export type SandboxOptions = {
  /** SQLite file; created with its folder if missing. */
  dbFile: string;
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Admin token for /_sandbox; when absent, the stored one, or a new one stored for next time. */
  adminToken?: string;
  /**
   * Serve the API under a path prefix (e.g. `/codat`, as when mounted behind a proxy): requests
   * must start with it; the public URL includes it.
   */
  basePath?: string;
  /** Keep a paid demo client with a stable API key, re-created after a reset. */
  demoClient?: boolean;
  /** How often (real milliseconds) the webhook dispatcher settles what fell due and sends what is due; default 250. */
  webhookTickMs?: number;
  log?: (line: string) => void;
};

export type Sandbox = {
  url: string;
  port: number;
  adminToken: string;
  /** The demo client's API key, when `demoClient` was asked for. */
  demoApiKey: string | null;
  close(): Promise<void>;
};

const ADMIN_TOKEN_KEY = "admin_token";
const DEMO_KEY = "demo_api_key";
/** Kept across resets (the reset control keeps it), so a Link page open during a reset still posts. */
const LINK_SECRET_KEY = "link_secret";

const apiRouter = createRouter<ApiContext, ApiResponse | Promise<ApiResponse>>(API_ROUTES);

const controlRouter = createRouter<ControlContext, ApiResponse>(controlRoutes);

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function splitUrl(url: string): { path: string; query: URLSearchParams } {
  const q = url.indexOf("?");
  return q === -1 ? { path: url, query: new URLSearchParams() } : { path: url.slice(0, q), query: new URLSearchParams(url.slice(q + 1)) };
}

function routeOrThrow<C, R>(match: RouteMatch<C, R>, params: { method: string; path: string; service: ServiceName }) {
  if (match.kind === "found") return match;
  if (match.kind === "method-not-allowed") {
    throw methodNotAllowed({ method: params.method, path: params.path, allowed: match.allowed, service: params.service });
  }
  throw pathNotFound(params.path, params.service);
}

function matchOrBadPath<C, R>(router: { match(method: string, path: string): RouteMatch<C, R> }, method: string, path: string) {
  try {
    return router.match(method, path);
  } catch (error) {
    if (error instanceof MalformedPathError) {
      throw badRequest([{ itemId: "path", message: `The path segment "${error.message}" is not valid percent-encoding.` }]);
    }
    throw error;
  }
}

/** Normalises a base path to "" or "/segment[/segment…]" without a trailing slash. */
export function normalizeBasePath(raw: string | undefined): string {
  const trimmed = (raw ?? "").trim().replace(/\/+$/, "");
  if (!trimmed) return "";
  if (!/^\/?[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/.test(trimmed)) throw new Error(`Not a valid base path: "${raw}"`);
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

/** One sandbox's state, which the named steps below share. */
type SandboxState = {
  app: SandboxApp;
  /** Whether a paid demo client is kept (re-created after a reset). */
  demoClient: boolean;
};

/** A new secret of `bytes` random bytes, stored under `key` for the next start. */
function newStoredSecret(store: Store, key: string, bytes: number): string {
  const secret = randomBytes(bytes).toString("base64url");
  store.meta.set(key, secret);
  return secret;
}

/** The sandbox's parts on its store: the admin token given, else the stored one, else a new one stored for next time. */
function appOf(options: SandboxOptions, params: { store: Store; basePath: string }): SandboxApp {
  const { store, basePath } = params;
  const adminToken = (options.adminToken ?? store.meta.get(ADMIN_TOKEN_KEY)) || newStoredSecret(store, ADMIN_TOKEN_KEY, 24);
  const linkSecret = store.meta.get(LINK_SECRET_KEY) || newStoredSecret(store, LINK_SECRET_KEY, 32);
  const clock = createClock(store);
  const faults = createFaultState(store);
  const app: SandboxApp = {
    store,
    clock,
    faults,
    rateLimits: new RateLimits({
      countRequest: (params) => store.quotaUsage.increment(params),
      forgetBefore: (day) => store.quotaUsage.deleteBefore(day),
      connectedCompanies: (clientId) => store.connections.countLinkedCompanies(clientId),
      connectionChangeCount: () => store.connections.changeCount(),
    }),
    webhooks: createWebhookEmitter({ store, now: () => clock.now(), faults, publicUrl: () => app.publicUrl, linkSecret }),
    adminToken,
    publicUrl: "",
    basePath,
    linkSecret,
    demoApiKey: null,
    log: options.log ?? (() => {}),
  };
  // Every connection write and settled sync is told to the emitter, in the transaction that makes it.
  store.observe(app.webhooks);
  return app;
}

/**
 * Keeps the demo client (when asked for) with its stable API key, creating it again after a reset,
 * with one-time Link URLs on.
 */
function ensureDemoClient(state: SandboxState): void {
  if (!state.demoClient) return;
  const { app } = state;
  const { store } = app;
  const apiKey = store.meta.get(DEMO_KEY) ?? newApiKeyValue();
  if (!store.apiKeys.findByValue(apiKey)) {
    // One-time Link URLs on, so the demo shows them (a control can turn them off; a restart keeps that).
    createClient({ store, plan: "paid", createdAt: app.clock.now(), name: "Demo client", apiKey, isDemo: true, oneTimeLinkUrls: true });
  }
  store.meta.set(DEMO_KEY, apiKey);
  app.demoApiKey = apiKey;
}

/** A request to the test controls under /_sandbox (admin token required). */
async function handleControl(state: SandboxState, req: IncomingMessage, path: string): Promise<ApiResponse> {
  const { app } = state;
  assertAdmin(req.headers.authorization, app.adminToken);
  const method = req.method ?? "GET";
  const match = routeOrThrow(matchOrBadPath(controlRouter, method, path), { method, path, service: "SandboxControls" });
  const body = parseJsonBody(await readBody(req, "SandboxControls"));
  const now = app.clock.now();
  // What fell due (a scheduled drop, a finished sync) happens before the control acts, as before an API call.
  settleDue(app.store, now);
  return match.handler({ app, now, params: match.params, body, afterReset: () => ensureDemoClient(state) });
}

/** A request to the service's API, through the pipeline of the module comment; sets the rate-limit headers on `headers`. */
async function handleApi(
  state: SandboxState,
  params: { req: IncomingMessage; path: string; query: URLSearchParams; headers: Record<string, string> },
): Promise<ApiResponse> {
  const { app } = state;
  const { req, path, query, headers } = params;
  const faults = app.faults.get();
  if (faults.latencyMs > 0) await delay(faults.latencyMs);
  const caller = identifyCaller(app.store, req.headers.authorization);
  const address = req.socket.remoteAddress ?? "";
  const clientId = caller.kind === "client" ? caller.client.id : caller.kind === "outdated" ? caller.clientId : null;
  const rate = app.rateLimits.check({ now: app.clock.now(), faults, clientKey: clientId ?? `ip:${address}`, address, clientId });
  headers["X-Rate-Limit-Limit"] = String(rate.binding.limit);
  headers["X-Rate-Limit-Remaining"] = String(rate.binding.remaining);
  headers["X-Rate-Limit-Reset"] = rate.resetAtIso;

  if (rate.daily?.exceeded && clientId !== null) {
    app.webhooks.quotaExceeded({ clientId, day: Math.floor(rate.daily.resetAt / 86_400_000) - 1, dailyQuota: rate.daily.limit, now: app.clock.now() });
  }
  if (faults.maintenance) throw maintenance();
  if (rate.exceeded) throw tooManyRequests(rate.retryAfterSeconds);
  const method = req.method ?? "GET";
  const match = routeOrThrow(matchOrBadPath(apiRouter, method, path), { method, path, service: "PublicApi" });
  if (caller.kind === "anonymous" || caller.kind === "unknown") throw unauthorized();
  if (caller.kind === "outdated") throw forbidden();
  const now = app.clock.now();
  if (isAccountExpired({ plan: caller.client.plan, createdAt: caller.client.createdAt, now })) throw accountExpired();
  if (faults.errorRate > 0 && Math.random() < faults.errorRate) throw internalError();
  const body = parseJsonBody(await readBody(req, "PublicApi"));
  settleDue(app.store, now);
  return match.handler({ app, now, client: caller.client, params: match.params, query, path, body });
}

/** The path below the base path (none: the path as it is); a request outside it is a 404. */
function belowBasePath(basePath: string, path: string): string {
  if (!basePath) return path;
  if (path !== basePath && !path.startsWith(`${basePath}/`)) throw pathNotFound(path, "PublicApi");
  return path.slice(basePath.length) || "/";
}

/** The public HTML pages: the Link flow, and the simulated platforms' developer console. */
type PageHandler = typeof handleLinkRequest;

/** The handler of a public page's path, or null when the path is not one. */
function pageHandlerOf(path: string): PageHandler | null {
  if (path === "/link" || path.startsWith("/link/")) return handleLinkRequest;
  if (path === "/developer" || path.startsWith("/developer/")) return handleDeveloperRequest;
  return null;
}

/** Answers a public page (HTML, not the API's JSON), with the Link pages' headers. */
async function servePage(
  state: SandboxState,
  handler: PageHandler,
  params: { req: IncomingMessage; res: ServerResponse; path: string; query: URLSearchParams; correlationId: string; date: string },
): Promise<void> {
  const { req, res } = params;
  const page = await handler({ app: state.app, req, path: params.path, query: params.query });
  const body = req.method === "HEAD" ? "" : page.body;
  res.writeHead(page.status, {
    ...LINK_HEADERS,
    ...page.headers,
    "X-Correlation-Id": params.correlationId,
    Date: params.date,
    "Content-Type": page.contentType,
    "Content-Length": String(Buffer.byteLength(page.body)),
  });
  res.end(body);
  discardBody(req);
}

/** Answers a request that failed: its ApiError, or a 500 for anything unexpected (logged). */
function answerError(
  state: SandboxState,
  params: { req: IncomingMessage; res: ServerResponse; error: unknown; path: string; correlationId: string; headers: Record<string, string> },
): void {
  const { req, error, correlationId } = params;
  // The client hung up mid-request: nobody is left to answer, and nothing went wrong here.
  if (error instanceof ClientGoneError) return;
  let apiError: ApiError;
  if (error instanceof ApiError) apiError = error;
  else {
    state.app.log(`sandbox: unexpected error on ${req.method} ${params.path} (${correlationId}): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    apiError = internalError();
  }
  writeResponse(params.res, {
    status: apiError.status,
    body: apiError.toBody(correlationId),
    headers: { ...params.headers, ...apiError.headers },
  });
  // Read past an unread body so the keep-alive connection can carry the next request.
  discardBody(req);
}

/** Answers one request: a Link page, a control, or an API call. */
async function handle(state: SandboxState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const correlationId = randomUUID();
  // Date on the sandbox clock, so X-Rate-Limit-Reset minus Date is the wait whatever the offset.
  const date = new Date(state.app.clock.now()).toUTCString();
  const headers: Record<string, string> = { "X-Correlation-Id": correlationId, Date: date };
  const split = splitUrl(req.url ?? "/");
  const { query } = split;
  let path = split.path;
  try {
    path = belowBasePath(state.app.basePath, path);
    const pageHandler = pageHandlerOf(path);
    if (pageHandler) {
      await servePage(state, pageHandler, { req, res, path, query, correlationId, date });
      return;
    }
    const isControl = path === "/_sandbox" || path.startsWith("/_sandbox/");
    const result = isControl ? await handleControl(state, req, path) : await handleApi(state, { req, path, query, headers });
    writeResponse(res, { status: result.status, body: result.body, headers: { ...headers, ...result.headers } });
  } catch (error) {
    answerError(state, { req, res, error, path, correlationId, headers });
  }
}

/** Listens on the port and host asked for; resolves with the port it got. */
async function listen(server: http.Server, options: Pick<SandboxOptions, "port" | "host">): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("The sandbox server has no TCP address.");
  return address.port;
}

/** The sandbox's public URL: a wildcard host is reached on loopback, an IPv6 host in brackets, then the base path. */
export function publicUrlOf(params: { host: string | undefined; port: number; basePath: string }): string {
  const { host: asked } = params;
  const host = asked && asked !== "0.0.0.0" && asked !== "::" ? asked : "127.0.0.1";
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return `http://${urlHost}:${params.port}${params.basePath}`;
}

/** Starts a sandbox on its SQLite file; resolves once it listens. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const basePath = normalizeBasePath(options.basePath);
  const store = openStore(options.dbFile);
  const state: SandboxState = { app: appOf(options, { store, basePath }), demoClient: options.demoClient ?? false };
  const { app } = state;
  ensureDemoClient(state);

  const server = http.createServer((req, res) => {
    void handle(state, req, res);
  });
  server.keepAliveTimeout = 30_000;
  const port = await listen(server, options);
  app.publicUrl = publicUrlOf({ host: options.host, port, basePath: app.basePath });
  const dispatcher = createWebhookDispatcher({ app, tickMs: options.webhookTickMs ?? 250 });
  dispatcher.start();

  let closed = false;
  return {
    url: app.publicUrl,
    port,
    adminToken: app.adminToken,
    demoApiKey: app.demoApiKey,
    close: async () => {
      if (closed) return;
      closed = true;
      await dispatcher.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      store.close();
    },
  };
}
