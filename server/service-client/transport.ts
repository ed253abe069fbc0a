/**
 * How the service client's requests reach a target, so that nothing a target answers can take the
 * key or the tokens elsewhere or exhaust Ferry:
 *
 * - **Only allowed addresses.** An undici dispatcher whose DNS lookup checks every address a name
 *   resolves to (addresses.ts) before the socket connects to it, so the address checked is the one
 *   connected to, whatever the name said when the target was saved (DNS rebinding). An address
 *   written in the URL is checked before the request, since no lookup happens for it.
 * - **No redirect** (the client asks fetch for `redirect: "manual"`): a 3xx is an answer, never a
 *   second request carrying the body's tokens to wherever `Location` points.
 * - **A cap on an answer**, counted on the bytes after decompression and read as a stream that
 *   stops at the cap, so neither a huge answer nor a small gzip that inflates to gigabytes is ever
 *   held in memory whole.
 */
import dns from "node:dns";
import type { LookupFunction } from "node:net";
import { Agent, type Dispatcher } from "undici";
import { addressRefusal, literalAddress, type AddressPolicy } from "./addresses";

/**
 * The most an answer may hold once decompressed: the largest answer the service documents is a
 * page of results, at most 5,000 of them (`pageSize`'s maximum), and a record of the largest kinds
 * (an invoice or an order with its lines) stays within about 4 KB of JSON: 5,000 × 4 KB = 20 MB.
 * Ferry itself asks for pages of 1 to 100.
 */
export const MAX_ANSWER_BYTES = 20 * 1024 * 1024;

/** Every address a name resolves to (the system's resolver by default; tests pass their own). */
export type Resolve = (hostname: string) => Promise<dns.LookupAddress[]>;

const systemResolve: Resolve = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** A connection refused because of the address it would reach (never retried: it would be refused again). */
export class AddressRefusedError extends Error {
  constructor(readonly host: string, readonly reason: string) {
    super(`Not sent to ${host}: ${reason}`);
    this.name = "AddressRefusedError";
  }
}

/** An answer larger than the cap (after decompression); reading stopped there. */
export class AnswerTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The answer is larger than ${Math.round(maxBytes / 1024 / 1024)} MB, the most Ferry reads of one answer: reading stopped there.`);
    this.name = "AnswerTooLargeError";
  }
}

/** A lookup for sockets: resolves, refuses if any address is not allowed, else hands the addresses on. */
function guardedLookup(params: { protocol: string; policy: AddressPolicy; resolve: Resolve }): LookupFunction {
  return (hostname, options, callback) => {
    params.resolve(hostname).then(
      (addresses) => {
        // Any refused address refuses the name: a name that mixes a public and a private address
        // would otherwise reach the private one whenever the public one fails to connect.
        for (const { address } of addresses) {
          const reason = addressRefusal({ address, protocol: params.protocol, policy: params.policy });
          if (reason) return callback(new AddressRefusedError(hostname, `it resolves to ${reason}`), "", 0);
        }
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        const first = wanted[0];
        if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0);
        if (options.all) return callback(null, wanted);
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}

const sharedDispatchers = new Map<string, Dispatcher>();

export type Guard = {
  /** Why a request to `url` is refused before anything is sent (an address in the URL), or null. */
  refusal(url: URL): AddressRefusedError | null;
  /** The dispatcher whose connections are checked, for `url`'s protocol (unchecked under the `any` policy). */
  dispatcher(url: URL): Dispatcher;
};

/**
 * The address guard of one client. Dispatchers on the system resolver are shared by every client
 * (one keep-alive pool per rule); one with its own resolver gets its own.
 */
export function createGuard(params: { policy: AddressPolicy; resolve?: Resolve; ca?: string }): Guard {
  const { policy } = params;
  const own = new Map<string, Dispatcher>();
  const pool = params.resolve || params.ca ? own : sharedDispatchers;
  const resolve = params.resolve ?? systemResolve;
  return {
    refusal: (url) => {
      const address = literalAddress(url.hostname);
      if (!address) return null;
      const reason = addressRefusal({ address, protocol: url.protocol, policy });
      return reason ? new AddressRefusedError(url.host, reason) : null;
    },
    dispatcher: (url) => {
      const key = `${policy}:${url.protocol}`;
      let dispatcher = pool.get(key);
      if (!dispatcher) {
        const lookup = policy === "any" ? undefined : guardedLookup({ protocol: url.protocol, policy, resolve });
        dispatcher = new Agent({ connect: { ...(lookup ? { lookup } : {}), ...(params.ca ? { ca: params.ca } : {}) } });
        pool.set(key, dispatcher);
      }
      return dispatcher;
    },
  };
}

/**
 * The answer's body as text, read chunk by chunk (fetch has already decompressed them) and
 * abandoned — the connection closed — as soon as it passes `maxBytes`.
 */
export async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  // A plain answer that says it is too large is not read at all (a compressed one says its compressed size).
  if (!response.headers.get("content-encoding") && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new AnswerTooLargeError(maxBytes);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  // Chunks are kept as bytes and decoded once at the end: a refused answer is never made a string.
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      chunks.length = 0;
      await reader.cancel().catch(() => {});
      throw new AnswerTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
