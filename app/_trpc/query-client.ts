/** One QueryClient factory shared by the browser provider and RSC prefetching. */
import { defaultShouldDehydrateQuery, QueryClient } from "@tanstack/react-query";
import superjson from "superjson";

const FINAL_CODES = new Set(["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "BAD_REQUEST", "CONFLICT", "PRECONDITION_FAILED", "TOO_MANY_REQUESTS"]);

/**
 * Errors a retry cannot fix. In the browser the code is on `error.data` (TRPCClientError); in a
 * server-side prefetch it is the TRPCError's own `code`.
 */
export function isFinal(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  const e = error as { code?: unknown; data?: { code?: unknown } | null };
  const code = e.data?.code ?? e.code;
  return typeof code === "string" && FINAL_CODES.has(code);
}

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Server-prefetched data is fresh on arrival; without a stale time the client refetches at once.
        staleTime: 30 * 1000,
        // A 403/404 will not change on a retry; only transient failures are worth retrying.
        retry: (failureCount, error) => !isFinal(error) && failureCount < 2,
      },
      dehydrate: {
        // Dates in tRPC outputs survive the trip from server to browser only through superjson.
        serializeData: superjson.serialize,
        shouldDehydrateQuery: (query) => defaultShouldDehydrateQuery(query) || query.state.status === "pending",
      },
      hydrate: { deserializeData: superjson.deserialize },
    },
  });
}
