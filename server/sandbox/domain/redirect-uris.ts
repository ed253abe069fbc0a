/**
 * The rules a simulated platform's developer console applies to a redirect URI registered on an
 * OAuth app, shared by the console's form and the oauth-apps control so both refuse the same
 * things in the same words. Real consoles differ in detail; these are the common ground: an
 * absolute https URL (http only for a local address), no fragment (OAuth 2.0 forbids one in a
 * redirection endpoint), a bounded length, no duplicates and a bounded list.
 */

export const MAX_REDIRECT_URIS = 10;
export const MAX_REDIRECT_URI_LENGTH = 2048;

/** Local addresses where plain http is allowed, as platforms allow it for development. */
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1"]);

/** Why `uri` cannot be the next redirect URI of an app with `registered`, or null when it can. */
export function redirectUriProblem(uri: string, registered: readonly string[]): string | null {
  if (uri === "") return "Enter a redirect URI.";
  if (uri.length > MAX_REDIRECT_URI_LENGTH) {
    return `A redirect URI can be at most ${MAX_REDIRECT_URI_LENGTH.toLocaleString("en-GB")} characters; this one has ${uri.length.toLocaleString("en-GB")}.`;
  }
  if (/\s/.test(uri)) return "A redirect URI cannot contain spaces or line breaks.";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "Enter an absolute URL starting with https://, for example https://example.com/oauth/callback.";
  }
  const local = url.protocol === "http:" && LOCAL_HOSTS.has(url.hostname);
  if (url.protocol !== "https:" && !local) {
    return "A redirect URI must start with https:// (http:// is allowed only for localhost and 127.0.0.1).";
  }
  if (uri.includes("#")) return "A redirect URI cannot contain a fragment (the part from #).";
  if (registered.includes(uri)) return "This redirect URI is already registered on the app.";
  if (registered.length >= MAX_REDIRECT_URIS) {
    return `An app can have at most ${MAX_REDIRECT_URIS} redirect URIs: remove one before adding another.`;
  }
  return null;
}
