/**
 * A connection's Link URL and its platform company, as Ferry keeps them.
 *
 * A service Link URL as Ferry keeps it: without its query and fragment. Where the client has
 * one-time Link URLs, every answer carries a new token in the query, which works once and for a day;
 * the link Ferry hands out is its own (server/migration/watch/reconnect-link.ts) and asks the
 * service for a fresh one each time it is opened.
 */
export function linkUrlWithoutToken(url: string): string {
  const at = url.search(/[?#]/);
  return at === -1 ? url : url.slice(0, at);
}

/**
 * The platform company a connection is authorized for, from the service's `connectionInfo` (its
 * string fields: realmId, organisation id, shop domain…); null when it says nothing.
 */
export function tenantOf(connectionInfo: Record<string, unknown> | null | undefined): Record<string, string> | null {
  if (!connectionInfo) return null;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(connectionInfo)) if (typeof v === "string" && v) out[k] = v;
  return Object.keys(out).length ? out : null;
}

/**
 * Whether a reconnection landed on another platform company than the migrated one: some field both
 * name differs. Nothing known on either side is not a difference (the service may not say).
 */
export function otherTenant(migrated: Record<string, string> | null, now: Record<string, string> | null): boolean {
  if (!migrated || !now) return false;
  return Object.keys(migrated).some((k) => k in now && now[k] !== migrated[k]);
}

/** A platform company's identity in words: "realmId 4620816365", fields joined. */
export function tenantWords(tenant: Record<string, string>): string {
  return Object.entries(tenant)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}
