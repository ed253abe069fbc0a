/**
 * File downloads served by route handlers (not tRPC): the session checked the same way, domain
 * refusals turned into HTTP statuses, and the headers a download needs.
 */
import { AppError, type AppErrorCode } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import type { Database } from "@/db/database";
import { handoverReportCsv } from "@/server/migration/handover/report-csv";
import { reconnectLinksCsv } from "@/server/migration/watch/last-mile";
import { engagementInput } from "./routers/shared.types";
import type { Context } from "./trpc";

/** The HTTP status of each application error, for every route handler beside tRPC. */
export const HTTP_STATUS: Record<AppErrorCode, number> = {
  BAD_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 409,
  RATE_LIMITED: 429,
};

const text = (status: number, message: string) =>
  new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });

/** `attachment` with the file name, plain and RFC 5987-encoded. */
export function attachment(fileName: string): string {
  const plain = fileName.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `attachment; filename="${plain}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** A file to download: its name (plain and RFC 5987), its type, and never kept by a shared cache (customer data). */
export function downloadResponse(params: { fileName: string; contentType: string; body: BodyInit }): Response {
  return new Response(params.body, {
    headers: {
      "Content-Type": params.contentType,
      "Content-Disposition": attachment(params.fileName),
      "Cache-Control": "private, no-store",
    },
  });
}

/**
 * GET a CSV of an engagement: 401 without a session, 404 for an unknown id (and for a customer,
 * another organisation's), the domain's refusal as its status (409 when there is nothing yet).
 */
async function engagementCsvResponse(
  ctx: Pick<Context, "database" | "actor">,
  engagementId: string,
  build: (database: Database, actor: Actor, engagementId: string) => Promise<{ fileName: string; body: BodyInit }>,
): Promise<Response> {
  if (!ctx.actor) return text(401, "Sign in to continue.");
  const id = engagementInput.safeParse({ engagementId });
  if (!id.success) return text(404, "No engagement with that id.");
  try {
    const { fileName, body } = await build(ctx.database, ctx.actor, id.data.engagementId);
    return downloadResponse({ fileName, contentType: "text/csv; charset=utf-8", body });
  } catch (error) {
    if (error instanceof AppError) return text(HTTP_STATUS[error.code], error.message);
    throw error;
  }
}

/** The handover report as CSV (409 until it is produced). */
export function handoverCsvResponse(ctx: Pick<Context, "database" | "actor" | "config">, engagementId: string): Promise<Response> {
  const links = { appUrl: ctx.config.appUrl, ring: ctx.config.keyRing };
  return engagementCsvResponse(ctx, engagementId, (database, actor, id) => handoverReportCsv(database, links, actor, id));
}

/** The reconnect links of the companies waiting for their end customers, as CSV (409 when none waits). */
export function reconnectLinksCsvResponse(ctx: Pick<Context, "database" | "actor" | "config">, engagementId: string): Promise<Response> {
  const links = { appUrl: ctx.config.appUrl, ring: ctx.config.keyRing };
  return engagementCsvResponse(ctx, engagementId, (database, actor, id) => reconnectLinksCsv(database, links, actor, id));
}
