/**
 * Test controls under /_sandbox, for Ferry's demo seed, tests and rehearsals. Allowed only with
 * `Authorization: Bearer <admin token>`. They work in maintenance mode and are never rate
 * limited, counted against a quota or faulted, so a test can always turn a fault off again.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { isDataType, isManagedPlatformKey, MANAGED_PLATFORM_KEYS, MANAGED_PLATFORMS, type PlatformKey } from "../../platforms";
import { createClient } from "../domain/client-accounts";
import { iso } from "../domain/clock";
import type { SandboxApp } from "../context";
import { ApiError, badRequest, notFound, type ValidationItem } from "../http/errors";
import { DEFAULT_FAULTS } from "../domain/faults";
import type { ApiResponse } from "../http/io";
import { isAccountExpired } from "../domain/limits";
import type { Route } from "../http/router";
import { getProfile, platformOf } from "../simulators/profiles";
import { createTenant } from "../simulators/tenants";
import {
  CREDENTIAL_KINDS,
  issueCredentialsOfKind,
  issueCustomerCredentials,
  rotatedRejection,
  rotateTenantTokens,
} from "../simulators/tokens";
import { linkUrlsFor } from "../link/link-urls";
import { connectionView } from "../routes/views";
import { consentToConnection, consentToNewConnection, type ConsentResult } from "../simulators/consent";
import { applyDrop, scheduleDrop } from "../simulators/drops";
import { APP_CLIENT_ID, oauthAppView, putOAuthApp } from "../simulators/oauth-apps";
import { MAX_REDIRECT_URIS, redirectUriProblem } from "../domain/redirect-uris";
import { SYNC_MODES } from "../store/clients-table";
import type { ClientRow, CompanyRow, ConnectionRow, TenantRow, WebhookConsumerRow } from "../store/store";
import { webhookConsumerView } from "../routes/webhooks";
import { REPLAY_WINDOW_MS } from "../webhooks/events";

export type ControlContext = {
  app: SandboxApp;
  now: number;
  params: Record<string, string>;
  body: unknown;
  /** Re-creates the demo client after a reset (when the sandbox keeps one). */
  afterReset: () => void;
};

type ControlRoute = Route<ControlContext, ApiResponse>;

export { DEFAULT_PUSH_DELAY_SECONDS, DEFAULT_TENANT_RECORDS } from "../simulators/tenants";

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Refuses a control request without the admin token: 401 when missing, 403 when wrong. */
export function assertAdmin(header: string | undefined, adminToken: string): void {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match?.[1]) {
    throw new ApiError({
      status: 401,
      service: "SandboxControls",
      error: "Unauthorized: the sandbox controls need Authorization: Bearer <admin token>.",
    });
  }
  if (!timingSafeEqual(digest(match[1]), digest(adminToken))) {
    throw new ApiError({ status: 403, service: "SandboxControls", error: "Forbidden: the admin token is not this sandbox's." });
  }
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body === undefined ? {} : body);
  if (result.success) return result.data;
  const items: ValidationItem[] = result.error.issues.map((issue) => ({
    itemId: issue.path.length ? issue.path.join(".") : "body",
    message: issue.message,
    validatorName: "SandboxControls",
  }));
  const error = badRequest(items);
  throw new ApiError({ status: 400, service: "SandboxControls", error: error.message, validation: error.validation });
}

function controlParam(ctx: ControlContext, name: string): string {
  const value = ctx.params[name];
  if (value === undefined) throw new Error(`Control route has no :${name} parameter`);
  return value;
}

const ISO_DATETIME = z.iso.datetime({ offset: true });

const clientBody = z
  .object({
    plan: z.enum(["free", "paid"]),
    createdAt: ISO_DATETIME.optional(),
    name: z.string().min(1).max(200).optional(),
    syncs: z.enum(SYNC_MODES).optional(),
    oneTimeLinkUrls: z.boolean().optional(),
  })
  .strict();

/** The client's settings; a field left out stays as it is. */
const clientSettingsBody = z
  .object({
    oneTimeLinkUrls: z.boolean().optional(),
  })
  .strict();

const syncModeBody = z.object({ mode: z.enum(SYNC_MODES) }).strict();

const tenantBody = z
  .object({
    name: z.string().min(1).max(200),
    records: z.number().int().min(0).max(100_000).optional(),
    fetchErrorDataTypes: z
      .array(z.string().refine(isDataType, { message: "Not one of the service's data types." }))
      .optional(),
    pushDelaySeconds: z.number().min(0).max(30 * 86_400).optional(),
    /** Validation issues its datasets of each data type show (default: none). */
    validationIssues: z
      .record(
        z.string().refine(isDataType, { message: "Not one of the service's data types." }),
        z.object({ errors: z.number().int().min(0).max(1_000).default(0), warnings: z.number().int().min(0).max(1_000).default(0) }).strict(),
      )
      .optional(),
    /** Zoho Books only: records per data type a fetch gets before the shared daily API limit runs out (default: all). */
    dailyLimitRecords: z.number().int().min(0).max(100_000).optional(),
  })
  .strict();

const credentialsBody = z.object({ kind: z.enum(CREDENTIAL_KINDS) }).strict();

const linkCompanyBody = z.object({ platformKey: z.enum(MANAGED_PLATFORM_KEYS) }).strict();

const deauthorizeBody = z
  .object({
    /** When the platform drops it, on the sandbox clock; absent: now. */
    at: ISO_DATETIME.optional(),
    reason: z.enum(["revoked", "uninstalled"]).optional(),
  })
  .strict();

const faultsBody = z
  .object({
    maintenance: z.boolean().optional(),
    errorRate: z.number().min(0).max(1).optional(),
    latencyMs: z.number().int().min(0).max(60_000).optional(),
    rateLimitPerSecond: z.number().int().min(1).max(1_000_000).nullable().optional(),
    quotaPerDay: z.boolean().optional(),
    requestsPerMinute: z.number().int().min(1).max(1_000_000).nullable().optional(),
    webhookDuplicates: z.boolean().optional(),
    webhookOutOfOrder: z.boolean().optional(),
    webhookDelaySeconds: z.number().int().min(0).max(86_400).optional(),
    webhookWrongSignature: z.boolean().optional(),
  })
  .strict();

const replayBody = z
  .object({
    /** Replay what was made since then (sandbox clock); absent: the whole replay window (2 weeks). */
    since: ISO_DATETIME.optional(),
  })
  .strict();

/** A customer's OAuth app at a platform; each redirect URI checked as the developer console checks it. */
const oauthAppBody = z
  .object({
    appClientId: z.string().regex(APP_CLIENT_ID, { message: "1–200 letters, digits and . _ ~ - (the platform's client id of the app)." }),
    name: z.string().min(1).max(200).optional(),
    redirectUris: z.array(z.string()).max(MAX_REDIRECT_URIS, { message: `An app can have at most ${MAX_REDIRECT_URIS} redirect URIs.` }),
  })
  .strict()
  .superRefine((body, ctx) => {
    body.redirectUris.forEach((uri, i) => {
      const problem = redirectUriProblem(uri, body.redirectUris.slice(0, i));
      if (problem) ctx.addIssue({ code: "custom", path: ["redirectUris", i], message: problem });
    });
  });

/** The path's platform, 404 when the sandbox does not simulate it. */
function requirePlatformKey(ctx: ControlContext): PlatformKey {
  const key = controlParam(ctx, "platformKey");
  if (!isManagedPlatformKey(key)) {
    throw controlError(404, `No simulated platform with key ${key}; the sandbox simulates ${MANAGED_PLATFORMS.map((p) => p.key).join(", ")}.`);
  }
  return key;
}

function requireWebhookConsumer(ctx: ControlContext): WebhookConsumerRow {
  const id = controlParam(ctx, "webhookId");
  const consumer = ctx.app.store.webhooks.getConsumer(id);
  if (!consumer) throw controlError(404, `No webhook consumer was found with ID ${id}`);
  return consumer;
}

function consumerControlView(consumer: WebhookConsumerRow) {
  return {
    ...webhookConsumerView(consumer),
    clientId: consumer.clientId,
    secret: consumer.secret,
    failingSince: consumer.failingSince === null ? null : iso(consumer.failingSince),
    createdAt: iso(consumer.createdAt),
  };
}

const clockBody = z
  .object({
    advanceDays: z.number().min(0).max(10_000).optional(),
    advanceSeconds: z.number().min(0).max(10_000 * 86_400).optional(),
  })
  .strict();

function requireTenant(ctx: ControlContext): TenantRow {
  const key = controlParam(ctx, "platformKey");
  const tenantId = controlParam(ctx, "tenantId");
  const tenant = ctx.app.store.tenants.get(tenantId);
  if (!tenant || tenant.platformKey !== key) {
    const error = notFound(`No ${key} tenant was found with ID ${tenantId}`);
    throw new ApiError({ status: 404, service: "SandboxControls", error: error.message });
  }
  return tenant;
}

function controlError(status: number, error: string): ApiError {
  return new ApiError({ status, service: "SandboxControls", error });
}

function requireClientOf(ctx: ControlContext): ClientRow {
  const clientId = controlParam(ctx, "clientId");
  const client = ctx.app.store.clients.get(clientId);
  if (!client) throw controlError(404, `No client was found with ID ${clientId}`);
  return client;
}

function requireCompanyOf(ctx: ControlContext): CompanyRow {
  const companyId = controlParam(ctx, "companyId");
  const company = ctx.app.store.companies.get(companyId);
  if (!company) throw controlError(404, `No company was found with ID ${companyId}`);
  return company;
}

function requireConnectionOf(ctx: ControlContext, company: CompanyRow): ConnectionRow {
  const connectionId = controlParam(ctx, "connectionId");
  const connection = ctx.app.store.connections.get(connectionId);
  if (!connection || connection.companyId !== company.id) {
    throw controlError(404, `No connection was found with ID ${connectionId} on company ${company.id}`);
  }
  return connection;
}

/** A Link consent's answer: the connection as the API shows it, and the platform account it holds. */
function linked(ctx: ControlContext, company: CompanyRow, result: ConsentResult, status: number): ApiResponse {
  if (!result.ok && result.refused === "redirect") {
    // As the Link page: the platform refused the authorize; the connection keeps the refusal among its errors.
    const { redirect } = result;
    throw controlError(
      400,
      `Bad Request: ${redirect.errorMessage}. The owner of OAuth app ${redirect.appClientId} must add ${redirect.redirectUri} to its redirect URIs in ${redirect.platformName}'s developer console.`,
    );
  }
  if (!result.ok) throw controlError(409, result.conflict);
  return {
    status,
    body: { companyId: company.id, tenantId: result.tenant.id, connection: connectionView(result.connection, linkUrlsFor(ctx.app, company.clientId, ctx.now)) },
  };
}

/** The client's settings as the settings control shows them. */
function clientSettingsView(client: ClientRow) {
  return { clientId: client.id, oneTimeLinkUrls: client.oneTimeLinkUrls === 1 };
}

function clockView(ctx: ControlContext) {
  const now = ctx.app.clock.now();
  return { now: iso(now), offsetSeconds: Math.round(ctx.app.clock.offsetMs() / 1000) };
}

function faultsView(ctx: ControlContext) {
  return ctx.app.faults.get();
}

export const controlRoutes: readonly ControlRoute[] = [
  {
    method: "POST",
    pattern: "/_sandbox/clients",
    handler: (ctx) => {
      const body = parse(clientBody, ctx.body);
      const created = createClient({
        store: ctx.app.store,
        plan: body.plan,
        createdAt: body.createdAt ? Date.parse(body.createdAt) : ctx.now,
        name: body.name,
        syncs: body.syncs,
        oneTimeLinkUrls: body.oneTimeLinkUrls,
      });
      return { status: 201, body: { ...created, syncs: body.syncs ?? "timed", oneTimeLinkUrls: body.oneTimeLinkUrls ?? false } };
    },
  },
  {
    method: "GET",
    pattern: "/_sandbox/clients/:clientId/settings",
    handler: (ctx) => ({ status: 200, body: clientSettingsView(requireClientOf(ctx)) }),
  },
  {
    method: "PUT",
    pattern: "/_sandbox/clients/:clientId/settings",
    handler: (ctx) => {
      const client = requireClientOf(ctx);
      const body = parse(clientSettingsBody, ctx.body);
      // Turning one-time Link URLs off opens every page without a token; on, links given out before need one.
      if (body.oneTimeLinkUrls !== undefined) ctx.app.store.clients.setOneTimeLinkUrls({ id: client.id, enabled: body.oneTimeLinkUrls });
      return { status: 200, body: clientSettingsView(requireClientOf(ctx)) };
    },
  },
  {
    method: "PUT",
    pattern: "/_sandbox/clients/:clientId/oauth-apps/:platformKey",
    handler: (ctx) => {
      const client = requireClientOf(ctx);
      const platformKey = requirePlatformKey(ctx);
      const body = parse(oauthAppBody, ctx.body);
      const { store } = ctx.app;
      const result = store.transaction(() => putOAuthApp({ store, client, platformKey, ...body, now: ctx.now }));
      if (!result.ok) throw controlError(409, result.conflict);
      return { status: result.created ? 201 : 200, body: oauthAppView(result.app, ctx.app.publicUrl) };
    },
  },
  {
    method: "GET",
    pattern: "/_sandbox/clients/:clientId/oauth-apps/:platformKey",
    handler: (ctx) => {
      const client = requireClientOf(ctx);
      const platformKey = requirePlatformKey(ctx);
      const app = ctx.app.store.oauthApps.get({ clientId: client.id, platformKey });
      if (!app) throw controlError(404, `Client ${client.id} has no OAuth app of its own at ${platformKey}: the service uses its own app there.`);
      return { status: 200, body: oauthAppView(app, ctx.app.publicUrl) };
    },
  },
  {
    method: "DELETE",
    pattern: "/_sandbox/clients/:clientId/oauth-apps/:platformKey",
    handler: (ctx) => {
      const client = requireClientOf(ctx);
      const platformKey = requirePlatformKey(ctx);
      // Back to the service's own app, whose callback is always registered; deleting none is not an error.
      ctx.app.store.oauthApps.delete({ clientId: client.id, platformKey });
      return { status: 204, body: undefined };
    },
  },
  {
    method: "PUT",
    pattern: "/_sandbox/clients/:clientId/syncs",
    handler: (ctx) => {
      const client = requireClientOf(ctx);
      const { mode } = parse(syncModeBody, ctx.body);
      // Applies to syncs queued from now on; held ones stay held until released, whatever the mode.
      ctx.app.store.clients.setSyncMode({ id: client.id, syncs: mode });
      return { status: 200, body: { clientId: client.id, mode } };
    },
  },
  {
    method: "POST",
    pattern: "/_sandbox/clients/:clientId/syncs/release",
    handler: (ctx) => {
      const client = requireClientOf(ctx);
      parse(z.object({}).strict(), ctx.body);
      const { store } = ctx.app;
      // Each ends now with its planned outcome; the next request settles it like any sync that fell due.
      const released = store.transaction(() => store.pulls.releaseHeld({ clientId: client.id, now: ctx.now }));
      return { status: 200, body: { clientId: client.id, mode: client.syncs, released } };
    },
  },
  {
    method: "POST",
    pattern: "/_sandbox/platforms/:platformKey/tenants",
    handler: (ctx) => {
      const key = controlParam(ctx, "platformKey");
      const profile = getProfile(key);
      if (!profile) {
        throw new ApiError({
          status: 404,
          service: "SandboxControls",
          error: `No simulated platform with key ${key}; the sandbox simulates ${MANAGED_PLATFORMS.map((p) => p.key).join(", ")}.`,
        });
      }
      const body = parse(tenantBody, ctx.body);
      if (body.dailyLimitRecords !== undefined && key !== "rwuv") {
        throw new ApiError({ status: 400, service: "SandboxControls", error: "dailyLimitRecords is for Zoho Books tenants only: it stands for Zoho's daily API limit, shared by every app on the organisation." });
      }
      const { store } = ctx.app;
      const { tenant, credentials } = store.transaction(() => {
        const created = createTenant({
          store,
          profile,
          name: body.name,
          now: ctx.now,
          records: body.records,
          fetchErrorTypes: body.fetchErrorDataTypes,
          pushDelaySeconds: body.pushDelaySeconds,
          validationIssues: body.validationIssues,
          dailyLimitRecords: body.dailyLimitRecords ?? null,
        });
        return { tenant: created, credentials: issueCustomerCredentials({ store, tenant: created, now: ctx.now }) };
      });
      return { status: 201, body: { tenantId: tenant.id, platformKey: tenant.platformKey, credentials } };
    },
  },
  {
    method: "POST",
    pattern: "/_sandbox/platforms/:platformKey/tenants/:tenantId/rotate",
    handler: (ctx) => {
      const tenant = requireTenant(ctx);
      const { store } = ctx.app;
      const platform = platformOf(tenant.platformKey);
      const credentials = store.transaction(() => {
        const fresh = rotateTenantTokens({ store, tenant, now: ctx.now });
        // Syncs not yet finished were using the retired tokens: they now end AuthError.
        const message = rotatedRejection(platform).errorMessage;
        for (const op of store.pulls.pendingForTenant({ tenantId: tenant.id, now: ctx.now })) {
          store.pulls.replan({ id: op.id, completeAt: Math.max(op.fetchAt, ctx.now), outcome: "AuthError", errorMessage: message });
        }
        return fresh;
      });
      return { status: 200, body: { tenantId: tenant.id, platformKey: tenant.platformKey, credentials } };
    },
  },
  {
    method: "POST",
    pattern: "/_sandbox/platforms/:platformKey/tenants/:tenantId/credentials",
    handler: (ctx) => {
      const tenant = requireTenant(ctx);
      const { kind } = parse(credentialsBody, ctx.body);
      const { store } = ctx.app;
      const issued = store.transaction(() => issueCredentialsOfKind({ store, tenant, now: ctx.now, kind }));
      if (!issued.ok) {
        throw new ApiError({
          status: 400,
          service: "SandboxControls",
          error: `Bad Request: ${issued.problem}`,
          validation: { errors: [{ itemId: "kind", message: issued.problem, validatorName: "SandboxControls" }], warnings: [] },
        });
      }
      return { status: 201, body: { tenantId: tenant.id, platformKey: tenant.platformKey, kind, credentials: issued.credentials } };
    },
  },
  {
    method: "POST",
    pattern: "/_sandbox/companies/:companyId/connections/:connectionId/link",
    handler: (ctx) => {
      const company = requireCompanyOf(ctx);
      const connection = requireConnectionOf(ctx, company);
      const { store } = ctx.app;
      // otherTenant: the end customer is signed in to a different account of the platform (see simulators/consent.ts).
      const { otherTenant } = parse(z.object({ otherTenant: z.boolean().optional() }).strict(), ctx.body);
      return linked(ctx, company, store.transaction(() => consentToConnection({ store, company, connection, now: ctx.now, otherTenant })), 200);
    },
  },
  {
    method: "POST",
    pattern: "/_sandbox/companies/:companyId/link",
    handler: (ctx) => {
      const company = requireCompanyOf(ctx);
      const { platformKey } = parse(linkCompanyBody, ctx.body);
      const { store } = ctx.app;
      return linked(ctx, company, store.transaction(() => consentToNewConnection({ store, company, platformKey, now: ctx.now })), 201);
    },
  },
  {
    method: "POST",
    pattern: "/_sandbox/companies/:companyId/connections/:connectionId/deauthorize",
    handler: (ctx) => {
      const company = requireCompanyOf(ctx);
      const connection = requireConnectionOf(ctx, company);
      const body = parse(deauthorizeBody, ctx.body);
      const reason = body.reason ?? "revoked";
      const at = body.at === undefined ? ctx.now : Date.parse(body.at);
      if (at < ctx.now) {
        throw new ApiError({
          status: 400,
          service: "SandboxControls",
          error: "Bad Request: at is in the past.",
          validation: {
            errors: [{ itemId: "at", message: `at (${iso(at)}) is before the sandbox's now (${iso(ctx.now)}): a drop cannot happen in the past.`, validatorName: "SandboxControls" }],
            warnings: [],
          },
        });
      }
      if (connection.status !== "Linked") {
        throw controlError(409, `Connection ${connection.id} is ${connection.status}; only a Linked connection can lose its authorization.`);
      }
      const { store } = ctx.app;
      const base = { companyId: company.id, connectionId: connection.id, at: iso(at), reason };
      if (at === ctx.now) {
        const dropped = store.transaction(() => applyDrop({ store, connection, at, reason }));
        return { status: 200, body: { ...base, applied: true, connection: connectionView(dropped, linkUrlsFor(ctx.app, company.clientId, ctx.now)) } };
      }
      const drop = store.transaction(() => scheduleDrop({ store, connection, at, reason, now: ctx.now }));
      return {
        status: 202,
        body: { ...base, applied: false, dropId: drop.id, connection: connectionView(connection, linkUrlsFor(ctx.app, company.clientId, ctx.now)) },
      };
    },
  },
  { method: "GET", pattern: "/_sandbox/faults", handler: (ctx) => ({ status: 200, body: faultsView(ctx) }) },
  {
    method: "PUT",
    pattern: "/_sandbox/faults",
    handler: (ctx) => {
      const body = parse(faultsBody, ctx.body);
      const { rateLimitPerSecond, ...rest } = body;
      const patch = {
        ...rest,
        ...(rateLimitPerSecond === undefined
          ? {}
          : { rateLimitPerSecond: rateLimitPerSecond ?? DEFAULT_FAULTS.rateLimitPerSecond }),
      };
      ctx.app.faults.update(patch);
      ctx.app.rateLimits.clear();
      return { status: 200, body: faultsView(ctx) };
    },
  },
  {
    method: "GET",
    pattern: "/_sandbox/webhooks",
    handler: (ctx) => ({ status: 200, body: { results: ctx.app.store.webhooks.listAllConsumers().map(consumerControlView) } }),
  },
  {
    method: "GET",
    pattern: "/_sandbox/webhooks/:webhookId/deliveries",
    handler: (ctx) => {
      const consumer = requireWebhookConsumer(ctx);
      return {
        status: 200,
        body: {
          consumer: consumerControlView(consumer),
          results: ctx.app.store.webhooks.listDeliveries(consumer.id).map((d) => ({
            messageId: d.messageId,
            eventType: d.eventType,
            createdAt: iso(d.createdAt),
            status: d.status,
            attempts: d.attempts,
            nextAttemptAt: d.nextAttemptAt === null ? null : iso(d.nextAttemptAt),
            lastAttemptAt: d.lastAttemptAt === null ? null : iso(d.lastAttemptAt),
            lastResponse: d.lastResponse,
          })),
        },
      };
    },
  },
  {
    method: "POST",
    pattern: "/_sandbox/webhooks/:webhookId/replay",
    handler: (ctx) => {
      const consumer = requireWebhookConsumer(ctx);
      const body = parse(replayBody, ctx.body);
      const since = Math.max(body.since === undefined ? 0 : Date.parse(body.since), ctx.now - REPLAY_WINDOW_MS);
      const { store } = ctx.app;
      // As the Portal's "enable endpoint" and "recover failed messages": the endpoint takes deliveries
      // again and every failed or missed one made since `since` is due now, in the order made.
      const replayed = store.transaction(() => {
        store.webhooks.setConsumerState({ id: consumer.id, disabled: false, failingSince: null });
        return store.webhooks.requeue({ consumerId: consumer.id, since, now: ctx.now });
      });
      return { status: 200, body: { webhookId: consumer.id, since: iso(since), replayed } };
    },
  },
  { method: "GET", pattern: "/_sandbox/clock", handler: (ctx) => ({ status: 200, body: clockView(ctx) }) },
  {
    method: "POST",
    pattern: "/_sandbox/clock",
    handler: (ctx) => {
      const body = parse(clockBody, ctx.body);
      ctx.app.clock.advance((body.advanceDays ?? 0) * 86_400_000 + (body.advanceSeconds ?? 0) * 1000);
      return { status: 200, body: clockView(ctx) };
    },
  },
  {
    method: "POST",
    pattern: "/_sandbox/reset",
    handler: (ctx) => {
      ctx.app.store.wipe(["admin_token", "demo_api_key", "link_secret"]);
      ctx.app.clock.reset();
      ctx.app.faults.reset();
      ctx.app.rateLimits.clear();
      ctx.afterReset();
      return { status: 200, body: { reset: true, ...clockView(ctx) } };
    },
  },
  {
    method: "GET",
    pattern: "/_sandbox/state",
    handler: (ctx) => {
      const now = ctx.app.clock.now();
      return {
        status: 200,
        body: {
          ...clockView(ctx),
          faults: faultsView(ctx),
          clients: ctx.app.store.clients.listWithCounts().map((c) => ({
            clientId: c.id,
            name: c.name,
            plan: c.plan,
            createdAt: iso(c.createdAt),
            expired: isAccountExpired({ plan: c.plan, createdAt: c.createdAt, now }),
            demo: c.isDemo === 1,
            syncs: c.syncs,
            oneTimeLinkUrls: c.oneTimeLinkUrls === 1,
            companies: c.companies,
            apiKeys: c.apiKeys,
          })),
          tenants: ctx.app.store.tenants.list().map((t) => ({
            tenantId: t.id,
            platformKey: t.platformKey,
            name: t.name,
            records: t.records,
            identity: t.identity,
            fetchErrorDataTypes: t.fetchErrorTypes,
            validationIssues: t.validationIssues,
            dailyLimitRecords: t.dailyLimitRecords,
            pushDelaySeconds: t.pushDelayMs / 1000,
            generation: t.generation,
            createdAt: iso(t.createdAt),
          })),
          oauthApps: ctx.app.store.oauthApps.list().map((a) => oauthAppView(a, ctx.app.publicUrl)),
          drops: ctx.app.store.drops.list().map((d) => ({
            dropId: d.id,
            companyId: d.companyId,
            connectionId: d.connectionId,
            at: iso(d.at),
            reason: d.reason,
            applied: d.appliedAt !== null,
          })),
        },
      };
    },
  },
  {
    method: "GET",
    pattern: "/_sandbox/platforms",
    handler: () => ({
      status: 200,
      body: {
        results: MANAGED_PLATFORMS.map((p) => ({
          key: p.key,
          name: p.name,
          category: p.category,
          sourceType: p.sourceType,
          credentialFields: p.credentialFields.map((f) => ({
            name: f.name,
            label: f.label,
            required: f.required,
            secret: f.secret,
            expected: f.expected,
            example: f.example,
          })),
          supportedDataTypes: p.supportedDataTypes,
          hasRefreshToken: p.hasRefreshToken,
          refreshTokenRotates: p.refreshTokenRotates,
          accessTokenLifetimeSeconds: p.accessTokenLifetimeSeconds,
        })),
      },
    }),
  },
];
