/**
 * What a platform's refusal of migrated tokens means, read from its words. A refusal reaches
 * Ferry as a connection's `dataConnectionErrors` item (statusCode, statusText, errorMessage);
 * the status alone cannot tell the cases apart — most platforms answer `400 invalid_grant` to
 * every refused refresh token — so the family is read from the error text.
 *
 * Three families, which call for different remedies:
 * - `never_valid`: the tokens were never good for this app and account: not issued by the
 *   platform at all, malformed (not the platform's token shape, or an access token given as the
 *   refresh token), issued to another OAuth app (client id mismatch), or of another account than
 *   the one the row names. The token file is wrong; no reconnection by the old app explains it.
 * - `rotated`: good once, then replaced by the customer's old app (a newer refresh token was
 *   issued to it: "already used"), or already exchanged by the service for another connection.
 * - `revoked`: the end customer disconnected the app or uninstalled it, or the token expired
 *   beyond refresh. Only the end customer can grant access again (the Link flow).
 *
 * The sandbox's simulated platforms word every refusal so that exactly one family matches
 * (server/sandbox/simulators/token-refusals.ts; its tests check each case on each platform).
 * Shared here so the app reads the words the sandbox writes, as credentials.ts is shared.
 */

export const TOKEN_REFUSAL_FAMILIES = ["never_valid", "rotated", "revoked"] as const;
export type TokenRefusalFamily = (typeof TOKEN_REFUSAL_FAMILIES)[number];

/** The words that identify each family, in the platform's error text (case-insensitive). */
export const TOKEN_REFUSAL_PATTERNS: Readonly<Record<TokenRefusalFamily, RegExp>> = {
  never_valid: /not one this platform issued|\bmalformed\b|another OAuth app|client id mismatch|belong to another|belong to different accounts/i,
  rotated: /already used|already exchanged|\brotated\b/i,
  revoked: /\brevoked\b|\buninstalled\b|\bexpired\b/i,
};

/**
 * The family of a platform's refusal, from its error text (or the connection's latest error
 * item's `errorMessage`); null when the words name none of them (e.g. "reauthorization is
 * required before data can be fetched", said of a connection already Deauthorized).
 */
export function tokenRefusalFamily(text: string): TokenRefusalFamily | null {
  for (const family of TOKEN_REFUSAL_FAMILIES) {
    if (TOKEN_REFUSAL_PATTERNS[family].test(text)) return family;
  }
  return null;
}
