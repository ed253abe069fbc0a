/**
 * Which navigation item a page belongs to: the longest item path that is a segment prefix of its
 * path. An item with a query (`/engagements?waiting=support`) is a view of its path: it belongs
 * only on that path with those parameters, and then wins over the plain path.
 */
export function activeHref(hrefs: readonly string[], pathname: string, search: URLSearchParams = new URLSearchParams()): string | null {
  let best: string | null = null;
  for (const href of hrefs) {
    const [path = href, query] = href.split("?", 2);
    const matches = query
      ? pathname === path && [...new URLSearchParams(query)].every(([key, value]) => search.get(key) === value)
      : pathname === path || pathname.startsWith(path.endsWith("/") ? path : `${path}/`);
    if (matches && (!best || href.length > best.length)) best = href;
  }
  return best;
}
