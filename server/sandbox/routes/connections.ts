/**
 * Data connections (reference §4) and the token-migration call (§5.1):
 * create with `platformKey` (PendingAuth), list, get, unlink (PATCH), delete (200), and
 * PUT .../authorization with the platform's credential fields.
 */
import { checkCredentials, isManagedPlatformKey, MANAGED_PLATFORMS, type ManagedPlatform } from "../../platforms";
import { accountingSlotConflict } from "../domain/accounting-slot";
import { iso } from "../domain/clock";
import { param, requireCompany, requireConnection, type ApiContext } from "../context";
import { badRequest, conflict, notFound } from "../http/errors";
import { isPlainObject, type ApiResponse } from "../http/io";
import { listPage, type ListSpec } from "../http/query";
import { getProfile, platformOf } from "../simulators/profiles";
import { identityInfo, newConnection, resolveErrors } from "../simulators/consent";
import { acceptMigratedCredentials } from "../simulators/tokens";
import type { CompanyRow, ConnectionRow } from "../store/store";
import { linkUrlsFor, type LinkUrls } from "../link/link-urls";
import { connectionView } from "./views";
import type { ApiRoute } from "./types";

const SIMULATED = MANAGED_PLATFORMS.map((p) => `${p.key} (${p.name})`).join(", ");

/** The client's Link addresses for this request (with one-time Link URLs, each with a new token). */
function links(ctx: ApiContext): LinkUrls {
  return linkUrlsFor(ctx.app, ctx.client.id, ctx.now);
}

/** The accounting rule (domain/accounting-slot.ts): a second active accounting connection answers 409. */
function assertAccountingSlotFree(params: { ctx: ApiContext; company: CompanyRow; platform: ManagedPlatform; except?: string }): void {
  const problem = accountingSlotConflict({
    store: params.ctx.app.store,
    companyId: params.company.id,
    platform: params.platform,
    except: params.except,
  });
  if (problem) throw conflict(problem);
}

function create(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const body = ctx.body === undefined ? {} : ctx.body;
  if (!isPlainObject(body)) throw badRequest([{ itemId: "body", message: 'The body must be an object like {"platformKey": "qhyg"}.' }]);
  const key = body.platformKey;
  if (typeof key !== "string" || !/^[a-z]{4}$/.test(key)) {
    throw badRequest([
      { itemId: "platformKey", message: "platformKey is required: the platform's four lower-case letters, e.g. qhyg.", validatorName: "CreateConnection" },
    ]);
  }
  if (!isManagedPlatformKey(key)) {
    throw badRequest([
      { itemId: "platformKey", message: `The sandbox does not simulate platform ${key}; it simulates ${SIMULATED}.`, validatorName: "CreateConnection" },
    ]);
  }
  const platform = platformOf(key);
  const connection = newConnection(company.id, key, ctx.now);
  ctx.app.store.transaction(() => {
    assertAccountingSlotFree({ ctx, company, platform });
    ctx.app.store.connections.insert(connection);
  });
  return { status: 200, body: connectionView(connection, links(ctx)) };
}

const CONNECTION_LIST: ListSpec = {
  entity: "Connection",
  service: "PublicApi",
  properties: new Set([
    "id",
    "integrationId",
    "integrationKey",
    "sourceId",
    "platformName",
    "linkUrl",
    "status",
    "lastSync",
    "created",
    "sourceType",
  ]),
};

function list(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const urls = links(ctx);
  const views = ctx.app.store.connections.listByCompany(company.id).map((c) => connectionView(c, urls));
  return {
    status: 200,
    body: listPage({ items: views, query: ctx.query, spec: CONNECTION_LIST, path: `/companies/${company.id}/connections` }),
  };
}

function get(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  return { status: 200, body: connectionView(requireConnection(ctx, company), links(ctx)) };
}

function unlink(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const connection = requireConnection(ctx, company);
  const body = ctx.body;
  if (!isPlainObject(body) || body.status !== "Unlinked") {
    throw badRequest([{ itemId: "status", message: 'The body must be {"status": "Unlinked"}.', validatorName: "UpdateConnectionStatus" }]);
  }
  if (connection.status !== "Linked") {
    throw badRequest([
      {
        itemId: "status",
        message: `Only Linked connections can be unlinked; connection ${connection.id} is ${connection.status}.`,
        validatorName: "UpdateConnectionStatus",
      },
    ]);
  }
  const next: ConnectionRow = { ...connection, status: "Unlinked" };
  ctx.app.store.connections.save(next);
  return { status: 200, body: connectionView(next, links(ctx)) };
}

function remove(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const connection = requireConnection(ctx, company);
  ctx.app.store.connections.delete(connection.id);
  // 200 with no body: the SDK's delete-connection accepts 200 only (a 204 is rejected).
  return { status: 200 };
}

function authorize(ctx: ApiContext): ApiResponse {
  const company = requireCompany(ctx);
  const connection = requireConnection(ctx, company);
  const platform = platformOf(connection.platformKey);
  const body = ctx.body === undefined ? {} : ctx.body;
  if (!isPlainObject(body)) {
    throw badRequest([
      {
        itemId: "body",
        message: `The body must be an object of ${platform.name} credential fields: ${platform.credentialFields.map((f) => f.name).join(", ")}.`,
        validatorName: "ConnectionAuthorization",
      },
    ]);
  }
  const check = checkCredentials(platform, body);
  if (!check.ok) {
    throw badRequest(check.problems.map((p) => ({ itemId: p.field, message: p.message, validatorName: "ConnectionAuthorization" })));
  }
  const { store } = ctx.app;
  const next = store.transaction(() => {
    if (connection.status === "Unlinked") assertAccountingSlotFree({ ctx, company, platform, except: connection.id });
    const result = acceptMigratedCredentials({ store, platform, credentials: check.credentials, connection, now: ctx.now });
    let updated: ConnectionRow;
    if (result.ok) {
      updated = {
        ...connection,
        status: "Linked",
        authorizedAt: ctx.now,
        tenantId: result.tenant.id,
        accountTenantId: result.tenant.id,
        accessToken: result.accessToken,
        refreshToken: result.refreshToken,
        connectionInfo: identityInfo(result.tenant),
        errors: resolveErrors(connection.errors, ctx.now),
      };
    } else {
      updated = {
        ...connection,
        status: "Deauthorized",
        authorizedAt: ctx.now,
        tenantId: null,
        accountTenantId: result.accountTenantId ?? connection.accountTenantId,
        accessToken: null,
        refreshToken: null,
        errors: [
          ...resolveErrors(connection.errors, ctx.now),
          { ...result.rejection, erroredOnUtc: iso(ctx.now), status: "Active" },
        ],
      };
    }
    store.connections.save(updated);
    return updated;
  });
  return { status: 200, body: connectionView(next, links(ctx)) };
}

export const connectionRoutes: readonly ApiRoute[] = [
  { method: "GET", pattern: "/companies/:companyId/connections", handler: list },
  { method: "POST", pattern: "/companies/:companyId/connections", handler: create },
  { method: "GET", pattern: "/companies/:companyId/connections/:connectionId", handler: get },
  { method: "PATCH", pattern: "/companies/:companyId/connections/:connectionId", handler: unlink },
  { method: "DELETE", pattern: "/companies/:companyId/connections/:connectionId", handler: remove },
  { method: "PUT", pattern: "/companies/:companyId/connections/:connectionId/authorization", handler: authorize },
];

/** Integrations list (reference §12): the six simulated platforms. */
function integrationView(key: string, ctx: ApiContext): Record<string, unknown> | null {
  const profile = getProfile(key);
  if (!profile) return null;
  return {
    key: profile.platform.key,
    logoUrl: `${ctx.app.publicUrl}/link/logos/${profile.platform.key}.svg`,
    name: profile.platform.name,
    enabled: true,
    sourceId: profile.sourceId,
    sourceType: profile.platform.sourceType,
    integrationId: profile.integrationId,
    isOfflineConnector: false,
    isBeta: false,
  };
}

const INTEGRATION_LIST: ListSpec = {
  entity: "Integration",
  service: "PublicApi",
  properties: new Set(["key", "name", "enabled", "sourceType", "integrationId", "sourceId"]),
};

export const integrationRoutes: readonly ApiRoute[] = [
  {
    method: "GET",
    pattern: "/integrations",
    handler: (ctx) => ({
      status: 200,
      body: listPage({
        items: MANAGED_PLATFORMS.map((p) => integrationView(p.key, ctx)).filter((v): v is Record<string, unknown> => v !== null),
        query: ctx.query,
        spec: INTEGRATION_LIST,
        path: "/integrations",
      }),
    }),
  },
  {
    method: "GET",
    pattern: "/integrations/:platformKey",
    handler: (ctx) => {
      const key = param(ctx, "platformKey");
      const view = integrationView(key, ctx);
      if (!view) throw notFound(`No integration was found with key ${key}; the sandbox simulates ${SIMULATED}.`);
      return { status: 200, body: view };
    },
  },
];
