/**
 * A small developer console per simulated platform, where the owner of an OAuth app registered
 * with the platform manages the app's redirect URIs (managed token migrations, step 3: the customer
 * adds the service's callback URL to its own app). Public pages like the Link pages: no API key,
 * the app's client id in the address is the secret, as the Link pages treat the company id.
 *
 *   GET  /developer/{platformKey}/apps/{appClientId}                        the app's page
 *   POST /developer/{platformKey}/apps/{appClientId}/redirect-uris          uri: adds it (303 ?notice=added)
 *   POST /developer/{platformKey}/apps/{appClientId}/redirect-uris/remove   uri: removes it (303 ?notice=removed)
 *
 * An add is checked as domain/redirect-uris.ts says; a refused one answers the page again with 400
 * and the problem at the field, changing nothing. Forms carry a nonce as the Link pages' do
 * (link-nonce.ts: made for this app, used once, two hours) and are refused from another site.
 * Apps are made by the oauth-apps control; authorize checks them (simulators/redirect-check.ts).
 */
import type { IncomingMessage } from "node:http";
import { isManagedPlatformKey, type PlatformKey } from "../../platforms";
import type { SandboxApp } from "../context";
import { redirectUriProblem } from "../domain/redirect-uris";
import { ApiError } from "../http/errors";
import { readBody } from "../http/io";
import { htmlPage, routeParam, type PageContext } from "../http/pages";
import { createRouter, MalformedPathError, type Route } from "../http/router";
import { checkLinkNonce, LINK_NONCE_LIFETIME_MS, makeLinkNonce } from "../link/link-nonce";
import { crossSiteConnect, type LinkResponse } from "../link/link-routes";
import { consolePath } from "../simulators/oauth-apps";
import { platformOf } from "../simulators/profiles";
import type { OAuthAppRow } from "../store/store";
import { CONSOLE_NOTICE_KEYS, CONSOLE_NOTICES, consoleMessagePage, oauthAppConsolePage, type ConsoleNotice } from "./developer-pages";

type ConsoleContext = PageContext;

type ConsoleRoute = Route<ConsoleContext, Promise<LinkResponse> | LinkResponse>;


const param = (ctx: ConsoleContext, name: string): string => routeParam(ctx, name, "Developer console route");

type Found = { platformKey: PlatformKey; oauthApp: OAuthAppRow };

/** The app of the address, or the 404 page. */
function lookupApp(ctx: ConsoleContext): { ok: true; found: Found } | { ok: false; response: LinkResponse } {
  const key = param(ctx, "platformKey");
  const appClientId = param(ctx, "appClientId");
  const platformKey = isManagedPlatformKey(key) ? key : null;
  const oauthApp = platformKey ? ctx.app.store.oauthApps.findByAppClientId({ platformKey, appClientId }) : undefined;
  if (platformKey && oauthApp) return { ok: true, found: { platformKey, oauthApp } };
  return {
    ok: false,
    response: htmlPage(
      404,
      consoleMessagePage({
        platformName: platformKey ? platformOf(platformKey).name : null,
        heading: "No app at this address",
        paragraphs: [
          `There is no OAuth app with the client ID ${appClientId} here.`,
          "Check the address: it may be incomplete, or the app may have been deleted.",
        ],
      }),
    ),
  };
}

/** What the nonces of an app's forms are made for: this app, not a Link page or another app. */
function nonceSubject(found: Found): string {
  return `developer:${found.platformKey}:${found.oauthApp.appClientId}`;
}

function appPathOf(ctx: ConsoleContext, found: Found): string {
  return consolePath(ctx.app.basePath, found.platformKey, found.oauthApp.appClientId);
}

function noticeOf(query: URLSearchParams): ConsoleNotice | null {
  const value = query.get("notice");
  return CONSOLE_NOTICE_KEYS.find((k) => k === value) ?? null;
}

function renderApp(ctx: ConsoleContext, found: Found, extra: { status?: number; refused?: { value: string; problem: string } } = {}): LinkResponse {
  return htmlPage(
    extra.status ?? 200,
    oauthAppConsolePage({
      platformName: platformOf(found.platformKey).name,
      app: found.oauthApp,
      appPath: appPathOf(ctx, found),
      nonce: makeLinkNonce({ secret: ctx.app.linkSecret, companyId: nonceSubject(found) }),
      notice: extra.status === undefined ? noticeOf(ctx.query) : null,
      refused: extra.refused ?? null,
    }),
  );
}

function expired(ctx: ConsoleContext, found: Found): LinkResponse {
  return htmlPage(
    403,
    consoleMessagePage({
      platformName: platformOf(found.platformKey).name,
      heading: "This page has expired",
      paragraphs: [
        "The form was sent from a page that is too old, was already used, or did not come from this site, so nothing was changed.",
        "Open the app's page again and send the form there.",
      ],
      back: { href: appPathOf(ctx, found), text: `Open ${found.oauthApp.name} again` },
    }),
  );
}

/**
 * Reads a console form and checks it as the Link pages check a Connect: refused (changing nothing)
 * when it came from another site or its page's nonce is missing, stale, another page's or used.
 */
async function consoleForm(ctx: ConsoleContext, found: Found): Promise<{ ok: true; form: URLSearchParams } | { ok: false; response: LinkResponse }> {
  if (crossSiteConnect(ctx.req, ctx.app.publicUrl)) return { ok: false, response: expired(ctx, found) };
  const form = new URLSearchParams((await readBody(ctx.req, "PublicApi")).toString("utf8"));
  const nonce = form.get("nonce");
  const realNow = Date.now();
  if (!nonce || !checkLinkNonce({ secret: ctx.app.linkSecret, companyId: nonceSubject(found), nonce, now: realNow })) {
    return { ok: false, response: expired(ctx, found) };
  }
  const { linkNonces } = ctx.app.store;
  linkNonces.prune(realNow - LINK_NONCE_LIFETIME_MS - 60_000);
  if (!linkNonces.use(nonce, realNow)) return { ok: false, response: expired(ctx, found) };
  return { ok: true, form };
}

/** Back to the app's page with a notice (a 303, so a reload does not send the form again). */
function backWith(ctx: ConsoleContext, found: Found, notice: ConsoleNotice): LinkResponse {
  const location = `${appPathOf(ctx, found)}?notice=${notice}`;
  return htmlPage(303, consoleMessagePage({ platformName: platformOf(found.platformKey).name, heading: "Saved", paragraphs: [CONSOLE_NOTICES[notice]], back: { href: location, text: "Continue" } }), {
    Location: location,
  });
}

/** Adds the form's redirect URI, or answers the page with the problem at the field. */
async function addRedirectUri(ctx: ConsoleContext, found: Found): Promise<LinkResponse> {
  const checked = await consoleForm(ctx, found);
  if (!checked.ok) return checked.response;
  // Surrounding spaces are a slip of copy and paste; anything else is kept exactly, as it will be compared.
  const uri = (checked.form.get("uri") ?? "").trim();
  const { store } = ctx.app;
  const outcome = store.transaction(() => {
    // Read again inside the transaction: a concurrent add or a control may have changed the app.
    const current = store.oauthApps.get({ clientId: found.oauthApp.clientId, platformKey: found.platformKey });
    if (!current || current.appClientId !== found.oauthApp.appClientId) return { gone: true as const };
    const problem = redirectUriProblem(uri, current.redirectUris);
    if (problem) return { gone: false as const, problem, current };
    store.oauthApps.setRedirectUris({ clientId: current.clientId, platformKey: current.platformKey, redirectUris: [...current.redirectUris, uri], updatedAt: ctx.now });
    return { gone: false as const, problem: null, current };
  });
  if (outcome.gone) return lookupAppResponse(ctx);
  if (outcome.problem) {
    return renderApp(ctx, { ...found, oauthApp: outcome.current }, { status: 400, refused: { value: uri.slice(0, 4096), problem: outcome.problem } });
  }
  return backWith(ctx, found, "added");
}

/** The 404 of an app deleted while its page was open. */
function lookupAppResponse(ctx: ConsoleContext): LinkResponse {
  const looked = lookupApp(ctx);
  return looked.ok ? renderApp(ctx, looked.found) : looked.response;
}

/** Removes the form's redirect URI (exactly as listed); not listed: nothing changes. */
async function removeRedirectUri(ctx: ConsoleContext, found: Found): Promise<LinkResponse> {
  const checked = await consoleForm(ctx, found);
  if (!checked.ok) return checked.response;
  const uri = checked.form.get("uri") ?? "";
  const { store } = ctx.app;
  const removed = store.transaction(() => {
    const current = store.oauthApps.get({ clientId: found.oauthApp.clientId, platformKey: found.platformKey });
    if (!current || !current.redirectUris.includes(uri)) return false;
    store.oauthApps.setRedirectUris({ clientId: current.clientId, platformKey: current.platformKey, redirectUris: current.redirectUris.filter((u) => u !== uri), updatedAt: ctx.now });
    return true;
  });
  return backWith(ctx, found, removed ? "removed" : "not-registered");
}

/** Runs `fn` on the address's app, or answers its 404. */
function withApp(fn: (ctx: ConsoleContext, found: Found) => Promise<LinkResponse> | LinkResponse) {
  return (ctx: ConsoleContext): Promise<LinkResponse> | LinkResponse => {
    const looked = lookupApp(ctx);
    return looked.ok ? fn(ctx, looked.found) : looked.response;
  };
}

const routes: readonly ConsoleRoute[] = [
  { method: "GET", pattern: "/developer/:platformKey/apps/:appClientId", handler: withApp((ctx, found) => renderApp(ctx, found)) },
  { method: "POST", pattern: "/developer/:platformKey/apps/:appClientId/redirect-uris", handler: withApp(addRedirectUri) },
  { method: "POST", pattern: "/developer/:platformKey/apps/:appClientId/redirect-uris/remove", handler: withApp(removeRedirectUri) },
];

const router = createRouter<ConsoleContext, Promise<LinkResponse> | LinkResponse>(routes);

/** Answers a request under /developer/ (path without the base path). */
export async function handleDeveloperRequest(params: { app: SandboxApp; req: IncomingMessage; path: string; query: URLSearchParams }): Promise<LinkResponse> {
  const method = params.req.method ?? "GET";
  let match;
  try {
    match = router.match(method === "HEAD" ? "GET" : method, params.path);
  } catch (error) {
    if (!(error instanceof MalformedPathError)) throw error;
    match = { kind: "not-found" as const };
  }
  if (match.kind === "method-not-allowed") {
    const page = consoleMessagePage({ platformName: null, heading: "Not allowed", paragraphs: [`This address answers ${match.allowed.join(" and ")} only.`] });
    return htmlPage(405, page, { Allow: match.allowed.join(", ") });
  }
  if (match.kind === "not-found") {
    const page = consoleMessagePage({
      platformName: null,
      heading: "Nothing here",
      paragraphs: ["This is not a page of the developer console. An app's page is at /developer/{platform key}/apps/{client ID}."],
    });
    return htmlPage(404, page);
  }
  try {
    return await match.handler({ app: params.app, now: params.app.clock.now(), params: match.params, query: params.query, req: params.req });
  } catch (error) {
    if (error instanceof ApiError && error.status === 413) {
      return htmlPage(413, consoleMessagePage({ platformName: null, heading: "Too much sent", paragraphs: ["The form sent more than the page asks for; nothing was changed."] }));
    }
    throw error;
  }
}
