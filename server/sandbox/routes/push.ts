/**
 * Push (write) operations (reference §10): create (200, Pending), history (paged), get one.
 */
import { param, requireCompany, requireConnection, type ApiContext } from "../context";
import { badRequest, dataTypeNotSupported, notFound, pathNotFound } from "../http/errors";
import { isPlainObject, type ApiResponse } from "../http/io";
import { listPage, type ListSpec } from "../http/query";
import { requireProfile, supportsDataType } from "../simulators/profiles";
import { planPush, validateRecord, writableFor } from "../simulators/pushes";
import { ensureServiceAccess, type PlatformRejection } from "../simulators/tokens";
import { pushView } from "./views";
import type { ApiRoute } from "./types";

/** Write delay of a platform whose tenant is unknown (credentials failed before any lookup). */
const DEFAULT_DELAY_MS = 1000;

function readTimeout(query: URLSearchParams): number | null {
  const raw = query.get("timeoutInMinutes");
  if (raw === null || raw === "") return null;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw badRequest([{ itemId: "timeoutInMinutes", message: "timeoutInMinutes must be a whole number of at least 1.", validatorName: "Push" }]);
  }
  return Number(raw);
}

function readAllowSync(query: URLSearchParams): void {
  const raw = query.get("allowSyncOnPushComplete");
  if (raw === null || raw === "" || raw === "true" || raw === "false") return;
  throw badRequest([{ itemId: "allowSyncOnPushComplete", message: "allowSyncOnPushComplete must be true or false.", validatorName: "Push" }]);
}

function create(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const connection = requireConnection(ctx, company);
  const segment = param(ctx, "dataType");
  const writable = writableFor(segment);
  if (!writable) throw pathNotFound(ctx.path);
  const { platform } = requireProfile(connection.platformKey);
  if (!supportsDataType(platform, writable.dataType)) throw dataTypeNotSupported(writable.dataType, [platform.name]);
  const timeoutMinutes = readTimeout(ctx.query);
  readAllowSync(ctx.query);
  if (!isPlainObject(ctx.body)) {
    throw badRequest([{ itemId: "body", message: `The body must be the ${writable.validatorName} record to write, as a JSON object.` }]);
  }
  if (connection.status === "PendingAuth" || connection.status === "Unlinked") {
    throw badRequest([
      {
        itemId: "connectionId",
        message: `Connection ${connection.id} is ${connection.status}; writes need a Linked connection.`,
        validatorName: "Push",
      },
    ]);
  }
  const body = ctx.body;
  const { store } = ctx.app;
  const row = store.transaction(() => {
    let rejection: PlatformRejection | null = null;
    let delayMs = DEFAULT_DELAY_MS;
    if (connection.status === "Deauthorized") {
      rejection = {
        statusCode: "401",
        statusText: "Unauthorized",
        errorMessage: `The ${platform.name} connection is Deauthorized: reauthorization is required before data can be written.`,
      };
    } else {
      const access = ensureServiceAccess({ store, platform, connection, now: ctx.now });
      if (!access.ok) rejection = access.rejection;
      else if (access.connection !== connection) store.connections.save(access.connection);
      const tenant = connection.tenantId ? store.tenants.get(connection.tenantId) : undefined;
      if (tenant) delayMs = tenant.pushDelayMs;
    }
    const planned = planPush({
      companyId: company.id,
      connectionId: connection.id,
      platform,
      writable,
      problems: rejection ? [] : validateRecord(writable, body),
      rejection,
      delayMs,
      timeoutMinutes,
      now: ctx.now,
    });
    store.pushes.insert(planned);
    return { ...planned, settled: 0 };
  });
  return { status: 200, body: pushView(row, ctx.now) };
}

const PUSH_LIST: ListSpec = {
  entity: "PushOperation",
  service: "PublicApi",
  properties: new Set([
    "dataType",
    "companyId",
    "pushOperationKey",
    "dataConnectionKey",
    "requestedOnUtc",
    "completedOnUtc",
    "timeoutInMinutes",
    "status",
    "statusCode",
    "platformStatusCode",
    "errorMessage",
  ]),
};

function history(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const views = ctx.app.store.pushes
    .listByCompany(company.id)
    .reverse()
    .map((row) => pushView(row, ctx.now));
  return { status: 200, body: listPage({ items: views, query: ctx.query, spec: PUSH_LIST, path: `/companies/${company.id}/push` }) };
}

function get(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const key = param(ctx, "pushOperationKey");
  const row = ctx.app.store.pushes.get(key);
  if (!row || row.companyId !== company.id) throw notFound(`No push operation was found with key ${key}`);
  return { status: 200, body: pushView(row, ctx.now) };
}

export const pushRoutes: readonly ApiRoute[] = [
  { method: "POST", pattern: "/companies/:companyId/connections/:connectionId/push/:dataType", handler: create },
  { method: "GET", pattern: "/companies/:companyId/push", handler: history },
  { method: "GET", pattern: "/companies/:companyId/push/:pushOperationKey", handler: get },
];
