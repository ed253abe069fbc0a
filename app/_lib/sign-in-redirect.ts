import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { PATH_HEADER } from "@/server/http/security-headers";
import { signInHref } from "./safe-next";

/** Sends a signed-out visitor to sign in, to come back to the page they asked for (proxy.ts names it). */
export async function redirectToSignIn(): Promise<never> {
  redirect(signInHref((await headers()).get(PATH_HEADER)));
}
