import NextAuth from "next-auth";
import { authOptions } from "@/server/auth/config";

type RouteContext = { params: Promise<{ nextauth: string[] }> };

// Options are built per call so `next build` never needs the runtime environment.
const handler = (req: Request, ctx: RouteContext) => NextAuth(authOptions())(req, ctx);

export { handler as GET, handler as POST };
