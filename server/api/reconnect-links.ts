/**
 * The web process's opener of reconnect links (server/migration/watch/open-reconnect-link.ts), for
 * the public page an end customer's link opens: one per process, so each engagement's service
 * session is kept a few minutes between opens.
 */
import { getDatabase } from "@/db/database";
import { appConfig } from "@/server/config";
import { createReconnectLinkOpener, type ReconnectLinkAnswer } from "@/server/migration/watch/open-reconnect-link";

export type { ReconnectLinkAnswer };

let opener: ReturnType<typeof createReconnectLinkOpener> | undefined;

/** Where a company's reconnect link leads now: a fresh Link URL, or why not. */
export function openReconnectLink(token: string): Promise<ReconnectLinkAnswer> {
  opener ??= createReconnectLinkOpener({ database: getDatabase(), ring: appConfig().keyRing, log: (line) => console.error(line) });
  return opener.open(token);
}
