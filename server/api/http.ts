/**
 * The tRPC route's HTTP handling: the request guards (own origin for mutations, a body cap) and a
 * batch cap, then tRPC; every answer is marked `Cache-Control: no-store`. Refusals go through tRPC's own error path (a context that fails), so the
 * browser's client gets them in the shape it reads, for every call of a batch.
 */
import { TRPCError } from "@trpc/server";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { crossOriginRefusal, readBodyWithin, tooLargeMessage, TRPC_BODY_LIMIT, TRPC_MAX_BATCH } from "@/server/http/request-guards";
import { appRouter } from "./root";
import type { Context } from "./trpc";

/** Answers one request to /api/trpc. */
export async function handleTrpcRequest(req: Request, opts: { appOrigin: string; createContext: () => Promise<Context> }): Promise<Response> {
  const crossOrigin = crossOriginRefusal(req, opts.appOrigin);
  const read = crossOrigin ? null : await readBodyWithin(req, TRPC_BODY_LIMIT);
  const refusal = crossOrigin
    ? new TRPCError({ code: "FORBIDDEN", message: crossOrigin })
    : read?.tooLarge
      ? new TRPCError({ code: "PAYLOAD_TOO_LARGE", message: tooLargeMessage(TRPC_BODY_LIMIT) })
      : null;
  const body = read && !read.tooLarge ? read.body : null;
  // tRPC gets the body as read (never more than the cap); a refused request gets none.
  const forwarded = new Request(req.url, { method: req.method, headers: req.headers, body: refusal ? null : body, signal: req.signal });
  const response = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req: forwarded,
    router: appRouter,
    maxBatchSize: TRPC_MAX_BATCH,
    createContext: () => {
      if (refusal) throw refusal;
      return opts.createContext();
    },
  });
  // Answers carry people's names, emails and engagement details: no browser or proxy may keep them
  // (a shared computer's back button or disk cache), as no page is kept.
  response.headers.set("Cache-Control", "no-store");
  return response;
}
