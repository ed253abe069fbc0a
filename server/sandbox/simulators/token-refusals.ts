/**
 * How each simulated platform words its refusal of credentials, one answer per case, as real
 * platforms give them: the status, the service's sentence naming the case, and the platform's own
 * body, modelled on its real OAuth error responses (Intuit's `{"error":"invalid_grant"}` with an
 * `error_description` such as "Incorrect Token type or clientID"; FreshBooks' Doorkeeper-style
 * descriptions; FreeAgent's "Refresh token not recognised"; Wave's bare `invalid_grant`; Zoho's
 * `{"error":"invalid_code"}` and `{"error":"invalid_client"}`; Shopify's "[API] Invalid API key or
 * access token (unrecognized login or wrong password)").
 *
 * The shape of `errorMessage` (Ferry's advice keys on its words):
 *   refresh-token platforms, a refused refresh token — 400 Bad Request:
 *     "{Platform} rejected the credentials: invalid_grant: {sentence} {Vendor} answered {body}. Reauthorization is required."
 *   Shopify, a refused access token — 401 Unauthorized:
 *     "Shopify rejected the credentials: [API] Invalid API key or access token (unrecognized login or wrong password). {Sentence} Reauthorization is required."
 *   tokens of another account than the row names — 403 Forbidden:
 *     "{Platform} rejected the credentials: {sentence} {Vendor} answered {body}. Reauthorization is required."
 *
 * Which words mean which family (server/platforms/token-refusals.ts holds the patterns):
 *   never valid — "is not one this platform issued" (unknown), "is malformed" (not the platform's
 *     token shape, or an access token given as the refresh token), "was issued to another OAuth
 *     app (client id mismatch)", "the tokens belong to another {account label} than {field} {value}"
 *     (403), "belong to different accounts" (access and refresh token of two accounts, 403);
 *   rotated — "was already used" (the customer's old app refreshed: a newer refresh token was
 *     issued to it), "was already exchanged" (the service used it for another connection),
 *     Shopify: "was rotated";
 *   revoked or expired — "was revoked: the end customer disconnected the app", "was revoked: the
 *     end customer uninstalled the app", "expired".
 * "invalid_grant" stays in every refused refresh token's message, whatever the family.
 */
import type { CredentialField, ManagedPlatform, PlatformKey } from "../../platforms";

/** How the platform refused credentials; becomes a `dataConnectionErrors` item. */
export type PlatformRejection = {
  statusCode: string;
  statusText: string;
  errorMessage: string;
};

/** The cases a platform tells apart, each with its own answer. */
export type RefusalCase =
  | { kind: "unknown" }
  | { kind: "malformed"; detail?: string }
  | { kind: "otherApp" }
  | { kind: "otherAccount"; field: CredentialField; value: string }
  | { kind: "mixedAccounts" }
  | { kind: "alreadyUsed" }
  | { kind: "alreadyExchanged" }
  | { kind: "revoked" }
  | { kind: "uninstalled" }
  | { kind: "expired" };

type TokenCase = Exclude<RefusalCase["kind"], "otherAccount" | "mixedAccounts">;

type Voice = {
  /** Who answers (the platform's company or identity service). */
  vendor: string;
  /** Its token endpoint's (or, for Shopify, its API's) body for each token case. */
  tokenBody: Record<TokenCase, string>;
  /** Its body when the tokens are not for the account the request names. */
  forbiddenBody: string;
};

const SHOPIFY_INVALID = "[API] Invalid API key or access token (unrecognized login or wrong password)";

const intuitGrant = (description?: string) =>
  description ? `{"error_description":"${description}","error":"invalid_grant"}` : `{"error":"invalid_grant"}`;
const doorkeeperGrant = (description: string) => `{"error":"invalid_grant","error_description":"${description}"}`;
const freeAgentGrant = (description: string) => `{"error":"invalid_grant","error_description":"${description}"}`;

const VOICES: Record<PlatformKey, Voice> = {
  qhyg: {
    vendor: "Intuit",
    tokenBody: {
      unknown: intuitGrant("Incorrect or invalid refresh token"),
      malformed: intuitGrant("Incorrect or invalid refresh token"),
      otherApp: intuitGrant("Incorrect Token type or clientID"),
      alreadyUsed: intuitGrant(),
      alreadyExchanged: intuitGrant(),
      revoked: intuitGrant("Token revoked"),
      uninstalled: intuitGrant("Token revoked"),
      expired: intuitGrant("Token expired"),
    },
    forbiddenBody: "message=ApplicationAuthorizationFailed; errorCode=003100; statusCode=403",
  },
  vxvy: {
    vendor: "FreshBooks",
    tokenBody: {
      unknown: doorkeeperGrant("The provided authorization grant is invalid."),
      malformed: doorkeeperGrant("The provided authorization grant is invalid."),
      otherApp: doorkeeperGrant("The provided authorization grant was issued to another client."),
      alreadyUsed: doorkeeperGrant("The provided authorization grant has already been used."),
      alreadyExchanged: doorkeeperGrant("The provided authorization grant has already been used."),
      revoked: doorkeeperGrant("The provided authorization grant has been revoked."),
      uninstalled: doorkeeperGrant("The provided authorization grant has been revoked."),
      expired: doorkeeperGrant("The provided authorization grant has expired."),
    },
    forbiddenBody:
      '{"response":{"errors":[{"errno":1003,"message":"The server could not verify that you are authorized to access the URL requested."}]}}',
  },
  fbrh: {
    vendor: "FreeAgent",
    tokenBody: {
      unknown: freeAgentGrant("Refresh token not recognised"),
      malformed: freeAgentGrant("Refresh token not recognised"),
      otherApp: freeAgentGrant("Refresh token was issued to a different client"),
      alreadyUsed: freeAgentGrant("Refresh token not recognised"),
      alreadyExchanged: freeAgentGrant("Refresh token not recognised"),
      revoked: freeAgentGrant("Access to this FreeAgent account has been revoked"),
      uninstalled: freeAgentGrant("Access to this FreeAgent account has been revoked"),
      expired: freeAgentGrant("Refresh token has expired"),
    },
    forbiddenBody: '{"errors":{"error":{"message":"Access denied"}}}',
  },
  pbtz: {
    vendor: "Wave",
    tokenBody: {
      unknown: '{"error": "invalid_grant"}',
      malformed: '{"error": "invalid_grant"}',
      otherApp: '{"error": "invalid_grant"}',
      alreadyUsed: '{"error": "invalid_grant"}',
      alreadyExchanged: '{"error": "invalid_grant"}',
      revoked: '{"error": "invalid_grant"}',
      uninstalled: '{"error": "invalid_grant"}',
      expired: '{"error": "invalid_grant"}',
    },
    forbiddenBody: '{"errors":[{"message":"You do not have access to this business.","extensions":{"code":"FORBIDDEN"}}]}',
  },
  rwuv: {
    vendor: "Zoho Accounts",
    tokenBody: {
      unknown: '{"error":"invalid_code"}',
      malformed: '{"error":"invalid_code"}',
      otherApp: '{"error":"invalid_client"}',
      alreadyUsed: '{"error":"invalid_code"}',
      alreadyExchanged: '{"error":"invalid_code"}',
      revoked: '{"error":"invalid_code"}',
      uninstalled: '{"error":"invalid_code"}',
      expired: '{"error":"invalid_code"}',
    },
    forbiddenBody: '{"code":57,"message":"You are not authorized to perform this operation"}',
  },
  fztf: {
    vendor: "Shopify",
    tokenBody: {
      unknown: SHOPIFY_INVALID,
      malformed: SHOPIFY_INVALID,
      otherApp: SHOPIFY_INVALID,
      alreadyUsed: SHOPIFY_INVALID,
      alreadyExchanged: SHOPIFY_INVALID,
      revoked: SHOPIFY_INVALID,
      uninstalled: SHOPIFY_INVALID,
      expired: SHOPIFY_INVALID,
    },
    forbiddenBody: `{"errors":"${SHOPIFY_INVALID}"}`,
  },
};

/** The service's sentence for a token case, lower-case first (it follows "invalid_grant: "). */
function tokenSentence(platform: ManagedPlatform, refusal: Extract<RefusalCase, { kind: TokenCase }>): string {
  const noun = platform.hasRefreshToken ? "refresh token" : "access token";
  const account = platform.key === "fztf" ? "shop" : `${platform.name} account`;
  switch (refusal.kind) {
    case "unknown":
      return `the ${noun} is not one this platform issued.`;
    case "malformed":
      return `the ${noun} is malformed: ${refusal.detail ?? `it does not have the shape of a ${platform.name} ${noun}`}.`;
    case "otherApp":
      return `the ${noun} was issued to another OAuth app (client id mismatch), not to the app the service uses for ${platform.name}.`;
    case "alreadyUsed":
      return platform.hasRefreshToken
        ? "the refresh token was already used. The customer's own application refreshed the tokens after they were handed over, which retired every earlier token."
        : "the access token was rotated: the customer's own app obtained a newer token after this one was handed over, which retired it.";
    case "alreadyExchanged":
      return `the ${noun} was already exchanged for new tokens and cannot be used again.`;
    case "revoked":
      return `the ${noun} was revoked: the end customer disconnected the app from their ${account}.`;
    case "uninstalled":
      return `the ${noun} was revoked: the end customer uninstalled the app from their ${account}.`;
    case "expired":
      return platform.hasRefreshToken
        ? "the refresh token expired: it was not used within its lifetime, so it can no longer be refreshed."
        : "the access token expired.";
    default: {
      const never: never = refusal;
      return never;
    }
  }
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The platform's answer to credentials it refuses for `refusal` (see the module comment). */
export function platformRefusal(platform: ManagedPlatform, refusal: RefusalCase): PlatformRejection {
  const voice = VOICES[platform.key];
  const frame = (detail: string) => `${platform.name} rejected the credentials: ${detail} Reauthorization is required.`;
  if (refusal.kind === "otherAccount" || refusal.kind === "mixedAccounts") {
    const sentence =
      refusal.kind === "otherAccount"
        ? `the tokens belong to another ${refusal.field.label.toLowerCase()} than ${refusal.field.name} ${refusal.value}.`
        : "the access token and the refresh token belong to different accounts.";
    return { statusCode: "403", statusText: "Forbidden", errorMessage: frame(`${sentence} ${voice.vendor} answered ${voice.forbiddenBody}.`) };
  }
  const sentence = tokenSentence(platform, refusal);
  if (!platform.hasRefreshToken) {
    return {
      statusCode: "401",
      statusText: "Unauthorized",
      errorMessage: frame(`${voice.tokenBody[refusal.kind]}. ${capitalize(sentence)}`),
    };
  }
  return {
    statusCode: "400",
    statusText: "Bad Request",
    errorMessage: frame(`invalid_grant: ${sentence} ${voice.vendor} answered ${voice.tokenBody[refusal.kind]}.`),
  };
}

/** Why a token was retired, as stored (`tokens.retired_reason`). */
export const RETIRED = {
  /** The customer's old app refreshed (the rotate control): every earlier token retired. */
  rotated: "rotated",
  /** The service exchanged the refresh token for new ones. */
  exchanged: "exchanged",
  /** The end customer disconnected the app (a drop, or the control's revoked credentials). */
  revoked: "revoked",
  /** The end customer uninstalled the app. */
  uninstalled: "uninstalled",
} as const;

/** The refusal for a token retired for `reason` (null or unknown: a token the platform never issued). */
export function retiredRefusal(reason: string | null): RefusalCase {
  switch (reason) {
    case RETIRED.rotated:
      return { kind: "alreadyUsed" };
    case RETIRED.exchanged:
      return { kind: "alreadyExchanged" };
    case RETIRED.revoked:
      return { kind: "revoked" };
    case RETIRED.uninstalled:
      return { kind: "uninstalled" };
    default:
      return { kind: "unknown" };
  }
}
