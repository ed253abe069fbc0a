/**
 * The Link page's safeguard against a Connect posted from elsewhere: each page carries a nonce,
 * an HMAC of the company id and the time it was made, under a secret the sandbox keeps. A POST
 * without a nonce of this sandbox for this company, made within the last two hours (real time:
 * the page is in a real browser, whatever the sandbox clock says), changes nothing. The nonce
 * itself needs no state, so a restart does not void an open page; the ones already spent are kept
 * (store/link-nonces-table.ts), so each works once. A random part makes every page's nonce its own,
 * even for two pages made in the same millisecond.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** How long a page's Connect button stays good. */
export const LINK_NONCE_LIFETIME_MS = 2 * 60 * 60 * 1000;

function mac(secret: string, companyId: string, madeAt: number, salt: string): string {
  return createHmac("sha256", secret).update(`link:${companyId}:${madeAt}:${salt}`).digest("base64url");
}

/** A nonce for a page of `companyId`, made at real time `now`. */
export function makeLinkNonce(params: { secret: string; companyId: string; now?: number }): string {
  const madeAt = params.now ?? Date.now();
  const salt = randomBytes(12).toString("base64url");
  return `${madeAt}.${salt}.${mac(params.secret, params.companyId, madeAt, salt)}`;
}

/** True when `nonce` was made by this sandbox for `companyId` within the lifetime. */
export function checkLinkNonce(params: { secret: string; companyId: string; nonce: string | null; now?: number }): boolean {
  const match = params.nonce ? /^(\d{1,15})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/.exec(params.nonce) : null;
  if (!match?.[1] || !match[2] || !match[3]) return false;
  const madeAt = Number(match[1]);
  const now = params.now ?? Date.now();
  if (madeAt > now + 60_000 || now - madeAt > LINK_NONCE_LIFETIME_MS) return false;
  const expected = Buffer.from(mac(params.secret, params.companyId, madeAt, match[2]));
  const given = Buffer.from(match[3]);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
