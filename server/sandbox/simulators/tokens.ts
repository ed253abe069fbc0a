/**
 * The simulated platforms' OAuth side: which tokens each tenant has issued and which are still
 * good. The platform accepts only unretired tokens presented with the tenant's own identity
 * values. Refreshing issues a new access token and, where the platform rotates refresh tokens,
 * a new refresh token that retires the one presented. Rotation by the customer's old app retires
 * everything handed out so far.
 *
 * All functions are synchronous: callers run them inside a store transaction.
 */
import type { ManagedPlatform } from "../../platforms";
import { iso } from "../domain/clock";
import type { ConnectionRow, Store, TenantRow, TokenRow } from "../store/store";
import { newToken, requireProfile } from "./profiles";

/** How the platform refused credentials; becomes a `dataConnectionErrors` item. */
export type PlatformRejection = {
  statusCode: string;
  statusText: string;
  errorMessage: string;
};

const ROTATED_REASON = "rotated";
const EXCHANGED_REASON = "exchanged";

type Issued = { accessToken: string; refreshToken: string | null; accessExpiresAt: number | null };

function issue(params: {
  store: Store;
  platform: ManagedPlatform;
  tenantId: string;
  holder: TokenRow["holder"];
  now: number;
  withRefresh: boolean;
}): Issued {
  const { store, platform, now } = params;
  const lifetime = platform.accessTokenLifetimeSeconds;
  const accessExpiresAt = lifetime === null ? null : now + lifetime * 1000;
  const accessToken = newToken(platform, "access");
  store.tokens.insert({
    token: accessToken,
    tenantId: params.tenantId,
    kind: "access",
    holder: params.holder,
    issuedAt: now,
    expiresAt: accessExpiresAt,
  });
  let refreshToken: string | null = null;
  if (params.withRefresh) {
    refreshToken = newToken(platform, "refresh");
    store.tokens.insert({
      token: refreshToken,
      tenantId: params.tenantId,
      kind: "refresh",
      holder: params.holder,
      issuedAt: now,
      expiresAt: null,
    });
  }
  return { accessToken, refreshToken, accessExpiresAt };
}

/**
 * New tokens for the customer's own application, as the body the authorization call accepts:
 * the platform's credential fields, in their defined order.
 */
export function issueCustomerCredentials(params: { store: Store; tenant: TenantRow; now: number }): Record<string, string> {
  const { platform } = requireProfile(params.tenant.platformKey);
  const issued = issue({
    store: params.store,
    platform,
    tenantId: params.tenant.id,
    holder: "customer",
    now: params.now,
    withRefresh: platform.hasRefreshToken,
  });
  const credentials: Record<string, string> = {};
  for (const field of platform.credentialFields) {
    if (field.name === "accessToken") credentials.accessToken = issued.accessToken;
    else if (field.name === "refreshToken" && issued.refreshToken) credentials.refreshToken = issued.refreshToken;
    else if (field.name === "expiresAt" && issued.accessExpiresAt !== null) {
      credentials.expiresAt = iso(issued.accessExpiresAt);
    } else {
      const value = params.tenant.identity[field.name];
      if (value !== undefined) credentials[field.name] = value;
    }
  }
  return credentials;
}

function isLive(token: TokenRow): boolean {
  return token.retiredAt === null;
}

function reauthorize(platform: ManagedPlatform, detail: string): string {
  return `${platform.name} rejected the credentials: ${detail} Reauthorization is required.`;
}

function refreshRejection(platform: ManagedPlatform, retiredReason: string | null): PlatformRejection {
  let detail = "invalid_grant: the refresh token is not one this platform issued.";
  if (retiredReason === ROTATED_REASON) {
    detail =
      "invalid_grant: the refresh token was already used. The customer's own application refreshed the tokens after they were handed over, which retired every earlier token.";
  } else if (retiredReason === EXCHANGED_REASON) {
    detail = "invalid_grant: the refresh token was already exchanged for new tokens and cannot be used again.";
  }
  return { statusCode: "400", statusText: "Bad Request", errorMessage: reauthorize(platform, detail) };
}

function accessRejection(platform: ManagedPlatform, retiredReason: string | null): PlatformRejection {
  const revoked = retiredReason === ROTATED_REASON ? " The token was revoked when the customer's own application replaced it." : "";
  return {
    statusCode: "401",
    statusText: "Unauthorized",
    errorMessage: reauthorize(
      platform,
      `[API] Invalid API key or access token (unrecognized login or wrong password).${revoked}`,
    ),
  };
}

/** The service's refresh: a new access token, and a new refresh token where the platform rotates. */
function serviceRefresh(params: {
  store: Store;
  platform: ManagedPlatform;
  tenantId: string;
  refreshToken: string;
  connectionId: string;
  now: number;
}): { accessToken: string; refreshToken: string } {
  const { store, platform } = params;
  const issued = issue({
    store,
    platform,
    tenantId: params.tenantId,
    holder: "service",
    now: params.now,
    withRefresh: platform.refreshTokenRotates,
  });
  if (!platform.refreshTokenRotates || !issued.refreshToken) {
    return { accessToken: issued.accessToken, refreshToken: params.refreshToken };
  }
  store.tokens.retire({
    token: params.refreshToken,
    at: params.now,
    reason: EXCHANGED_REASON,
    consumedBy: params.connectionId,
  });
  return { accessToken: issued.accessToken, refreshToken: issued.refreshToken };
}

export type MigrationResult =
  | { ok: true; tenant: TenantRow; accessToken: string; refreshToken: string | null }
  | { ok: false; rejection: PlatformRejection };

/**
 * What the platform says to credentials migrated into a connection (already well formed).
 * On success the service holds its own tokens: for refresh-token platforms it refreshes at once,
 * which is how it proves the tokens work.
 */
export function acceptMigratedCredentials(params: {
  store: Store;
  platform: ManagedPlatform;
  credentials: Record<string, string>;
  connection: ConnectionRow;
  now: number;
}): MigrationResult {
  const { store, platform, credentials, connection } = params;
  const presented = platform.hasRefreshToken ? credentials.refreshToken : credentials.accessToken;
  const token = presented === undefined ? undefined : store.tokens.get(presented);
  const tenant = token && store.tenants.get(token.tenantId);
  const rejectUnknown = () =>
    platform.hasRefreshToken ? refreshRejection(platform, null) : accessRejection(platform, null);
  if (!token || !tenant || tenant.platformKey !== platform.key || (platform.hasRefreshToken && token.kind !== "refresh")) {
    return { ok: false, rejection: rejectUnknown() };
  }

  const profile = requireProfile(platform.key);
  for (const field of profile.identityFields) {
    const given = credentials[field.name];
    if (given !== undefined && given !== tenant.identity[field.name]) {
      return {
        ok: false,
        rejection: {
          statusCode: "403",
          statusText: "Forbidden",
          errorMessage: reauthorize(
            platform,
            `the tokens belong to another ${field.label.toLowerCase()} than ${field.name} ${given}.`,
          ),
        },
      };
    }
  }

  if (platform.hasRefreshToken && credentials.accessToken) {
    const access = store.tokens.get(credentials.accessToken);
    if (access && access.tenantId !== tenant.id) {
      return {
        ok: false,
        rejection: {
          statusCode: "403",
          statusText: "Forbidden",
          errorMessage: reauthorize(platform, "the access token and the refresh token belong to different accounts."),
        },
      };
    }
  }

  if (!platform.hasRefreshToken) {
    if (!isLive(token)) return { ok: false, rejection: accessRejection(platform, token.retiredReason) };
    return { ok: true, tenant, accessToken: token.token, refreshToken: null };
  }

  if (!isLive(token)) {
    // The same credentials sent again to the connection that already exchanged them (a retry
    // after a lost answer): the connection keeps the tokens it got, nothing is consumed twice.
    const held = connection.refreshToken ? store.tokens.get(connection.refreshToken) : undefined;
    if (token.consumedBy === connection.id && connection.tenantId === tenant.id && held && isLive(held) && connection.accessToken) {
      return { ok: true, tenant, accessToken: connection.accessToken, refreshToken: held.token };
    }
    return { ok: false, rejection: refreshRejection(platform, token.retiredReason) };
  }

  const refreshed = serviceRefresh({
    store,
    platform,
    tenantId: tenant.id,
    refreshToken: token.token,
    connectionId: connection.id,
    now: params.now,
  });
  return { ok: true, tenant, ...refreshed };
}

export type ServiceAccess = { ok: true; connection: ConnectionRow } | { ok: false; rejection: PlatformRejection };

/**
 * Before the service calls the platform (a sync, a write): is its access token good, and if it
 * expired, can it refresh? Returns the connection with its new tokens (not yet saved).
 */
export function ensureServiceAccess(params: {
  store: Store;
  platform: ManagedPlatform;
  connection: ConnectionRow;
  now: number;
}): ServiceAccess {
  const { store, platform, connection, now } = params;
  if (!connection.tenantId || !connection.accessToken) {
    return { ok: false, rejection: accessRejection(platform, null) };
  }
  const access = store.tokens.get(connection.accessToken);
  const accessGood = access !== undefined && isLive(access) && (access.expiresAt === null || access.expiresAt > now);
  if (accessGood) return { ok: true, connection };
  if (!platform.hasRefreshToken) return { ok: false, rejection: accessRejection(platform, access?.retiredReason ?? null) };

  const refresh = connection.refreshToken ? store.tokens.get(connection.refreshToken) : undefined;
  if (!refresh || !isLive(refresh)) return { ok: false, rejection: refreshRejection(platform, refresh?.retiredReason ?? null) };
  const refreshed = serviceRefresh({
    store,
    platform,
    tenantId: connection.tenantId,
    refreshToken: refresh.token,
    connectionId: connection.id,
    now,
  });
  return { ok: true, connection: { ...connection, ...refreshed } };
}

/** The customer's old app refreshed: every token handed out so far is retired; new ones issued. */
export function rotateTenantTokens(params: { store: Store; tenant: TenantRow; now: number }): Record<string, string> {
  params.store.tokens.retireAllForTenant({ tenantId: params.tenant.id, at: params.now, reason: ROTATED_REASON });
  params.store.tenants.bumpGeneration(params.tenant.id);
  return issueCustomerCredentials(params);
}

/** The rejection the service meets with a connection's current tokens (for operations replanned after a rotation). */
export function rotatedRejection(platform: ManagedPlatform): PlatformRejection {
  return platform.hasRefreshToken
    ? refreshRejection(platform, ROTATED_REASON)
    : accessRejection(platform, ROTATED_REASON);
}
