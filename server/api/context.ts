/** Builds the tRPC context of a web request: database, the signed-in actor, config. */
import { getToken } from "next-auth/jwt";
import { NextRequest } from "next/server";
import { getDatabase } from "@/db/database";
import { loadActor } from "@/server/accounts/users";
import { requestClientAddress } from "@/server/auth/config";
import { env } from "@/server/env";
import { appConfig } from "@/server/config";
import type { Context } from "./trpc";

/**
 * The context of one request. The session token is decoded here (signature and expiry checked by
 * next-auth) and the actor is read from the database once, refused when the token's session
 * version is no longer the person's (they signed out, were deactivated, changed their password).
 */
export async function createRequestContext(headers: Headers): Promise<Context> {
  // next-auth reads the (possibly chunked) session cookie from a request; only its headers matter.
  const token = await getToken({ req: new NextRequest("http://ferry.internal/", { headers }), secret: env().NEXTAUTH_SECRET });
  const database = getDatabase();
  return {
    database,
    actor: token?.sub ? await loadActor(database, { userId: token.sub, sessionVersion: token.sv }) : null,
    clientAddress: requestClientAddress(headers),
    config: appConfig(),
  };
}
