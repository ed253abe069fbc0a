/**
 * Runs before every page: a fresh CSP nonce (Next reads it from the request's policy and puts it on
 * its scripts), the policy and HSTS on the response, and the page's path for a signed-out visitor's
 * way back after sign-in. API routes and static files get their headers from next.config.js.
 */
import { NextResponse, type NextRequest } from "next/server";
import { contentSecurityPolicy, HSTS, PATH_HEADER } from "@/server/http/security-headers";

export function proxy(request: NextRequest) {
  const nonce = btoa(crypto.randomUUID());
  const https = request.nextUrl.protocol === "https:";
  const policy = contentSecurityPolicy({ nonce, dev: process.env.NODE_ENV === "development", https });

  // The page's own address, without the query parameter Next adds to its client-side navigations.
  const search = new URLSearchParams(request.nextUrl.searchParams);
  search.delete("_rsc");
  const query = search.toString();

  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("content-security-policy", policy);
  requestHeaders.set(PATH_HEADER, `${request.nextUrl.pathname}${query ? `?${query}` : ""}`);

  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", policy);
  if (https) response.headers.set("Strict-Transport-Security", HSTS);
  return response;
}

export const config = {
  matcher: [
    {
      source: "/((?!api/|_next/static|_next/image|favicon.ico).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
