/**
 * Where to send someone after they sign in: the page they asked for, only if it is a path on this
 * site. Anything else is dropped, so a crafted link cannot send people elsewhere (an open redirect).
 */

const BASE = "http://ferry.invalid";

/**
 * The path (with query and fragment) `next` names on this site, or null. Refused: anything not
 * starting with one "/", backslashes and control characters (browsers drop tabs and newlines, so
 * "/\t/evil.test" would become "//evil.test"), anything that resolves to another origin or to a
 * protocol-relative path, and the sign-in page and API routes themselves.
 */
export function safeNextPath(next: string | null | undefined): string | null {
  if (!next || next.length > 2000 || !next.startsWith("/")) return null;
  if (/[\\\u0000-\u001f\u007f]/.test(next)) return null;
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return null;
  }
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (url.origin !== BASE || path.startsWith("//")) return null;
  if (url.pathname === "/login" || url.pathname.startsWith("/login/") || url.pathname.startsWith("/api/")) return null;
  return path;
}

/** The sign-in page, remembering where to go afterwards when that is a safe path other than home. */
export function signInHref(next: string | null | undefined): string {
  const path = safeNextPath(next);
  return path && path !== "/" ? `/login?next=${encodeURIComponent(path)}` : "/login";
}
