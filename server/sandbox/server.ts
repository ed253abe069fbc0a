/**
 * The sandbox HTTP server: the service's API, the test controls under /_sandbox, and the Link
 * pages under /link (link/link-routes.ts) behind companies' redirect and connections' linkUrl.
 * Plain node:http; every response carries `X-Correlation-Id` (a new UUID),
 * every API response the three `X-Rate-Limit-*` headers.
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
import { handleLinkRequest, LINK_HEADERS } from "./link/link-routes";
import { API_ROUTES } from "./routes";
import { settleDue } from "./simulators/settle";
import { openStore } from "./store/store";

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

/** Starts a sandbox on its SQLite file; resolves once it listens. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const basePath = normalizeBasePath(options.basePath);
  const store = openStore(options.dbFile);
  const clock = createClock(store);
  const log = options.log ?? (() => {});

  let adminToken = options.adminToken ?? store.meta.get(ADMIN_TOKEN_KEY);
  if (!adminToken) {
    adminToken = randomBytes(24).toString("base64url");
    store.meta.set(ADMIN_TOKEN_KEY, adminToken);
  }

  let linkSecret = store.meta.get(LINK_SECRET_KEY);
  if (!linkSecret) {
    linkSecret = randomBytes(32).toString("base64url");
    store.meta.set(LINK_SECRET_KEY, linkSecret);
  }

  const app: SandboxApp = {
    store,
    clock,
    faults: createFaultState(store),
    rateLimits: new RateLimits({
      countRequest: (params) => store.quotaUsage.increment(params),
      forgetBefore: (day) => store.quotaUsage.deleteBefore(day),
      connectedCompanies: (clientId) => store.connections.countLinkedCompanies(clientId),
      connectionChangeCount: () => store.connections.changeCount(),
    }),
    adminToken,
    publicUrl: "",
    basePath,
    linkSecret,
    demoApiKey: null,
    log,
  };

  const ensureDemoClient = () => {
    if (!options.demoClient) return;
    const apiKey = store.meta.get(DEMO_KEY) ?? newApiKeyValue();
    if (!store.apiKeys.findByValue(apiKey)) {
      createClient({ store, plan: "paid", createdAt: clock.now(), name: "Demo client", apiKey, isDemo: true });
    }
    store.meta.set(DEMO_KEY, apiKey);
    app.demoApiKey = apiKey;
  };
  ensureDemoClient();

  async function handleControl(req: IncomingMessage, path: string): Promise<ApiResponse> {
    assertAdmin(req.headers.authorization, app.adminToken);
    const method = req.method ?? "GET";
    const match = routeOrThrow(matchOrBadPath(controlRouter, method, path), { method, path, service: "SandboxControls" });
    const body = parseJsonBody(await readBody(req, "SandboxControls"));
    const now = clock.now();
    // What fell due (a scheduled drop, a finished sync) happens before the control acts, as before an API call.
    settleDue(store, now);
    return match.handler({ app, now, params: match.params, body, afterReset: ensureDemoClient });
  }

  async function handleApi(
    req: IncomingMessage,
    path: string,
    query: URLSearchParams,
    headers: Record<string, string>,
  ): Promise<ApiResponse> {
    const faults = app.faults.get();
    if (faults.latencyMs > 0) await delay(faults.latencyMs);
    const caller = identifyCaller(store, req.headers.authorization);
    const address = req.socket.remoteAddress ?? "";
    const clientId = caller.kind === "client" ? caller.client.id : caller.kind === "outdated" ? caller.clientId : null;
    const rate = app.rateLimits.check({ now: clock.now(), faults, clientKey: clientId ?? `ip:${address}`, address, clientId });
    headers["X-Rate-Limit-Limit"] = String(rate.binding.limit);
    headers["X-Rate-Limit-Remaining"] = String(rate.binding.remaining);
    headers["X-Rate-Limit-Reset"] = rate.resetAtIso;

    if (faults.maintenance) throw maintenance();
    if (rate.exceeded) throw tooManyRequests(rate.retryAfterSeconds);
    const method = req.method ?? "GET";
    const match = routeOrThrow(matchOrBadPath(apiRouter, method, path), { method, path, service: "PublicApi" });
    if (caller.kind === "anonymous" || caller.kind === "unknown") throw unauthorized();
    if (caller.kind === "outdated") throw forbidden();
    const now = clock.now();
    if (isAccountExpired({ plan: caller.client.plan, createdAt: caller.client.createdAt, now })) throw accountExpired();
    if (faults.errorRate > 0 && Math.random() < faults.errorRate) throw internalError();
    const body = parseJsonBody(await readBody(req, "PublicApi"));
    settleDue(store, now);
    return match.handler({ app, now, client: caller.client, params: match.params, query, path, body });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const correlationId = randomUUID();
    // Date on the sandbox clock, so X-Rate-Limit-Reset minus Date is the wait whatever the offset.
    const headers: Record<string, string> = { "X-Correlation-Id": correlationId, Date: new Date(clock.now()).toUTCString() };
    const split = splitUrl(req.url ?? "/");
    const { query } = split;
    let path = split.path;
    try {
      if (basePath) {
        if (path !== basePath && !path.startsWith(`${basePath}/`)) throw pathNotFound(path, "PublicApi");
        path = path.slice(basePath.length) || "/";
      }
      if (path === "/link" || path.startsWith("/link/")) {
        const page = await handleLinkRequest({ app, req, path, query });
        const body = req.method === "HEAD" ? "" : page.body;
        res.writeHead(page.status, {
          ...LINK_HEADERS,
          ...page.headers,
          "X-Correlation-Id": correlationId,
          Date: headers.Date ?? new Date().toUTCString(),
          "Content-Type": page.contentType,
          "Content-Length": String(Buffer.byteLength(page.body)),
        });
        res.end(body);
        discardBody(req);
        return;
      }
      const isControl = path === "/_sandbox" || path.startsWith("/_sandbox/");
      const result = isControl ? await handleControl(req, path) : await handleApi(req, path, query, headers);
      writeResponse(res, { status: result.status, body: result.body, headers: { ...headers, ...result.headers } });
    } catch (error) {
      // The client hung up mid-request: nobody is left to answer, and nothing went wrong here.
      if (error instanceof ClientGoneError) return;
      let apiError: ApiError;
      if (error instanceof ApiError) apiError = error;
      else {
        log(`sandbox: unexpected error on ${req.method} ${path} (${correlationId}): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        apiError = internalError();
      }
      writeResponse(res, {
        status: apiError.status,
        body: apiError.toBody(correlationId),
        headers: { ...headers, ...apiError.headers },
      });
      // Read past an unread body so the keep-alive connection can carry the next request.
      discardBody(req);
    }
  }

  const server = http.createServer((req, res) => {
    void handle(req, res);
  });
  server.keepAliveTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("The sandbox server has no TCP address.");
  const host = options.host && options.host !== "0.0.0.0" && options.host !== "::" ? options.host : "127.0.0.1";
  const urlHost = host.includes(":") ? `[${host}]` : host;
  app.publicUrl = `http://${urlHost}:${address.port}${basePath}`;

  let closed = false;
  return {
    url: app.publicUrl,
    port: address.port,
    adminToken,
    demoApiKey: app.demoApiKey,
    close: async () => {
      if (closed) return;
      closed = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      store.close();
    },
  };
}
