import { TRPCError } from "@trpc/server";
import { notFound, redirect } from "next/navigation";
import type { ReactNode } from "react";
import { Forbidden } from "./forbidden";

/**
 * Runs a server-side tRPC read for a page and turns its refusals into what the visitor should
 * see: an unknown or malformed id → the not-found page, no session → sign-in, another
 * organisation's or role's → the forbidden page (returned for the page to render).
 */
export async function loadOrInterrupt<T>(load: () => Promise<T>, options: { homeHref: string }): Promise<{ data: T } | { page: ReactNode }> {
  try {
    return { data: await load() };
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    switch (error.code) {
      case "NOT_FOUND":
      case "BAD_REQUEST":
        notFound();
      case "FORBIDDEN":
        return { page: <Forbidden message={error.message} homeHref={options.homeHref} /> };
      case "UNAUTHORIZED":
        redirect("/login");
      default:
        throw error;
    }
  }
}
