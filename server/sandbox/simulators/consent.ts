/**
 * The end customer's consent on the platform, as the Link flow gives it: they sign in to their
 * account and allow access, the platform issues new tokens to the service for that account, and
 * the connection is Linked again with its earlier errors resolved. The account is the one the
 * connection already knows (its tenant, or the one a refused authorization pointed at); a
 * connection that never knew one gets a new account, as an end customer signing up would.
 *
 * The end customer may also be signed in to a different account of the platform than the one the
 * connection knows (another QuickBooks realm, another shop): `otherTenant` consents with a new
 * tenant of the platform, named "<company> (another company)" (or shop), whose identity differs
 * from the known account's, so the connection's `connectionInfo` changes; the known account is
 * left as it is. Without a known account it changes nothing (a new account is made anyway).
 *
 * The platform may refuse before the end customer allows anything: when the client uses its own
 * OAuth app at the platform and the service's callback URL is not registered on it
 * (simulators/redirect-check.ts). Nothing links then; the connection keeps its status with the
 * refusal among its errors (a new connection stays PendingAuth).
 *
 * Synchronous: callers run it inside a store transaction.
 */
import { randomUUID } from "node:crypto";
import type { PlatformKey } from "../../platforms";
import { accountingSlotConflict } from "../domain/accounting-slot";
import { iso } from "../domain/clock";
import type { CompanyRow, ConnectionErrorEntry, ConnectionRow, Store, TenantRow } from "../store/store";
import { newIdentity, requireProfile, type PlatformProfile } from "./profiles";
import { redirectRefusal, withRedirectRefusal, type RedirectRefusal } from "./redirect-check";
import { createTenant } from "./tenants";
import { issueServiceTokens } from "./tokens";

export type ConsentResult =
  | { ok: true; connection: ConnectionRow; tenant: TenantRow }
  /** The service refuses the connection (a second active accounting one), in its words. */
  | { ok: false; refused: "conflict"; conflict: string }
  /**
   * The platform refuses the authorize: the redirect URI is not registered on the customer's app
   * (simulators/redirect-check.ts). The connection, as saved with the refusal among its errors.
   */
  | { ok: false; refused: "redirect"; redirect: RedirectRefusal; connection: ConnectionRow };

/** Active errors marked Resolved at `now` (the service keeps them, resolved, after a new authorization). */
export function resolveErrors(errors: readonly ConnectionErrorEntry[], now: number): ConnectionErrorEntry[] {
  return errors.map((e) => (e.status === "Active" ? { ...e, status: "Resolved", resolvedOnUtc: iso(now) } : e));
}

/** The connection's `connectionInfo`: the tenant's identity fields (realmId, shopDomain, ...). */
export function identityInfo(tenant: TenantRow): Record<string, string> {
  const info: Record<string, string> = {};
  for (const field of requireProfile(tenant.platformKey).identityFields) {
    const value = tenant.identity[field.name];
    if (value !== undefined) info[field.name] = value;
  }
  return info;
}

/**
 * The account a connection already knows, if any: the company's own account (the one a refused
 * authorization named, or the one it was linked with before an end customer linked another by
 * mistake), else its tenant.
 */
export function knownAccount(store: Store, connection: ConnectionRow): TenantRow | undefined {
  for (const id of [connection.accountTenantId, connection.tenantId]) {
    const tenant = id ? store.tenants.get(id) : undefined;
    if (tenant && tenant.platformKey === connection.platformKey) return tenant;
  }
  return undefined;
}

/** What the platform calls one end customer's account, in words: "shop" for commerce, else "company". */
export function accountNoun(platformKey: PlatformKey): "shop" | "company" {
  return requireProfile(platformKey).platform.sourceType === "Commerce" ? "shop" : "company";
}

function sameInfo(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => a[k] === b[k]);
}

/**
 * A new tenant of the platform standing for another account the end customer is signed in to:
 * its identity differs from the known account's (drawn again in the unlikely case it does not).
 */
function anotherTenant(params: { store: Store; profile: PlatformProfile; company: CompanyRow; known: TenantRow; now: number }): TenantRow {
  const { profile, known } = params;
  const name = `${params.company.name} (another ${accountNoun(profile.platform.key)})`;
  const knownInfo = identityInfo(known);
  let identity = newIdentity(profile, name);
  for (let i = 0; i < 20 && profile.identityFields.length > 0 && sameInfo(knownInfo, identity); i++) identity = newIdentity(profile, name);
  return createTenant({ store: params.store, profile, name, now: params.now, identity });
}

/** The end customer connects this connection (see the module comment). */
export function consentToConnection(params: {
  store: Store;
  company: CompanyRow;
  connection: ConnectionRow;
  now: number;
  /** The end customer is signed in to a different account of the platform than the known one. */
  otherTenant?: boolean;
}): ConsentResult {
  const { store, company, connection, now } = params;
  const profile = requireProfile(connection.platformKey);
  if (connection.status === "Unlinked") {
    const conflict = accountingSlotConflict({ store, companyId: company.id, platform: profile.platform, except: connection.id });
    if (conflict) return { ok: false, refused: "conflict", conflict };
  }
  const redirect = redirectRefusal(store, { clientId: company.clientId, platformKey: connection.platformKey });
  if (redirect) {
    // Nothing links: the connection keeps its status and gains the platform's refusal.
    const refused: ConnectionRow = { ...connection, errors: withRedirectRefusal(connection.errors, redirect, now) };
    store.connections.save(refused);
    return { ok: false, refused: "redirect", redirect, connection: refused };
  }
  const known = knownAccount(store, connection);
  const tenant = known
    ? params.otherTenant
      ? anotherTenant({ store, profile, company, known, now })
      : known
    : createTenant({ store, profile, name: company.name, now });
  const tokens = issueServiceTokens({ store, tenant, now });
  const next: ConnectionRow = {
    ...connection,
    status: "Linked",
    authorizedAt: now,
    tenantId: tenant.id,
    // Linked to another account by mistake, the company's own stays known: the next Connect offers it.
    accountTenantId: params.otherTenant && known ? known.id : tenant.id,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    connectionInfo: identityInfo(tenant),
    errors: resolveErrors(connection.errors, now),
  };
  store.connections.save(next);
  return { ok: true, connection: next, tenant };
}

/** A new connection of a company to a platform, waiting for its end customer's consent (PendingAuth). */
export function newConnection(companyId: string, platformKey: PlatformKey, now: number): ConnectionRow {
  return {
    id: randomUUID(),
    companyId,
    platformKey,
    status: "PendingAuth",
    createdAt: now,
    lastSync: null,
    authorizedAt: null,
    tenantId: null,
    accountTenantId: null,
    accessToken: null,
    refreshToken: null,
    connectionInfo: null,
    errors: [],
  };
}

/** The end customer of a company with no connection picks their platform and connects a new account. */
export function consentToNewConnection(params: { store: Store; company: CompanyRow; platformKey: PlatformKey; now: number }): ConsentResult {
  const { store, company, now } = params;
  const conflict = accountingSlotConflict({ store, companyId: company.id, platform: requireProfile(params.platformKey).platform });
  if (conflict) return { ok: false, refused: "conflict", conflict };
  // Made before the platform is asked, as the service makes it: a refused authorize leaves it PendingAuth.
  const connection = newConnection(company.id, params.platformKey, now);
  store.connections.insert(connection);
  return consentToConnection({ store, company, connection, now });
}
