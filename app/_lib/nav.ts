/** Which navigation item a path belongs to: the longest item path that is a segment prefix of it. */
export function activeHref(hrefs: readonly string[], pathname: string): string | null {
  let best: string | null = null;
  for (const href of hrefs) {
    const matches = pathname === href || pathname.startsWith(href.endsWith("/") ? href : `${href}/`);
    if (matches && (!best || href.length > best.length)) best = href;
  }
  return best;
}
