/** One QueryClient factory shared by the browser provider and RSC prefetching. */
import { defaultShouldDehydrateQuery, QueryClient } from "@tanstack/react-query";
import superjson from "superjson";

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Server-prefetched data is fresh on arrival; without a stale time the client refetches at once.
        staleTime: 30 * 1000,
        // A 403/404 will not change on a retry; only transient failures are worth retrying.
        retry: (failureCount, error) => {
          const code = (error as { data?: { code?: string } } | null)?.data?.code;
          if (code && ["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "BAD_REQUEST", "CONFLICT", "PRECONDITION_FAILED"].includes(code)) {
            return false;
          }
          return failureCount < 2;
        },
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
