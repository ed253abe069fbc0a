/**
 * Limits every state-changing request to Ferry's own pages and to a sensible size, before any
 * handler parses it: a cross-site browser request is refused (browsers send Sec-Fetch-Site and
 * Origin, which pages cannot forge; SameSite=Lax cookies and CORS alone let a foreign page's JSON
 * POST through), and a body is read only up to a cap, whatever Content-Length claims.
 */

/** Body cap of the tRPC route (file uploads get their own route and limit). */
export const TRPC_BODY_LIMIT = 1024 * 1024;
/** Most calls one tRPC batch may carry (the browser's batch link is set to the same). */
export const TRPC_MAX_BATCH = 20;
/** Body cap of next-auth's routes (a sign-in form is a few hundred bytes). */
export const AUTH_BODY_LIMIT = 16 * 1024;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Why a request must be refused as cross-origin, or null. Safe methods pass (they change nothing,
 * and a foreign page cannot read the answer). Otherwise: a browser's Sec-Fetch-Site of
 * same-origin (or none: typed by the user) passes; an Origin must be Ferry's own (NEXTAUTH_URL's);
 * a request with neither header is not from a browser page (curl, scripts, tests) and passes.
 */
export function crossOriginRefusal(req: { method: string; headers: Headers }, appOrigin: string): string | null {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return null;
  const site = req.headers.get("sec-fetch-site");
  if (site === "same-origin" || site === "none") return null;
  const origin = req.headers.get("origin");
  if (origin) return origin === appOrigin ? null : `Requests from ${origin} are not accepted; use Ferry at ${appOrigin}.`;
  if (site) return "Requests from other sites are not accepted.";
  return null;
}

/** A request body read up to `limit` bytes, or `tooLarge` (the rest is not read). */
export type LimitedBody = { tooLarge: false; body: Uint8Array<ArrayBuffer> | null } | { tooLarge: true };

/** Reads a request's body, stopping as soon as it passes `limit` bytes. */
export async function readBodyWithin(req: Request, limit: number): Promise<LimitedBody> {
  const declared = Number(req.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) return { tooLarge: true };
  if (!req.body) return { tooLarge: false, body: null };
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return { tooLarge: true };
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  return { tooLarge: false, body };
}

/** What a refused body says, in words. */
export function tooLargeMessage(limit: number): string {
  return limit >= 1024 * 1024 ? `The request is larger than ${limit / (1024 * 1024)} MB.` : `The request is larger than ${Math.round(limit / 1024)} KB.`;
}
