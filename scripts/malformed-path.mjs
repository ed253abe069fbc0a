// A request whose path holds a percent-escape that does not decode (`%ff`, `%zz`, a lone `%`) is
// answered 400 here, before Next: Next's router and pages decode the path and would answer such a
// request with a 500. Plain ESM for Node 20, used by scripts/web-server.mjs.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { STATIC_SECURITY_HEADERS, API_CONTENT_SECURITY_POLICY } = require("../server/http/static-headers.cjs");

/** Whether the request target's path (before any `?`) holds a percent-escape that does not decode as UTF-8. */
export function hasMalformedEscape(url) {
  const path = (url ?? "/").split("?", 1)[0] ?? "/";
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

/** Answers 400 to a request with a malformed escape in its path (true), or leaves it for the app (false). */
export function refuseMalformedPath(req, res) {
  if (!hasMalformedEscape(req.url)) return false;
  const headers = {
    "Content-Type": "text/plain; charset=utf-8",
    "Cache-Control": "no-store",
    "Content-Security-Policy": API_CONTENT_SECURITY_POLICY,
    ...Object.fromEntries(STATIC_SECURITY_HEADERS.map(({ key, value }) => [key, value])),
  };
  res.writeHead(400, headers);
  res.end("400 · Bad request: the address holds a malformed percent-escape.\n");
  return true;
}
