/**
 * What the sandbox adds to each managed platform of server/platforms to simulate it: stable
 * integration and source ids, how its tokens and identity values look, and its category's data
 * types (for NotSupported entries).
 */
import { createHash, randomBytes, randomInt, randomUUID } from "node:crypto";
import {
  ACCOUNTING_DATA_TYPES,
  COMMERCE_DATA_TYPES,
  MANAGED_PLATFORMS,
  getManagedPlatform,
  type CredentialField,
  type DataType,
  type ManagedPlatform,
} from "../../platforms";

/** A UUID derived from a name, so a platform keeps its ids across restarts and resets. */
export function stableUuid(name: string): string {
  const h = createHash("sha1").update(name).digest();
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x50;
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export type PlatformProfile = {
  platform: ManagedPlatform;
  integrationId: string;
  sourceId: string;
  /** Every data type of the platform's category; the unsupported ones sync as NotSupported. */
  categoryDataTypes: readonly DataType[];
  /** Non-secret pattern fields that name the tenant (realmId, shopDomain, ...): they must match it. */
  identityFields: readonly CredentialField[];
};

const profiles = new Map<string, PlatformProfile>(
  MANAGED_PLATFORMS.map((platform) => [
    platform.key,
    {
      platform,
      integrationId: stableUuid(`ferry-sandbox:integration:${platform.key}`),
      sourceId: stableUuid(`ferry-sandbox:source:${platform.key}`),
      categoryDataTypes: platform.sourceType === "Commerce" ? COMMERCE_DATA_TYPES : ACCOUNTING_DATA_TYPES,
      identityFields: platform.credentialFields.filter((f) => !f.secret && f.format === "pattern"),
    },
  ]),
);

/** The simulation profile of a managed platform key, or undefined. */
export function getProfile(key: string): PlatformProfile | undefined {
  return profiles.get(key);
}

/** The profile of a key already known to be managed (stored rows); throws if the code drifted. */
export function requireProfile(key: string): PlatformProfile {
  const profile = profiles.get(key);
  if (!profile) throw new Error(`No managed platform with key ${key}`);
  return profile;
}

/** True when the platform offers the data type. */
export function supportsDataType(platform: ManagedPlatform, dataType: string): boolean {
  return (platform.supportedDataTypes as readonly string[]).includes(dataType);
}

function digits(count: number): string {
  let out = "";
  for (let i = 0; i < count; i++) out += String(randomInt(10));
  return out;
}

function alphanumeric(count: number): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789";
  let out = "";
  for (let i = 0; i < count; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

function slug(name: string): string {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/g, "");
  return s || "shop";
}

/** A fresh identity value for a tenant, in the field's own format. */
function identityValue(field: CredentialField, tenantName: string): string {
  switch (field.name) {
    case "realmId":
      return `9130${digits(12)}`;
    case "accountId":
      return alphanumeric(6);
    case "businessId":
      return Buffer.from(`Business:${randomUUID()}`).toString("base64");
    case "organizationId":
      return `600${digits(8)}`;
    case "dataCenter":
      return ["com", "eu", "in", "com.au"][randomInt(4)] ?? "com";
    case "shopDomain":
      return `${slug(tenantName)}-${randomBytes(2).toString("hex")}.myshopify.com`;
    default:
      // A field added to server/platforms later: its documented example is valid by definition.
      return field.example;
  }
}

/** The identity values of a new tenant: one per identity field of the platform. */
export function newIdentity(profile: PlatformProfile, tenantName: string): Record<string, string> {
  const identity: Record<string, string> = {};
  for (const field of profile.identityFields) identity[field.name] = identityValue(field, tenantName);
  return identity;
}

/** A new token in the platform's style (Shopify offline tokens start `shpat_`). */
export function newToken(platform: ManagedPlatform, kind: "access" | "refresh"): string {
  if (platform.key === "fztf") return `shpat_${randomBytes(16).toString("hex")}`;
  return `${platform.key}.${kind === "access" ? "at" : "rt"}.${randomBytes(18).toString("base64url")}`;
}

/**
 * True when `token` has the shape of a token the platform issues (as `newToken` makes them); a
 * platform answers a token of another shape as malformed rather than unknown. Shopify's shape is
 * its credential field's pattern, which the service checks before the platform sees the token.
 */
export function hasTokenShape(platform: ManagedPlatform, token: string): boolean {
  if (platform.key === "fztf") return /^shp(at|ca)_[A-Za-z0-9]{8,64}$/.test(token);
  return new RegExp(`^${platform.key}\\.(at|rt)\\.[A-Za-z0-9_-]{24}$`).test(token);
}

/** The managed platform of a key already validated elsewhere. */
export function platformOf(key: string): ManagedPlatform {
  const platform = getManagedPlatform(key);
  if (!platform) throw new Error(`No managed platform with key ${key}`);
  return platform;
}
