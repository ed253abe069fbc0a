/**
 * The sandbox's Link pages as a browser sees them, for tests: GET a page and POST its forms
 * (urlencoded) without following redirects, and read a page's POST forms (action, hidden fields,
 * markup) with their HTML entities decoded.
 */
export type LinkPage = { status: number; html: string; headers: Headers };

export type LinkForm = { action: string; hidden: Record<string, string>; html: string };

/** A browser on the sandbox at `origin()` (a function: the sandbox may start after this is made). */
export function linkBrowser(origin: () => string) {
  const page = async (response: Response): Promise<LinkPage> => ({ status: response.status, html: await response.text(), headers: response.headers });
  return {
    /** A GET of a Link page (absolute URL, or a path on the sandbox's origin). */
    open: async (url: string): Promise<LinkPage> => page(await fetch(url.startsWith("http") ? url : `${origin()}${url}`, { redirect: "manual" })),
    /** Submits a form as a browser would. */
    submit: async (action: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<LinkPage> =>
      page(
        await fetch(`${origin()}${action}`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
          body: new URLSearchParams(fields).toString(),
          redirect: "manual",
        }),
      ),
  };
}

export const decodeHtml = (s: string) => s.replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#39;/g, "'");

/** The page's POST forms, in page order. */
export function postForms(html: string): LinkForm[] {
  return [...html.matchAll(/<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)].map((m) => ({
    action: decodeHtml(m[1] ?? ""),
    hidden: Object.fromEntries([...(m[2] ?? "").matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((f) => [f[1] ?? "", decodeHtml(f[2] ?? "")])),
    html: m[2] ?? "",
  }));
}

/** The page's only (first) POST form; throws when it has none. */
export function onlyPostForm(html: string): LinkForm {
  const [form] = postForms(html);
  if (!form) throw new Error(`The page has no form: ${html}`);
  return form;
}
