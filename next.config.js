// @ts-check
const { API_CONTENT_SECURITY_POLICY, STATIC_SECURITY_HEADERS } = require("./server/http/static-headers.cjs");

/** @type {import("next").NextConfig} */
const nextConfig = {
  // The database drivers stay out of the server bundle: better-sqlite3 is a native addon, and pg
  // loads its optional native binding at run time.
  serverExternalPackages: ["better-sqlite3", "pg"],
  poweredByHeader: false,
  typedRoutes: false,
  // Type errors fail `next build`, unless the same sources were just type-checked: `npm test` runs
  // `tsc --noEmit` first and builds with FERRY_BUILD_TYPECHECKED=1, so the check is not made twice.
  typescript: { ignoreBuildErrors: process.env.FERRY_BUILD_TYPECHECKED === "1" },
  // forbidden() answers HTTP 403 with the nearest forbidden.tsx, as notFound() answers 404.
  experimental: { authInterrupts: true },
  async headers() {
    return [
      // Every response; pages get their Content-Security-Policy (with a nonce) from proxy.ts.
      { source: "/:path*", headers: [...STATIC_SECURITY_HEADERS] },
      { source: "/api/:path*", headers: [{ key: "Content-Security-Policy", value: API_CONTENT_SECURITY_POLICY }] },
    ];
  },
};

module.exports = nextConfig;
