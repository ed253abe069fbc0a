/**
 * Which addresses a service target may reach (server/service-client/addresses.ts has the rule):
 * the built-in sandbox any (Ferry's own start names it, SANDBOX_URL); every other target public
 * addresses and this machine's loopback, and private network addresses too when the operator sets
 * FERRY_PRIVATE_TARGETS=allow (a service reached inside a private network). Checked when a target
 * is saved (here, on the name's addresses now) and again by the client on every connection.
 */
import dns from "node:dns";
import type { AddressPolicy } from "@/server/service-client/addresses";
import { addressRefusal, literalAddress } from "@/server/service-client/addresses";
import type { Resolve } from "@/server/service-client/transport";

/** Whether the operator allows targets on private network addresses (FERRY_PRIVATE_TARGETS=allow; server/env.ts validates it). */
export function privateTargetsAllowed(environment: Record<string, string | undefined> = process.env): boolean {
  return environment.FERRY_PRIVATE_TARGETS?.trim().toLowerCase() === "allow";
}

/** The address rule a target's client connects under. */
export function targetAddressPolicy(target: { builtIn: boolean }, allowPrivate = privateTargetsAllowed()): AddressPolicy {
  if (target.builtIn) return "any";
  return allowPrivate ? "private" : "public";
}

/** Why a base URL written with an address may not be used, in words, or null (names are checked by `resolvedAddressRefusal`). */
export function literalAddressRefusal(url: URL, policy: AddressPolicy): string | null {
  const address = literalAddress(url.hostname);
  return address ? addressRefusal({ address, protocol: url.protocol, policy }) : null;
}

/**
 * Why the base URL's host name resolves where no target may go, in words, or null. A name that
 * does not resolve now is let through: the client checks again, on the address it connects to.
 */
export async function resolvedAddressRefusal(url: URL, policy: AddressPolicy, resolve?: Resolve): Promise<string | null> {
  if (policy === "any" || literalAddress(url.hostname)) return literalAddressRefusal(url, policy);
  let addresses: dns.LookupAddress[];
  try {
    addresses = await (resolve ?? ((host: string) => dns.promises.lookup(host, { all: true, verbatim: true })))(url.hostname);
  } catch {
    return null;
  }
  for (const { address } of addresses) {
    const refusal = addressRefusal({ address, protocol: url.protocol, policy });
    if (refusal) return `${url.hostname} resolves to ${refusal}`;
  }
  return null;
}
