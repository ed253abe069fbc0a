/**
 * The six platforms with a managed token migration, defined once: keys, names, callback URLs,
 * the credential fields their token migration takes, their data types and token behaviour.
 *
 * The sandbox simulates exactly these; the app's intake validates token files against them;
 * the migration engine sends their credential fields in the authorization call.
 * Keys and callback URLs: reference/service-api.md §4–5. The per-platform authorization body is
 * not published by the service (UNCONFIRMED there), so the fields below are Ferry's documented
 * choice, modelled on each platform's own OAuth token responses.
 */
import {
  ACCOUNTING_DATA_TYPES,
  COMMERCE_DATA_TYPES,
  type DataType,
} from "@/core/platforms/data-types";
import type { PlatformCategory } from "@/core/platforms/categories";

export type PlatformKey = "fbrh" | "vxvy" | "qhyg" | "fztf" | "pbtz" | "rwuv";

/** The service's `sourceType` for a connection to the platform. */
export type SourceType = "Accounting" | "Commerce";

export type CredentialFieldFormat =
  /** Any non-empty string without whitespace (an opaque token). */
  | "token"
  /** An ISO 8601 date-time with a zone (`Z` or an offset). */
  | "datetime"
  /** Matched by `pattern`. */
  | "pattern";

export type CredentialField = {
  /** Key in the authorization body and column name in a token file. */
  name: string;
  label: string;
  required: boolean;
  /** Secret values are encrypted at rest and masked everywhere after submission. */
  secret: boolean;
  /**
   * The value names the platform account (company) the tokens belong to, so two rows of a token
   * file with the same value are the same company (realmId, accountId, businessId, organizationId,
   * shopDomain). Absent on tokens, dates and qualifiers such as Zoho's dataCenter.
   */
  identity?: boolean;
  format: CredentialFieldFormat;
  pattern?: RegExp;
  /** What a valid value looks like, in words (used in validation messages). */
  expected: string;
  example: string;
};

export type ManagedPlatform = {
  key: PlatformKey;
  name: string;
  category: PlatformCategory;
  sourceType: SourceType;
  /** The service's OAuth callback URL the customer adds to its registered app (step 3). */
  callbackUrl: string;
  /** Where the callback URL came from, for the customer-facing note. */
  callbackUrlSource: "documented" | "operator-convention";
  credentialFields: readonly CredentialField[];
  supportedDataTypes: readonly DataType[];
  /** Access tokens expire and a refresh token is exchanged for new ones. */
  hasRefreshToken: boolean;
  /** Each refresh issues a new refresh token and retires the previous one. */
  refreshTokenRotates: boolean;
  /** Lifetime of an access token at the platform, or null when it does not expire. */
  accessTokenLifetimeSeconds: number | null;
  /**
   * The refresh tokens the platform keeps per user for one OAuth app, where it documents a limit:
   * one user's grant covers every account they belong to (so rows of several accounts may share a
   * token), and an authorization past the limit invalidates the user's oldest token.
   */
  refreshTokensPerUser?: number;
};

const accessToken: CredentialField = {
  name: "accessToken",
  label: "Access token",
  required: true,
  secret: true,
  format: "token",
  expected: "the OAuth access token, without spaces",
  example: "at_5f2c9a7e1b",
};

const refreshToken: CredentialField = {
  name: "refreshToken",
  label: "Refresh token",
  required: true,
  secret: true,
  format: "token",
  expected: "the OAuth refresh token, without spaces",
  example: "rt_91d0c44a3e",
};

const expiresAt: CredentialField = {
  name: "expiresAt",
  label: "Access token expiry",
  required: false,
  secret: false,
  format: "datetime",
  expected: "an ISO 8601 date-time with a time zone, e.g. 2026-11-22T10:00:00Z",
  example: "2026-11-22T10:00:00Z",
};

function except(all: readonly DataType[], missing: readonly DataType[]): readonly DataType[] {
  const gone = new Set(missing);
  return all.filter((t) => !gone.has(t));
}

export const MANAGED_PLATFORMS: readonly ManagedPlatform[] = [
  {
    key: "fbrh",
    name: "FreeAgent",
    category: "accounting",
    sourceType: "Accounting",
    callbackUrl: "https://freeagent.codat.io/oauth/callback",
    callbackUrlSource: "documented",
    credentialFields: [accessToken, refreshToken, expiresAt],
    supportedDataTypes: except(ACCOUNTING_DATA_TYPES, [
      "directCosts",
      "directIncomes",
      "itemReceipts",
      "purchaseOrders",
      "salesOrders",
      "trackingCategories",
    ]),
    hasRefreshToken: true,
    refreshTokenRotates: false,
    accessTokenLifetimeSeconds: 3600,
  },
  {
    key: "vxvy",
    name: "FreshBooks",
    category: "invoicing",
    sourceType: "Accounting",
    callbackUrl: "https://freshbooks.codat.io/oauth/callback",
    callbackUrlSource: "documented",
    credentialFields: [
      accessToken,
      refreshToken,
      expiresAt,
      {
        name: "accountId",
        identity: true,
        label: "Account ID",
        required: true,
        secret: false,
        format: "pattern",
        pattern: /^[A-Za-z0-9]{4,12}$/,
        expected: "the FreshBooks account id: 4–12 letters or digits",
        example: "xYz4Qa",
      },
    ],
    supportedDataTypes: except(ACCOUNTING_DATA_TYPES, [
      "billCreditNotes",
      "directCosts",
      "directIncomes",
      "itemReceipts",
      "journals",
      "purchaseOrders",
      "salesOrders",
      "trackingCategories",
      "transfers",
    ]),
    hasRefreshToken: true,
    refreshTokenRotates: true,
    accessTokenLifetimeSeconds: 43200,
  },
  {
    key: "qhyg",
    name: "QuickBooks Online",
    category: "accounting",
    sourceType: "Accounting",
    callbackUrl: "https://quickbooksonline.codat.io/oauth2/callback",
    callbackUrlSource: "documented",
    credentialFields: [
      accessToken,
      refreshToken,
      expiresAt,
      {
        name: "realmId",
        identity: true,
        label: "Realm ID (company ID)",
        required: true,
        secret: false,
        format: "pattern",
        pattern: /^\d{6,20}$/,
        expected: "the QuickBooks realm id: 6–20 digits",
        example: "9130356812345678",
      },
    ],
    supportedDataTypes: except(ACCOUNTING_DATA_TYPES, ["directIncomes", "itemReceipts"]),
    hasRefreshToken: true,
    refreshTokenRotates: true,
    accessTokenLifetimeSeconds: 3600,
  },
  {
    key: "fztf",
    name: "Shopify",
    category: "commerce",
    sourceType: "Commerce",
    // The service documents no Shopify callback URL (reference §5.2): this follows the pattern
    // of the documented ones and is flagged as the operator's convention in the portal.
    callbackUrl: "https://shopify.codat.io/oauth/callback",
    callbackUrlSource: "operator-convention",
    credentialFields: [
      {
        name: "shopDomain",
        identity: true,
        label: "Shop domain",
        required: true,
        secret: false,
        format: "pattern",
        pattern: /^[a-z0-9][a-z0-9-]{0,60}\.myshopify\.com$/,
        expected: "the shop's myshopify.com domain, e.g. acme-store.myshopify.com",
        example: "acme-store.myshopify.com",
      },
      {
        ...accessToken,
        expected: "the shop's offline access token, starting shpat_ or shpca_",
        pattern: /^shp(at|ca)_[A-Za-z0-9]{8,64}$/,
        format: "pattern",
        example: "shpat_0a1b2c3d4e5f6a7b",
      },
    ],
    supportedDataTypes: except(COMMERCE_DATA_TYPES, ["commerce-taxComponents"]),
    hasRefreshToken: false,
    refreshTokenRotates: false,
    accessTokenLifetimeSeconds: null,
  },
  {
    key: "pbtz",
    name: "Wave",
    category: "invoicing",
    sourceType: "Accounting",
    callbackUrl: "https://wave.codat.io/oauth/callback",
    callbackUrlSource: "documented",
    credentialFields: [
      accessToken,
      refreshToken,
      expiresAt,
      {
        name: "businessId",
        identity: true,
        label: "Business ID",
        required: true,
        secret: false,
        format: "pattern",
        pattern: /^[A-Za-z0-9+/=_-]{8,120}$/,
        expected: "the Wave business id (a base64 string of 8–120 characters)",
        example: "QnVzaW5lc3M6MTIzNDU2",
      },
    ],
    supportedDataTypes: except(ACCOUNTING_DATA_TYPES, [
      "billCreditNotes",
      "creditNotes",
      "directCosts",
      "directIncomes",
      "itemReceipts",
      "journals",
      "purchaseOrders",
      "salesOrders",
      "trackingCategories",
      "transfers",
    ]),
    hasRefreshToken: true,
    refreshTokenRotates: true,
    accessTokenLifetimeSeconds: 7200,
  },
  {
    key: "rwuv",
    name: "Zoho Books",
    category: "accounting",
    sourceType: "Accounting",
    callbackUrl: "https://zohobooks.codat.io/oauth/callback",
    callbackUrlSource: "documented",
    credentialFields: [
      accessToken,
      refreshToken,
      expiresAt,
      {
        name: "organizationId",
        identity: true,
        label: "Organization ID",
        required: true,
        secret: false,
        format: "pattern",
        pattern: /^\d{6,20}$/,
        expected: "the Zoho Books organization id: 6–20 digits",
        example: "60012345678",
      },
      {
        name: "dataCenter",
        label: "Data centre",
        required: false,
        secret: false,
        format: "pattern",
        pattern: /^(com|eu|in|com\.au|jp|ca|sa|uk|com\.cn)$/,
        expected: "one of com, eu, in, com.au, jp, ca, sa, uk, com.cn",
        example: "eu",
      },
    ],
    supportedDataTypes: except(ACCOUNTING_DATA_TYPES, ["directIncomes", "itemReceipts", "transfers"]),
    hasRefreshToken: true,
    refreshTokenRotates: false,
    accessTokenLifetimeSeconds: 3600,
    // Zoho's documented limit (reference §service-api, Zoho Books limits): 20 per user, the 21st link invalidates the oldest.
    refreshTokensPerUser: 20,
  },
];

/** Platforms the service integrates with that have no managed migration (reference §4). */
export const UNMANAGED_PLATFORMS: readonly { key: string; name: string }[] = [
  { key: "gbol", name: "Xero" },
  { key: "ndsk", name: "QuickBooks Online Sandbox" },
  { key: "mqjo", name: "Codat Sandbox" },
  { key: "tgff", name: "Sage Accounting" },
  { key: "pdvj", name: "MYOB" },
  { key: "akxx", name: "NetSuite" },
  { key: "aiwb", name: "Commerce Sandbox" },
  { key: "exgd", name: "Stripe" },
  { key: "zsth", name: "Square" },
];

export const MANAGED_PLATFORM_KEYS = MANAGED_PLATFORMS.map((p) => p.key) as [PlatformKey, ...PlatformKey[]];

const byKey = new Map<string, ManagedPlatform>(MANAGED_PLATFORMS.map((p) => [p.key, p]));

/** The managed platform with this key, or undefined (keys are case-sensitive, like the service's). */
export function getManagedPlatform(key: string): ManagedPlatform | undefined {
  return byKey.get(key);
}

/** True when `key` names one of the six managed platforms. */
export function isManagedPlatformKey(key: string): key is PlatformKey {
  return byKey.has(key);
}

/**
 * Why a platform cannot have a managed migration, in words for the person who asked.
 * Returns null for the six managed platforms.
 */
export function unmanagedReason(keyOrName: string): string | null {
  if (isManagedPlatformKey(keyOrName)) return null;
  const known = UNMANAGED_PLATFORMS.find(
    (p) => p.key === keyOrName || p.name.toLowerCase() === keyOrName.toLowerCase(),
  );
  const label = known ? `${known.name} (${known.key})` : `"${keyOrName}"`;
  const names = MANAGED_PLATFORMS.map((p) => p.name).join(", ");
  return `${label} has no standard managed migration process. Managed migrations are offered only for ${names}; for any other platform, contact a solutions engineer.`;
}
