/**
 * Where the service client may connect, by the address it actually connects to. The API key goes
 * in every request and the end customers' tokens in some, so a target that is not the built-in
 * sandbox may reach only a public address or this machine's loopback: never a link-local or cloud
 * metadata address (which hands out the host's own credentials), and a private network address
 * only when the operator allows private targets (a service reached inside a private network).
 * Plain http goes to loopback only: the key would otherwise cross a network unencrypted.
 *
 * The rule is applied to the resolved address when a call connects (transport.ts), not only to the
 * name when a target is saved: a name may resolve elsewhere by the time of the call (DNS rebinding).
 */
import { BlockList, isIP } from "node:net";

/**
 * `public`: public addresses and loopback; `private`: private network addresses too (never
 * link-local or metadata); `any`: no rule (the built-in sandbox, which Ferry's own start names).
 */
export type AddressPolicy = "public" | "private" | "any";

const subnets = (list: [string, number, "ipv4" | "ipv6"][]) => {
  // node's BlockList also matches IPv4-mapped IPv6 forms (::ffff:10.0.0.1) against an IPv4 subnet.
  const block = new BlockList();
  for (const [network, prefix, family] of list) block.addSubnet(network, prefix, family);
  return block;
};

const LOOPBACK = subnets([
  ["127.0.0.0", 8, "ipv4"],
  ["::1", 128, "ipv6"],
]);

/** Link-local (169.254.169.254 is the metadata service of most clouds) and the metadata addresses outside it. */
const NEVER = subnets([
  ["169.254.0.0", 16, "ipv4"],
  ["fe80::", 10, "ipv6"],
  // Alibaba Cloud's metadata service, and AWS's over IPv6 (inside fc00::/7, refused even where private targets are allowed).
  ["100.100.100.200", 32, "ipv4"],
  ["fd00:ec2::254", 128, "ipv6"],
  // "This network": connecting to 0.0.0.0 reaches the machine itself under another name.
  ["0.0.0.0", 8, "ipv4"],
  ["::", 128, "ipv6"],
]);

/** RFC 1918, carrier-grade NAT (RFC 6598) and IPv6 unique local addresses. */
const PRIVATE = subnets([
  ["10.0.0.0", 8, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["100.64.0.0", 10, "ipv4"],
  ["fc00::", 7, "ipv6"],
]);

const familyOf = (address: string): "ipv4" | "ipv6" | null => {
  const family = isIP(address);
  return family === 4 ? "ipv4" : family === 6 ? "ipv6" : null;
};

/** A URL hostname as an address (IPv6 without its brackets), or null when it is a name. */
export function literalAddress(hostname: string): string | null {
  const host = hostname.replace(/^\[(.*)\]$/, "$1");
  return familyOf(host) ? host : null;
}

/** Whether an IP address is this machine's loopback. */
export function isLoopbackAddress(address: string): boolean {
  const family = familyOf(address);
  return family !== null && LOOPBACK.check(address, family);
}

/** Why the client may not connect to `address` for a `protocol` URL under `policy`, in words, or null. */
export function addressRefusal(params: { address: string; protocol: string; policy: AddressPolicy }): string | null {
  const { address, protocol, policy } = params;
  if (policy === "any") return null;
  const family = familyOf(address);
  if (!family) return `${address} is not an IP address.`;
  if (NEVER.check(address, family)) return `${address} is a link-local, metadata or unspecified address, which no service target may use.`;
  const loopback = LOOPBACK.check(address, family);
  if (protocol === "http:" && !loopback) return `${address} is not this machine's loopback, and plain http is only for loopback: the API key would travel unencrypted.`;
  if (PRIVATE.check(address, family) && policy !== "private") {
    return `${address} is a private network address: a service target reaches the service on a public address unless the operator allows private targets (FERRY_PRIVATE_TARGETS=allow).`;
  }
  return null;
}
