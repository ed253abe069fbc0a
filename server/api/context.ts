/** Builds the tRPC context of a web request: database, the signed-in actor, config. */
import { getServerSession } from "next-auth";
import { getDb } from "@/db/client";
import { loadActor } from "@/server/accounts/users";
import { authOptions, clientAddressFrom } from "@/server/auth/config";
import { env } from "@/server/env";
import { appKeyRing } from "@/server/security/keyring";
import type { AppConfig, Context } from "./trpc";

/** The app's fixed configuration, from the validated environment. */
export function appConfig(): AppConfig {
  const e = env();
  return {
    appUrl: e.NEXTAUTH_URL ?? "http://localhost:3000",
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    keyRing: appKeyRing(),
  };
}

/** The context of one request; the actor is re-read from the database every time. */
export async function createRequestContext(headers: Headers): Promise<Context> {
  const session = await getServerSession(authOptions());
  const db = getDb();
  return {
    db,
    actor: session?.user?.id ? loadActor(db, session.user.id) : null,
    clientAddress: clientAddressFrom(headers),
    config: appConfig(),
  };
}
