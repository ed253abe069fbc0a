/**
 * next-auth (v4): email + password credentials, JWT sessions. The token carries only the user id
 * (plus name and email); role, organisation and "still active" are read from the database once per
 * request by the tRPC context, so a deactivation or a role change applies at once.
 */
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getDb } from "@/db/client";
import { signIn } from "@/server/accounts/sign-in";
import { env } from "@/server/env";
import { AppError } from "@/server/errors";

declare module "next-auth" {
  interface Session {
    user: { id: string; name: string; email: string };
  }
}

/** The first address in X-Forwarded-For (set by Next's server and proxies), else X-Real-IP. */
export function clientAddressFrom(headers: Record<string, string | string[] | undefined> | Headers | undefined): string | null {
  if (!headers) return null;
  const get = (name: string) => {
    const v = headers instanceof Headers ? headers.get(name) : headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  return get("x-forwarded-for")?.split(",")[0]?.trim() || get("x-real-ip") || null;
}

let cached: NextAuthOptions | undefined;

/** The next-auth options (built on first use, so a build does not need the environment). */
export function authOptions(): NextAuthOptions {
  cached ??= {
    secret: env().NEXTAUTH_SECRET,
    session: { strategy: "jwt", maxAge: 12 * 60 * 60 },
    pages: { signIn: "/login" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, req) {
          try {
            const actor = await signIn(getDb(), {
              email: credentials?.email ?? "",
              password: credentials?.password ?? "",
              address: clientAddressFrom(req?.headers),
            });
            return { id: actor.id, name: actor.name, email: actor.email };
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
        if (user) token.sub = user.id;
        return token;
      },
      session({ session, token }) {
        // Only the id: the request context loads the person (role, organisation, active) once.
        if (token.sub) session.user = { id: token.sub, name: token.name ?? "", email: token.email ?? "" };
        return session;
      },
    },
  };
  return cached;
}
