/**
 * The rule for a service target's base URL. The API key travels in every request's Authorization
 * header, so a target on another machine must be reached over https; plain http is allowed only
 * for this machine's own loopback addresses (a sandbox or a proxy beside Ferry), where the key
 * never crosses a network.
 */
import { BlockList, isIP } from "node:net";
import { literalAddressRefusal, privateTargetsAllowed, targetAddressPolicy } from "./network";

// node's BlockList also matches IPv4-mapped IPv6 forms (::ffff:127.0.0.1) against the IPv4 subnet.
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Whether a URL's hostname (as `URL` normalises it, IPv6 in brackets) names this machine's loopback. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (host === "localhost") return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? "ipv4" : "ipv6");
}

/**
 * The base URL as stored (no trailing slash), or what is wrong with it in words. An address written
 * in it is held to the address rule here (network.ts); a name is resolved and checked by the
 * caller that saves it, and by the client at every connection.
 */
export function checkBaseUrl(raw: string, options: { allowPrivate?: boolean } = {}): { ok: true; url: string } | { ok: false; problem: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, problem: "Enter the service's base URL, e.g. https://api.codat.io" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, problem: "The base URL must start with https://." };
  if (url.username || url.password) return { ok: false, problem: "Put the API key in its own field, not in the URL." };
  if (url.search || url.hash) return { ok: false, problem: "The base URL is the API's root: leave out any ? or # part." };
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    return { ok: false, problem: "The base URL must use https: the API key would travel unencrypted. Plain http is only for this machine (localhost, 127.0.0.1, ::1)." };
  }
  const refused = literalAddressRefusal(url, targetAddressPolicy({ builtIn: false }, options.allowPrivate ?? privateTargetsAllowed()));
  if (refused) return { ok: false, problem: `The base URL cannot be used: ${refused}` };
  return { ok: true, url: url.toString().replace(/\/+$/, "") };
}
