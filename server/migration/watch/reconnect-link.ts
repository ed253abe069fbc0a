/**
 * A company's reconnect link: Ferry's own URL that never goes stale, one per company, handed out
 * on the console, in the portal, in the CSV and in mails. Opening it asks the service for a fresh
 * Link URL and sends the end customer there (open-reconnect-link.ts), so a service whose Link URLs
 * work once and expire after a day still has a link that works a week later.
 *
 * The link is `{appUrl}/reconnect/{itemId}.{keyId}.{mac}`: an HMAC of the item id under a key
 * derived (HKDF) from the encryption key `keyId` of Ferry's key ring. Nothing is stored, every
 * screen and mail can write it again, and it cannot be guessed from a company's id. After a key
 * rotation the old key stays in the ring (FERRY_ENCRYPTION_OLD_KEYS), so links already sent keep
 * working; new ones are made with the current key.
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import type { KeyRing } from "@/server/security/secrets";

/** The path under Ferry's address. */
export const RECONNECT_PATH = "/reconnect/";

const MAC_CHARS = 32; // 192 bits of base64url

const derived = new WeakMap<Buffer, Buffer>();

function linkKey(key: Buffer): Buffer {
  let k = derived.get(key);
  if (!k) {
    k = Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), "ferry reconnect link v1", 32));
    derived.set(key, k);
  }
  return k;
}

function mac(key: Buffer, itemId: string): string {
  return createHmac("sha256", linkKey(key)).update(`reconnect:${itemId}`).digest("base64url").slice(0, MAC_CHARS);
}

/** The link's last path segment for the company (item) `itemId`, under the ring's current key. */
export function reconnectLinkToken(ring: KeyRing, itemId: string): string {
  return `${itemId}.${ring.current.id}.${mac(ring.current.key, itemId)}`;
}

/** The company's reconnect link at Ferry's address `appUrl`. */
export function reconnectLinkUrl(links: ReconnectLinks, itemId: string): string {
  return `${links.appUrl.replace(/\/+$/, "")}${RECONNECT_PATH}${reconnectLinkToken(links.ring, itemId)}`;
}

/** What writing a company's reconnect link takes: Ferry's address and its key ring. */
export type ReconnectLinks = { appUrl: string; ring: KeyRing };

const TOKEN = /^([A-Za-z0-9-]{1,64})\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{32})$/;

/** The item id a link's token names, when the token was made by a key of this ring; else null. */
export function verifyReconnectLinkToken(ring: KeyRing, token: string): string | null {
  const m = TOKEN.exec(token);
  if (!m?.[1] || !m[2] || !m[3]) return null;
  const key = ring.all.get(m[2]);
  if (!key) return null;
  const expected = Buffer.from(mac(key, m[1]));
  const given = Buffer.from(m[3]);
  return given.length === expected.length && timingSafeEqual(given, expected) ? m[1] : null;
}
