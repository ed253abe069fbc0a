/**
 * Security headers of Ferry's responses. Pages get a Content-Security-Policy with a fresh nonce per
 * request (proxy.ts; Next puts the nonce on its own scripts), every response the static headers
 * (next.config.js), and HSTS is sent only over https.
 */
import staticHeaders from "./static-headers.cjs";

/** The request header proxy.ts sets to the page's path and query, so a page can send a signed-out visitor back to it. */
export const PATH_HEADER = "x-ferry-path";

/** Every response's static headers, and API answers' policy (CommonJS, which next.config.js requires). */
export const { STATIC_SECURITY_HEADERS, API_CONTENT_SECURITY_POLICY } = staticHeaders;

/** HSTS for responses served over https: two years, subdomains included. */
export const HSTS = "max-age=63072000; includeSubDomains";

/**
 * The pages' policy. Scripts run only with this request's nonce (and what they load:
 * 'strict-dynamic'); styles come from Ferry's own files or carry the nonce, while style
 * attributes stay allowed (React renders some, e.g. a progress bar's width); nothing may frame the
 * console. Next's dev server needs eval and inline styles.
 */
export function contentSecurityPolicy(opts: { nonce: string; dev: boolean; https: boolean }): string {
  const { nonce, dev, https } = opts;
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    dev ? "style-src 'self' 'unsafe-inline'" : `style-src 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}
