/**
 * The simulated platforms' OAuth side: which tokens each tenant has issued and which are still
 * good. The platform accepts only unretired, unexpired tokens it issued to the service's app,
 * presented with the tenant's own identity values. Refreshing issues a new access token and, where
 * the platform rotates refresh tokens, a new refresh token that retires the one presented.
 * Rotation by the customer's old app retires everything handed out so far; so does the end
 * customer's revocation (a drop). Each refusal is worded as the platform words that case
 * (token-refusals.ts).
 *
 * All functions are synchronous: callers run them inside a store transaction.
 */
import { randomUUID } from "node:crypto";
import type { ManagedPlatform } from "../../platforms";
import { iso } from "../domain/clock";
import type { ConnectionRow, DropReason, Store, TenantRow, TokenRow } from "../store/store";
import { hasTokenShape, newIdentity, newToken, requireProfile } from "./profiles";
import { platformRefusal, RETIRED, retiredRefusal, type PlatformRejection } from "./token-refusals";

export type { PlatformRejection } from "./token-refusals";

type Issued = { accessToken: string; refreshToken: string | null; accessExpiresAt: number | null };

function issue(params: {
  store: Store;
  platform: ManagedPlatform;
  tenantId: string;
  holder: TokenRow["holder"];
  now: number;
  withRefresh: boolean;
  /** Issued to another OAuth app than the service's (a test control's refused credentials). */
  foreignApp?: boolean;
  /** Already expired beyond refresh (a test control's refused credentials). */
  expired?: boolean;
}): Issued {
  const { store, platform, now } = params;
  const lifetime = platform.accessTokenLifetimeSeconds;
  const foreignApp = params.foreignApp ? 1 : 0;
  let accessExpiresAt = lifetime === null ? null : now + lifetime * 1000;
  if (params.expired) accessExpiresAt = now - 1000;
  const accessToken = newToken(platform, "access");
  store.tokens.insert({
    token: accessToken,
    tenantId: params.tenantId,
    kind: "access",
    holder: params.holder,
    issuedAt: now,
    expiresAt: accessExpiresAt,
    foreignApp,
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
      expiresAt: params.expired ? now - 1000 : null,
      foreignApp,
    });
  }
  return { accessToken, refreshToken, accessExpiresAt };
}

/** The authorization body for `issued` tokens: the platform's credential fields, in their defined order. */
function credentialsBody(params: {
  platform: ManagedPlatform;
  identity: Record<string, string>;
  issued: Issued;
}): Record<string, string> {
  const { platform, issued } = params;
  const credentials: Record<string, string> = {};
  for (const field of platform.credentialFields) {
    if (field.name === "accessToken") credentials.accessToken = issued.accessToken;
    else if (field.name === "refreshToken" && issued.refreshToken) credentials.refreshToken = issued.refreshToken;
    else if (field.name === "expiresAt" && issued.accessExpiresAt !== null) {
      credentials.expiresAt = iso(issued.accessExpiresAt);
    } else {
      const value = params.identity[field.name];
      if (value !== undefined) credentials[field.name] = value;
    }
  }
  return credentials;
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
  return credentialsBody({ platform, identity: params.tenant.identity, issued });
}

/** Kinds of credentials the test control hands out; all but `valid` are refused, each in its own words. */
export const CREDENTIAL_KINDS = [
  "valid",
  "unknown",
  "malformed",
  "otherApp",
  "otherAccount",
  "rotated",
  "exchanged",
  "revoked",
  "expired",
] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

export type IssuedCredentials = { ok: true; credentials: Record<string, string> } | { ok: false; problem: string };

/**
 * Credentials of the tenant as a token file might hold them, for tests of each refusal:
 * `unknown` — well-formed tokens the platform never issued; `malformed` — a truncated token (for
 * Shopify, one the service's own check refuses); `otherApp` — tokens issued to another OAuth app;
 * `otherAccount` — the tenant's tokens with another account's identity values; `rotated` — tokens
 * the customer's old app then refreshed (every earlier token retired, as the rotate control does);
 * `exchanged` — a refresh token the service already exchanged (rotating platforms only);
 * `revoked` — tokens of a grant the end customer then revoked (every token of the tenant retired);
 * `expired` — tokens expired beyond refresh (refresh-token platforms only).
 */
export function issueCredentialsOfKind(params: { store: Store; tenant: TenantRow; now: number; kind: CredentialKind }): IssuedCredentials {
  const { store, tenant, now, kind } = params;
  const profile = requireProfile(tenant.platformKey);
  const { platform } = profile;
  const base = { store, platform, tenantId: tenant.id, holder: "customer" as const, now, withRefresh: platform.hasRefreshToken };
  const body = (issued: Issued, identity = tenant.identity) => ({ ok: true as const, credentials: credentialsBody({ platform, identity, issued }) });
  switch (kind) {
    case "valid":
      return body(issue(base));
    case "unknown":
      return body({
        accessToken: newToken(platform, "access"),
        refreshToken: platform.hasRefreshToken ? newToken(platform, "refresh") : null,
        accessExpiresAt: platform.accessTokenLifetimeSeconds === null ? null : now + platform.accessTokenLifetimeSeconds * 1000,
      });
    case "malformed": {
      const real = issue(base);
      const cut = (token: string) => token.slice(0, Math.max(8, token.length - 12));
      return body(
        platform.hasRefreshToken
          ? { ...real, refreshToken: real.refreshToken && cut(real.refreshToken) }
          : { ...real, accessToken: `shpat_${real.accessToken.slice(6, 10)}` },
      );
    }
    case "otherApp":
      return body(issue({ ...base, foreignApp: true }));
    case "otherAccount": {
      if (profile.identityFields.length === 0) {
        return { ok: false, problem: `${platform.name} credentials name no account (no identity field), so they cannot name another one.` };
      }
      return body(issue(base), { ...tenant.identity, ...newIdentity(profile, `${tenant.name} elsewhere`) });
    }
    case "rotated": {
      const handedOver = issue(base);
      rotateTenantTokens({ store, tenant, now });
      return body(handedOver);
    }
    case "exchanged": {
      if (!platform.refreshTokenRotates) {
        return { ok: false, problem: `${platform.name} does not rotate refresh tokens: a refresh token stays usable after an exchange.` };
      }
      const handedOver = issue(base);
      if (handedOver.refreshToken) {
        store.tokens.retire({ token: handedOver.refreshToken, at: now, reason: RETIRED.exchanged, consumedBy: `another-connection-${randomUUID()}` });
      }
      return body(handedOver);
    }
    case "revoked": {
      const handedOver = issue(base);
      revokeTenantTokens({ store, tenantId: tenant.id, at: now, reason: "revoked" });
      return body(handedOver);
    }
    case "expired":
      if (!platform.hasRefreshToken) {
        return { ok: false, problem: `${platform.name} access tokens do not expire, so they cannot be expired beyond refresh.` };
      }
      return body(issue({ ...base, expired: true }));
    default: {
      const never: never = kind;
      return never;
    }
  }
}

/** New tokens held by the service for the tenant, as after a successful authorization (the Link flow's consent). */
export function issueServiceTokens(params: { store: Store; tenant: TenantRow; now: number }): { accessToken: string; refreshToken: string | null } {
  const { platform } = requireProfile(params.tenant.platformKey);
  const issued = issue({
    store: params.store,
    platform,
    tenantId: params.tenant.id,
    holder: "service",
    now: params.now,
    withRefresh: platform.hasRefreshToken,
  });
  return { accessToken: issued.accessToken, refreshToken: issued.refreshToken };
}

/** The end customer disconnected or uninstalled the app: the platform retires every live token of the tenant. */
export function revokeTenantTokens(params: { store: Store; tenantId: string; at: number; reason: DropReason }): void {
  params.store.tokens.retireAllForTenant({ tenantId: params.tenantId, at: params.at, reason: RETIRED[params.reason] });
}

function isLive(token: TokenRow): boolean {
  return token.retiredAt === null;
}

function isExpired(token: TokenRow, now: number): boolean {
  return token.expiresAt !== null && token.expiresAt <= now;
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
    reason: RETIRED.exchanged,
    consumedBy: params.connectionId,
  });
  return { accessToken: issued.accessToken, refreshToken: issued.refreshToken };
}

export type MigrationResult =
  | { ok: true; tenant: TenantRow; accessToken: string; refreshToken: string | null }
  | {
      ok: false;
      rejection: PlatformRejection;
      /** The account the company's end customer holds, when the refused credentials tell it (for the Link flow). */
      accountTenantId: string | null;
    };

/**
 * The account refused credentials point at: the tenant the row's identity values name (realmId,
 * shopDomain, ...), else the tenant whose token was presented. The company's row is the
 * customer's word on whose company it is, so its identity wins over a token of another account.
 */
function accountOf(params: { store: Store; platform: ManagedPlatform; credentials: Record<string, string>; token: TokenRow | undefined }): string | null {
  const { store, platform, credentials } = params;
  for (const field of requireProfile(platform.key).identityFields) {
    const value = credentials[field.name];
    if (value === undefined || field.identity !== true) continue;
    const named = store.tenants.findByIdentity({ platformKey: platform.key, name: field.name, value });
    if (named) return named.id;
  }
  const owner = params.token && store.tenants.get(params.token.tenantId);
  return owner && owner.platformKey === platform.key ? owner.id : null;
}

/**
 * What the platform says to credentials migrated into a connection (already well formed).
 * On success the service holds its own tokens: for refresh-token platforms it refreshes at once,
 * which is how it proves the tokens work. Checked in the order a platform meets them: is the
 * token its own and well formed, issued to this app, for the account named, still live.
 */
export function acceptMigratedCredentials(params: {
  store: Store;
  platform: ManagedPlatform;
  credentials: Record<string, string>;
  connection: ConnectionRow;
  now: number;
}): MigrationResult {
  const { store, platform, credentials, connection, now } = params;
  const presented = platform.hasRefreshToken ? credentials.refreshToken : credentials.accessToken;
  const token = presented === undefined ? undefined : store.tokens.get(presented);
  const refuse = (rejection: PlatformRejection): MigrationResult => ({
    ok: false,
    rejection,
    accountTenantId: accountOf({ store, platform, credentials, token }),
  });

  const tenant = token && store.tenants.get(token.tenantId);
  if (!token || !tenant || tenant.platformKey !== platform.key) {
    const wellFormed = presented !== undefined && (token !== undefined || hasTokenShape(platform, presented));
    return refuse(platformRefusal(platform, wellFormed ? { kind: "unknown" } : { kind: "malformed" }));
  }
  if (platform.hasRefreshToken && token.kind !== "refresh") {
    return refuse(platformRefusal(platform, { kind: "malformed", detail: "it is an access token, not a refresh token" }));
  }
  if (token.foreignApp) return refuse(platformRefusal(platform, { kind: "otherApp" }));

  const profile = requireProfile(platform.key);
  for (const field of profile.identityFields) {
    const given = credentials[field.name];
    if (given !== undefined && given !== tenant.identity[field.name]) {
      return refuse(platformRefusal(platform, { kind: "otherAccount", field, value: given }));
    }
  }

  if (platform.hasRefreshToken && credentials.accessToken) {
    const access = store.tokens.get(credentials.accessToken);
    if (access && access.tenantId !== tenant.id) return refuse(platformRefusal(platform, { kind: "mixedAccounts" }));
  }

  if (!platform.hasRefreshToken) {
    if (!isLive(token)) return refuse(platformRefusal(platform, retiredRefusal(token.retiredReason)));
    if (isExpired(token, now)) return refuse(platformRefusal(platform, { kind: "expired" }));
    return { ok: true, tenant, accessToken: token.token, refreshToken: null };
  }

  if (!isLive(token)) {
    // The same credentials sent again to the connection that already exchanged them (a retry
    // after a lost answer): the connection keeps the tokens it got, nothing is consumed twice.
    const held = connection.refreshToken ? store.tokens.get(connection.refreshToken) : undefined;
    if (token.consumedBy === connection.id && connection.tenantId === tenant.id && held && isLive(held) && connection.accessToken) {
      return { ok: true, tenant, accessToken: connection.accessToken, refreshToken: held.token };
    }
    return refuse(platformRefusal(platform, retiredRefusal(token.retiredReason)));
  }
  if (isExpired(token, now)) return refuse(platformRefusal(platform, { kind: "expired" }));

  const refreshed = serviceRefresh({
    store,
    platform,
    tenantId: tenant.id,
    refreshToken: token.token,
    connectionId: connection.id,
    now,
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
    return { ok: false, rejection: platformRefusal(platform, { kind: "unknown" }) };
  }
  const access = store.tokens.get(connection.accessToken);
  const accessGood = access !== undefined && isLive(access) && !isExpired(access, now);
  if (accessGood) return { ok: true, connection };
  if (!platform.hasRefreshToken) {
    if (access && isLive(access)) return { ok: false, rejection: platformRefusal(platform, { kind: "expired" }) };
    return { ok: false, rejection: platformRefusal(platform, retiredRefusal(access?.retiredReason ?? null)) };
  }

  const refresh = connection.refreshToken ? store.tokens.get(connection.refreshToken) : undefined;
  if (!refresh || !isLive(refresh)) {
    return { ok: false, rejection: platformRefusal(platform, retiredRefusal(refresh?.retiredReason ?? null)) };
  }
  if (isExpired(refresh, now)) return { ok: false, rejection: platformRefusal(platform, { kind: "expired" }) };
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
  params.store.tokens.retireAllForTenant({ tenantId: params.tenant.id, at: params.now, reason: RETIRED.rotated });
  params.store.tenants.bumpGeneration(params.tenant.id);
  return issueCustomerCredentials(params);
}

/** The rejection the service meets with a connection's current tokens (for operations replanned after a rotation). */
export function rotatedRejection(platform: ManagedPlatform): PlatformRejection {
  return platformRefusal(platform, { kind: "alreadyUsed" });
}
