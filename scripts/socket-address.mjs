// Records each request's TCP peer address in a header the app trusts, over anything the client
// sent under that name (see server/http/client-address.ts, which reads it). Plain ESM for Node 20.

/** Same name as SOCKET_ADDRESS_HEADER in server/http/client-address.ts. */
export const SOCKET_ADDRESS_HEADER = "x-ferry-socket-address";

/** Marks this process as served by Ferry's web server, so the app trusts the header. */
export function markServedByFerry() {
  globalThis[Symbol.for("ferry.web-server")] = true;
}

/** Overwrites the socket-address header of an incoming request with the socket's address. */
export function tagSocketAddress(req) {
  req.headers[SOCKET_ADDRESS_HEADER] = req.socket.remoteAddress ?? "";
}
