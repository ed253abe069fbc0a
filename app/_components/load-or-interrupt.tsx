import { TRPCError } from "@trpc/server";
import { forbidden, notFound } from "next/navigation";
import { redirectToSignIn } from "@/app/_lib/sign-in-redirect";

/**
 * Runs a server-side tRPC read for a page and turns its refusals into what the visitor should get,
 * with the matching HTTP status: an unknown or malformed id (or, for a customer, another
 * organisation's) → the not-found page (404), another role's → the forbidden page (403), no
 * session → sign-in, back here afterwards.
 */
export async function loadOrInterrupt<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    switch (error.code) {
      case "NOT_FOUND":
      case "BAD_REQUEST":
        notFound();
      case "FORBIDDEN":
        forbidden();
      case "UNAUTHORIZED":
        return redirectToSignIn();
      default:
        throw error;
    }
  }
}
