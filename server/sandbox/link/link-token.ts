/**
 * One-time Link URLs, as the service's client setting of that name makes them: with it on, every
 * company `redirect` and connection `linkUrl` the API gives carries `?token=…`, which opens the
 * company's Link pages and works for one Connect, for one day after it was given out.
 *
 * The token needs no state (listing 10,000 companies stores nothing): an HMAC of the company id,
 * the sandbox time it was issued and a random part, under the sandbox's Link secret (the one the
 * pages' nonces use, with another prefix, so neither passes for the other). Its lifetime runs on
 * the SANDBOX clock, so a test expires it by moving the clock a day on. Only the spent ones are
 * kept (store/link-tokens-table.ts), until they would have expired anyway.
 *
 * Format: `{issuedAt}.{salt}.{mac}` — issuedAt in epoch milliseconds (sandbox clock), salt 12
 * random bytes and mac the HMAC-SHA256, both base64url (16 and 43 characters).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** How long a one-time Link URL works after it was given out (sandbox clock): one day, as the service's. */
export const LINK_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** Clock slack allowed for a token that seems issued in the future. */
const FUTURE_SLACK_MS = 60_000;

function mac(secret: string, companyId: string, issuedAt: number, salt: string): string {
  return createHmac("sha256", secret).update(`link-url:${companyId}:${issuedAt}:${salt}`).digest("base64url");
}

/** A new token for the Link pages of `companyId`, issued at sandbox time `now`. */
export function makeLinkToken(params: { secret: string; companyId: string; now: number }): string {
  const salt = randomBytes(12).toString("base64url");
  return `${params.now}.${salt}.${mac(params.secret, params.companyId, params.now, salt)}`;
}

/**
 * What a token given to a Link page is worth at sandbox time `now` (whether it was spent is the
 * store's to say): `missing`; `forged` (not this sandbox's for this company, or malformed);
 * `expired` (a day or more after it was issued); or good, with the time it was issued.
 */
export type LinkTokenCheck = { ok: true; issuedAt: number } | { ok: false; reason: "missing" | "forged" | "expired" };

export function checkLinkToken(params: { secret: string; companyId: string; token: string | null; now: number }): LinkTokenCheck {
  if (!params.token) return { ok: false, reason: "missing" };
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/.exec(params.token);
  if (!match?.[1] || !match[2] || !match[3]) return { ok: false, reason: "forged" };
  const issuedAt = Number(match[1]);
  const expected = Buffer.from(mac(params.secret, params.companyId, issuedAt, match[2]));
  const given = Buffer.from(match[3]);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "forged" };
  if (issuedAt > params.now + FUTURE_SLACK_MS) return { ok: false, reason: "forged" };
  if (params.now - issuedAt >= LINK_TOKEN_LIFETIME_MS) return { ok: false, reason: "expired" };
  return { ok: true, issuedAt };
}
