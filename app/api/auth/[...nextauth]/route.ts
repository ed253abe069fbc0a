import NextAuth from "next-auth";
import { NextRequest } from "next/server";
import { appConfig } from "@/server/config";
import { authOptions } from "@/server/auth/config";
import { AUTH_BODY_LIMIT, crossOriginRefusal, readBodyWithin, tooLargeMessage } from "@/server/http/request-guards";

type RouteContext = { params: Promise<{ nextauth: string[] }> };

// Options are built per call so `next build` never needs the runtime environment.
const handler = (req: NextRequest, ctx: RouteContext) => NextAuth(authOptions())(req, ctx);

/**
 * Sign-in and sign-out posts: only from Ferry's own pages (next-auth's CSRF token aside), and no
 * bigger than a sign-in form can be, read before next-auth parses anything.
 */
async function guardedPost(req: NextRequest, ctx: RouteContext) {
  const crossOrigin = crossOriginRefusal(req, new URL(appConfig().appUrl).origin);
  if (crossOrigin) return Response.json({ error: crossOrigin }, { status: 403 });
  const read = await readBodyWithin(req, AUTH_BODY_LIMIT);
  if (read.tooLarge) return Response.json({ error: tooLargeMessage(AUTH_BODY_LIMIT) }, { status: 413 });
  return handler(new NextRequest(req.url, { method: req.method, headers: req.headers, body: read.body }), ctx);
}

export { handler as GET, guardedPost as POST };
