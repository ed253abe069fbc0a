/**
 * next-auth (v4): email + password credentials, JWT sessions. The token carries the user id (plus
 * name and email) and the user's session version at sign-in; role, organisation, "still active" and
 * "still the current session version" are read from the database once per request by the tRPC
 * context, so a deactivation, a role change or a sign-out applies at once.
 */
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getDatabase } from "@/db/database";
import { sessionIsCurrent, signOut } from "@/server/accounts/sessions";
import { signIn } from "@/server/accounts/sign-in";
import { env } from "@/server/env";
import { AppError } from "@/server/errors";
import { clientAddress, servedByFerry } from "@/server/http/client-address";
import { logSafe } from "@/server/security/log-safe";

declare module "next-auth" {
  interface Session {
    user: { id: string; name: string; email: string };
  }
  interface User {
    sessionVersion?: number;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    /** The user's session version when the token was issued (see server/accounts/sessions.ts). */
    sv?: number;
  }
}

/** How long a session lasts without being used (each use through next-auth's session route renews it). */
export const SESSION_MAX_AGE_S = 12 * 60 * 60;

/** Thrown by the session callback for a token whose sessions have ended; next-auth then clears the cookie. */
export class SessionEndedError extends Error {
  constructor() {
    super("This session has ended.");
    this.name = "SessionEndedError";
  }
}

/** The client address of a request's headers, by the TRUST_PROXY setting (server/http/client-address.ts). */
export function requestClientAddress(headers: Record<string, string | string[] | undefined> | Headers | undefined): string | null {
  return clientAddress({ headers, trustProxyHops: env().TRUST_PROXY, socketHeaderTrusted: servedByFerry() });
}

let cached: NextAuthOptions | undefined;

/** The next-auth options (built on first use, so a build does not need the environment). */
export function authOptions(): NextAuthOptions {
  cached ??= {
    secret: env().NEXTAUTH_SECRET,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_S },
    pages: { signIn: "/login" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, req) {
          try {
            const person = await signIn(getDatabase(), {
              email: credentials?.email ?? "",
              password: credentials?.password ?? "",
              address: requestClientAddress(req?.headers),
            });
            return { id: person.id, name: person.name, email: person.email, sessionVersion: person.sessionVersion };
          } catch (error) {
            // next-auth hands the message to the sign-in form; AppError messages are written for people.
            if (error instanceof AppError) throw new Error(error.message);
            throw error;
          }
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.sub = user.id;
          token.sv = user.sessionVersion;
        }
        return token;
      },
      async session({ session, token }) {
        // Only next-auth's own session route gets here (the request context reads the token
        // itself); an ended session answers "signed out" and its cookie is cleared.
        if (!token.sub || !(await sessionIsCurrent(getDatabase(), { userId: token.sub, sessionVersion: token.sv }))) throw new SessionEndedError();
        session.user = { id: token.sub, name: token.name ?? "", email: token.email ?? "" };
        return session;
      },
    },
    events: {
      async signOut({ token }) {
        // Signing out ends every session of the person, so a copy of the cookie stops working too.
        if (token?.sub && typeof token.sv === "number") await signOut(getDatabase(), { userId: token.sub, ifVersion: token.sv });
      },
    },
    logger: {
      error(code, metadata) {
        // An ended session is an expected answer, not an error worth a stack trace.
        if (code === "JWT_SESSION_ERROR" && metadata instanceof SessionEndedError) return;
        // A message may quote what was typed (an email): kept on one line.
        console.error(`[next-auth][error][${code}]`, metadata instanceof Error ? logSafe(metadata.message) : metadata);
      },
      warn(code) {
        console.warn(`[next-auth][warn][${code}]`);
      },
      debug() {},
    },
  };
  return cached;
}
