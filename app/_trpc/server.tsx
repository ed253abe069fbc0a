import "server-only";
/**
 * Server-side tRPC for React Server Components: a per-request QueryClient, an options proxy for
 * prefetching (the same query keys the browser uses), and HydrateClient to hand the cache over.
 */
import { dehydrate, HydrationBoundary } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { headers } from "next/headers";
import { cache, type ReactNode } from "react";
import { createRequestContext } from "@/server/api/context";
import { appRouter, createCaller } from "@/server/api/root";
import type { Actor } from "@/core/accounts/actor";
import { makeQueryClient } from "./query-client";

/** One context per request, shared by the proxy, the caller and the viewer lookup. */
const requestContext = cache(async () => createRequestContext(await headers()));

export const getQueryClient = cache(makeQueryClient);

export const trpc = createTRPCOptionsProxy({
  ctx: requestContext,
  router: appRouter,
  queryClient: getQueryClient,
});

/** A direct server caller for the current request. */
export const getCaller = cache(async () => createCaller(await requestContext()));

export type Viewer = Actor;

/** The signed-in, active user of this request, or null. */
export const getViewer = cache(async (): Promise<Viewer | null> => {
  const ctx = await requestContext();
  if (!ctx.actor) return null;
  const { id, name, email, role, organizationId } = ctx.actor;
  return { id, name, email, role, organizationId };
});

export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}
