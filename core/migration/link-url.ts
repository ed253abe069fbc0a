/**
 * A service Link URL as Ferry keeps it: without its query and fragment. Where the client has
 * one-time Link URLs, every answer carries a new token in the query, which works once and for a day;
 * the link Ferry hands out is its own (server/migration/watch/reconnect-link.ts) and asks the
 * service for a fresh one each time it is opened.
 */
export function linkUrlWithoutToken(url: string): string {
  const at = url.search(/[?#]/);
  return at === -1 ? url : url.slice(0, at);
}
