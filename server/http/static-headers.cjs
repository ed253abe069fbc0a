// The security headers Next adds to responses by route (next.config.js), in CommonJS so the
// config can require them; server/http/security-headers.ts re-exports them for the rest of Ferry.

/** Headers for every response: no framing, no MIME sniffing, no referrer (invitation links carry tokens). */
const STATIC_SECURITY_HEADERS = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "no-referrer" },
];

/** The policy of responses that are not pages (API answers): nothing to run, nothing may frame them. */
const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

module.exports = { STATIC_SECURITY_HEADERS, API_CONTENT_SECURITY_POLICY };
