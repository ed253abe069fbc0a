/**
 * The address a request came from, for sign-in throttling. Next.js keeps a client's own
 * X-Forwarded-For and fills it from the socket only when it is missing, so that header alone says
 * whatever the client wants. Ferry's web server (scripts/web-server.mjs) therefore writes the TCP
 * peer's address into a header of its own on every request, over anything the client sent:
 * - not behind a proxy (TRUST_PROXY unset or 0): that socket address is the client;
 * - behind N proxies (TRUST_PROXY=N): the address the outermost trusted proxy appended to
 *   X-Forwarded-For, i.e. the Nth entry from the right; entries left of it are the client's own
 *   claims and are ignored.
 */
import net from "node:net";

/** The header Ferry's web server sets to the TCP peer's address (same name in scripts/web-server.mjs). */
export const SOCKET_ADDRESS_HEADER = "x-ferry-socket-address";

/** Set on globalThis by Ferry's web server: the socket-address header was written by it, not a client. */
export const SERVED_BY_FERRY = Symbol.for("ferry.web-server");

type HeaderSource = Record<string, string | string[] | undefined> | Headers | undefined;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const v = headers[name];
  return Array.isArray(v) ? v.join(",") : v;
}

/** A bare IP address (IPv4-mapped IPv6 written as IPv4), or null when the value is not one. */
export function normalizeAddress(value: string | undefined): string | null {
  const v = value?.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  return v && net.isIP(v) ? v : null;
}

/** Whether this process is served by Ferry's web server (so the socket-address header is its own). */
export function servedByFerry(): boolean {
  return (globalThis as Record<symbol, unknown>)[SERVED_BY_FERRY] === true;
}

/**
 * The client's address: the socket's without a proxy, else the one the outermost of `trustProxyHops`
 * proxies appended. Null when it cannot be known (then only the per-email limit applies).
 */
export function clientAddress(opts: { headers: HeaderSource; trustProxyHops: number; socketHeaderTrusted: boolean }): string | null {
  if (opts.trustProxyHops > 0) {
    const chain = (header(opts.headers, "x-forwarded-for") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (!chain.length) return null;
    return normalizeAddress(chain[Math.max(0, chain.length - opts.trustProxyHops)]);
  }
  if (!opts.socketHeaderTrusted) return null;
  return normalizeAddress(header(opts.headers, SOCKET_ADDRESS_HEADER));
}
