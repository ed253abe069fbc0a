/**
 * The Link flow behind a company's `redirect` and a connection's `linkUrl`: public pages (the end
 * customer has no API key; the company id in the address is the secret, as on the real service)
 * where Connect stands for the end customer's consent on the platform (simulators/consent.ts).
 *
 *   GET  /link/company/{companyId}                                       the company's page
 *   POST /link/company/{companyId}/connect                     platformKey: a new connection (company without one)
 *   POST /link/company/{companyId}/connections/{connectionId}/connect   connect that connection
 *   GET  /link/companies/{companyId}/connections/{connectionId}/start    one connection's page (linkUrl)
 *   GET  /link/logos/{platformKey}.svg                                   a platform's badge
 *
 * A Connect answers 303 to the company's page, which then shows the confirmation. On a connection
 * that already knows its account (a reconnection), the Connect form asks which account of the
 * platform the end customer is signed in to: field `account`, "known" (checked; also when the field
 * is left out) or "other" (a different company or shop: consent with a new tenant of the platform,
 * so the connection's connectionInfo changes, simulators/consent.ts). Any other value answers the
 * page again with 400 and the problem at the choice, connecting nothing. Link requests
 * are not API calls: no API key, no rate limit or quota, no injected faults.
 *
 * One-time Link URLs (the client's setting, link/link-token.ts): for a company whose client has it
 * on, both GET pages need the `?token=` the API put in the address, and carry it in their forms
 * (hidden field `token`) and links; a Connect checks it again and, when it links, spends it in the
 * same transaction. A missing or forged token answers 403, an expired or spent one 410, each a page
 * in words that connects nothing.
 *
 * The platform may refuse a Connect (simulators/redirect-check.ts): when the client uses its own
 * OAuth app at the platform and the service's callback URL is not registered on it, the Connect
 * answers 400 with the platform's words, the redirect URI and the app's client id; nothing links,
 * the connection keeps the refusal among its errors and a one-time link's token is not spent. The company page's confirmation (`?connected=` a Linked
 * connection of the company) opens without a token, showing only that the Connect worked.
 */
import type { IncomingMessage } from "node:http";
import { isManagedPlatformKey, MANAGED_PLATFORMS, type PlatformKey } from "../../platforms";
import type { SandboxApp } from "../context";
import { ApiError } from "../http/errors";
import { readBody } from "../http/io";
import { htmlPage, routeParam, type PageContext, type PageResponse } from "../http/pages";
import { createRouter, MalformedPathError, type Route } from "../http/router";
import { accountNoun, consentToConnection, consentToNewConnection, knownAccount, type ConsentResult } from "../simulators/consent";
import { platformOf } from "../simulators/profiles";
import { settleDue } from "../simulators/settle";
import type { CompanyRow, ConnectionRow, Store } from "../store/store";
import { checkLinkNonce, LINK_NONCE_LIFETIME_MS, makeLinkNonce } from "./link-nonce";
import {
  ACCOUNT_CHOICES,
  companyLinkPage,
  connectedLinkPage,
  messageLinkPage,
  platformBadgeSvg,
  redirectRefusedLinkPage,
  type AccountChoice,
  type LinkConnectionView,
} from "./link-pages";
import { checkLinkToken, LINK_TOKEN_LIFETIME_MS } from "./link-token";

export type LinkResponse = PageResponse;

type LinkContext = PageContext;

type LinkRoute = Route<LinkContext, Promise<LinkResponse> | LinkResponse>;


const param = (ctx: LinkContext, name: string): string => routeParam(ctx, name, "Link route");

/** The company's page; with the one-time Link URL's token when there is one (`null`: not needed). */
function companyHref(app: SandboxApp, companyId: string, token: string | null = null): string {
  const path = `${app.basePath}/link/company/${encodeURIComponent(companyId)}`;
  return token === null ? path : `${path}?token=${encodeURIComponent(token)}`;
}

function noCompany(companyId: string): LinkResponse {
  return htmlPage(
    404,
    messageLinkPage({
      heading: "No company at this address",
      paragraphs: [
        `There is no company with the ID ${companyId} here, so there is nothing to connect.`,
        "Check the link you were sent: it may be incomplete, or the company may have been deleted. Ask the business that sent it for a new link.",
      ],
    }),
  );
}

function noConnection(app: SandboxApp, company: CompanyRow, connectionId: string, token: string | null): LinkResponse {
  return htmlPage(
    404,
    messageLinkPage({
      heading: "No such connection",
      paragraphs: [`${company.name} has no connection with the ID ${connectionId}: it may have been deleted.`],
      back: { href: companyHref(app, company.id, token), text: `See ${company.name}'s connections` },
    }),
  );
}

/** Why a one-time Link URL's token does not open the pages. */
type LinkRefusal = "missing" | "forged" | "expired" | "used";

/**
 * Whether the request may use the company's Link pages: always when its client does not use
 * one-time Link URLs (`token` null); else only with a token of this sandbox for this company, less
 * than a day old on the sandbox clock and not yet spent.
 */
type LinkAccess = { ok: true; token: null } | { ok: true; token: string; issuedAt: number } | { ok: false; reason: LinkRefusal };

function linkAccess(ctx: LinkContext, company: CompanyRow, token: string | null): LinkAccess {
  const { app } = ctx;
  if (!app.store.clients.oneTimeLinkUrls(company.clientId)) return { ok: true, token: null };
  const check = checkLinkToken({ secret: app.linkSecret, companyId: company.id, token, now: ctx.now });
  if (!check.ok) return check;
  if (!token || app.store.linkTokens.isSpent(token)) return { ok: false, reason: "used" };
  return { ok: true, token, issuedAt: check.issuedAt };
}

const REFUSALS: Record<LinkRefusal, { status: number; heading: string; why: string }> = {
  missing: {
    status: 403,
    heading: "This link is not complete",
    why: "The address has no one-time code, so it cannot open this page: it may have been cut short, or it has expired or was already used.",
  },
  forged: {
    status: 403,
    heading: "This link is not valid",
    why: "The address's one-time code is not one the service made for this company: the link may have been cut short or changed, or it has expired or was already used.",
  },
  expired: {
    status: 410,
    heading: "This link has expired",
    why: "A link to this page works for one day after it was made, and this one is older.",
  },
  used: {
    status: 410,
    heading: "This link was already used",
    why: "A link to this page works for one connection only, and this one has already been used to connect.",
  },
};

/** The page a refused one-time Link URL answers: nothing is connected, ask for a new link. */
function refusedLink(reason: LinkRefusal): LinkResponse {
  const refusal = REFUSALS[reason];
  return htmlPage(
    refusal.status,
    messageLinkPage({
      heading: refusal.heading,
      paragraphs: [
        `${refusal.why} Nothing was connected.`,
        "Ask the business that sent you the link for a new one.",
      ],
    }),
  );
}

/**
 * The confirmation alone, for a company page opened without a usable token but with `?connected=`
 * naming a Linked connection of the company (where a Connect with a one-time link lands).
 */
function confirmationOnly(ctx: LinkContext, company: CompanyRow): LinkResponse | null {
  const connectedId = ctx.query.get("connected");
  const connection = connectedId ? ctx.app.store.connections.get(connectedId) : undefined;
  if (!connection || connection.companyId !== company.id || connection.status !== "Linked") return null;
  return htmlPage(200, connectedLinkPage({ company: { name: company.name }, platformName: platformOf(connection.platformKey).name }));
}

function lookupCompany(ctx: LinkContext): CompanyRow | undefined {
  // Finished syncs and drops that fell due show on the page as they would through the API.
  settleDue(ctx.app.store, ctx.now);
  return ctx.app.store.companies.get(param(ctx, "companyId"));
}

function connectionOf(ctx: LinkContext, company: CompanyRow): ConnectionRow | undefined {
  const connection = ctx.app.store.connections.get(param(ctx, "connectionId"));
  return connection && connection.companyId === company.id ? connection : undefined;
}

function views(store: Store, connections: readonly ConnectionRow[]): LinkConnectionView[] {
  return connections.map((c) => ({
    id: c.id,
    platformKey: c.platformKey,
    platformName: platformOf(c.platformKey).name,
    status: c.status,
    platformSaid: [...c.errors].reverse().find((e) => e.status === "Active")?.errorMessage ?? null,
    knownAccount: knownAccount(store, c)?.name ?? null,
    accountNoun: accountNoun(c.platformKey),
  }));
}

function renderCompany(
  ctx: LinkContext,
  company: CompanyRow,
  extra: {
    token: string | null;
    only?: string;
    status?: number;
    choiceProblem?: string;
    accountProblem?: { connectionId: string; message: string };
  },
): LinkResponse {
  const connections = ctx.app.store.connections.listByCompany(company.id);
  const connectedId = ctx.query.get("connected");
  const connected = connectedId ? connections.find((c) => c.id === connectedId && c.status === "Linked") : undefined;
  return htmlPage(
    extra.status ?? 200,
    companyLinkPage({
      basePath: ctx.app.basePath,
      company: { id: company.id, name: company.name },
      connections: views(ctx.app.store, connections),
      platforms: MANAGED_PLATFORMS.map((p) => ({ key: p.key, name: p.name })),
      nonce: makeLinkNonce({ secret: ctx.app.linkSecret, companyId: company.id }),
      token: extra.token,
      only: extra.only,
      connected: connected ? { platformName: platformOf(connected.platformKey).name } : null,
      choiceProblem: extra.choiceProblem ?? null,
      accountProblem: extra.accountProblem ?? null,
    }),
  );
}

/**
 * Whether a Connect comes from another site, as Ferry's own forms judge it: a browser's
 * Sec-Fetch-Site must say same-origin, or its Origin must be this sandbox's (the address the
 * browser asked, or SANDBOX_URL's); a client that sends neither (no browser) passes.
 */
export function crossSiteConnect(req: IncomingMessage, publicUrl: string): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site === "same-origin") return false;
  const origin = req.headers.origin;
  if (origin) {
    if (origin === "null") return true;
    try {
      const host = new URL(origin).host;
      return host !== req.headers.host && origin !== new URL(publicUrl).origin;
    } catch {
      return true;
    }
  }
  return site !== undefined;
}

/** Spends the page's nonce: false when it is missing, stale, not this company's or already used. */
function spendNonce(ctx: LinkContext, company: CompanyRow, nonce: string | null): boolean {
  const realNow = Date.now();
  if (!nonce || !checkLinkNonce({ secret: ctx.app.linkSecret, companyId: company.id, nonce, now: realNow })) return false;
  const { linkNonces } = ctx.app.store;
  linkNonces.prune(realNow - LINK_NONCE_LIFETIME_MS - 60_000);
  return linkNonces.use(nonce, realNow);
}

type ConnectForm = { ok: true; form: URLSearchParams; access: Extract<LinkAccess, { ok: true }> } | { ok: false; response: LinkResponse };

/**
 * Reads a Connect's form and checks it: refused (changing nothing) when it came from another site,
 * when its one-time Link URL's token does not open the page (clients with the setting on), or when
 * its page's nonce is missing, stale, not this company's or already used (each page's Connect works
 * once: a replayed post changes nothing).
 */
async function connectForm(ctx: LinkContext, company: CompanyRow): Promise<ConnectForm> {
  if (crossSiteConnect(ctx.req, ctx.app.publicUrl)) return { ok: false, response: expired(ctx.app, company, null) };
  const form = new URLSearchParams((await readBody(ctx.req, "PublicApi")).toString("utf8"));
  const access = linkAccess(ctx, company, form.get("token"));
  if (!access.ok) return { ok: false, response: refusedLink(access.reason) };
  if (!spendNonce(ctx, company, form.get("nonce"))) return { ok: false, response: expired(ctx.app, company, access.token) };
  return { ok: true, form, access };
}

/**
 * Runs a Connect's consent in one transaction with its one-time Link URL's token: refused (null,
 * nothing done) when the token was spent meanwhile, spent when the consent links.
 */
function consentOnce(ctx: LinkContext, access: Extract<LinkAccess, { ok: true }>, consent: () => ConsentResult): ConsentResult | null {
  const { store } = ctx.app;
  return store.transaction(() => {
    if (access.token === null) return consent();
    if (store.linkTokens.isSpent(access.token)) return null;
    const result = consent();
    if (result.ok) {
      store.linkTokens.prune(ctx.now - LINK_TOKEN_LIFETIME_MS);
      store.linkTokens.spend({ token: access.token, issuedAt: access.issuedAt, at: ctx.now });
    }
    return result;
  });
}

/** The Connect form's choice of account: "known" when left out (a page without the choice), refused when anything else. */
function accountChoiceOf(form: URLSearchParams): { ok: true; choice: AccountChoice } | { ok: false; value: string } {
  const values = form.getAll("account");
  if (values.length === 0) return { ok: true, choice: "known" };
  const [value] = values;
  const choice = ACCOUNT_CHOICES.find((c) => c === value);
  if (values.length === 1 && choice) return { ok: true, choice };
  return { ok: false, value: values.join(", ") };
}

function expired(app: SandboxApp, company: CompanyRow, token: string | null): LinkResponse {
  return htmlPage(
    403,
    messageLinkPage({
      heading: "This page has expired",
      paragraphs: [
        "Connect was pressed on a page that is too old, was already used, or did not come from this site, so nothing was changed.",
        "Open the page again and press Connect there.",
      ],
      back: { href: companyHref(app, company.id, token), text: `Open ${company.name}'s page again` },
    }),
  );
}

function afterConsent(app: SandboxApp, company: CompanyRow, result: ConsentResult, platformName: string, token: string | null): LinkResponse {
  if (!result.ok && result.refused === "redirect") {
    const { redirect } = result;
    return htmlPage(
      400,
      redirectRefusedLinkPage({
        platformName: redirect.platformName,
        words: redirect.words,
        redirectUri: redirect.redirectUri,
        appClientId: redirect.appClientId,
        // Nothing was connected, so a one-time link's token is not spent: the way back still opens.
        back: { href: companyHref(app, company.id, token), text: `Back to ${company.name}'s page` },
      }),
    );
  }
  if (!result.ok) {
    return htmlPage(
      409,
      messageLinkPage({
        heading: `${platformName} cannot be connected`,
        paragraphs: [result.conflict, `Ask ${company.name}'s software provider to disconnect the other accounting platform first.`],
        // Nothing was connected, so a one-time link's token is not spent: the way back still opens.
        back: { href: companyHref(app, company.id, token), text: `Back to ${company.name}'s page` },
      }),
    );
  }
  // No token: after a one-time link's Connect (its token now spent) the page shows the confirmation alone.
  const location = `${companyHref(app, company.id)}?connected=${encodeURIComponent(result.connection.id)}`;
  return htmlPage(
    303,
    messageLinkPage({ heading: "Connected", paragraphs: [`${platformName} is connected.`], back: { href: location, text: "Continue" } }),
    { Location: location },
  );
}

const routes: readonly LinkRoute[] = [
  {
    method: "GET",
    pattern: "/link/company/:companyId",
    handler: (ctx) => {
      const company = lookupCompany(ctx);
      if (!company) return noCompany(param(ctx, "companyId"));
      const access = linkAccess(ctx, company, ctx.query.get("token"));
      if (!access.ok) return confirmationOnly(ctx, company) ?? refusedLink(access.reason);
      return renderCompany(ctx, company, { token: access.token });
    },
  },
  {
    method: "GET",
    pattern: "/link/companies/:companyId/connections/:connectionId/start",
    handler: (ctx) => {
      const company = lookupCompany(ctx);
      if (!company) return noCompany(param(ctx, "companyId"));
      const access = linkAccess(ctx, company, ctx.query.get("token"));
      if (!access.ok) return refusedLink(access.reason);
      const connection = connectionOf(ctx, company);
      if (!connection) return noConnection(ctx.app, company, param(ctx, "connectionId"), access.token);
      return renderCompany(ctx, company, { token: access.token, only: connection.id });
    },
  },
  {
    method: "POST",
    pattern: "/link/company/:companyId/connections/:connectionId/connect",
    handler: async (ctx) => {
      const company = lookupCompany(ctx);
      if (!company) return noCompany(param(ctx, "companyId"));
      const checked = await connectForm(ctx, company);
      if (!checked.ok) return checked.response;
      const { form, access } = checked;
      const connection = connectionOf(ctx, company);
      if (!connection) return noConnection(ctx.app, company, param(ctx, "connectionId"), access.token);
      const account = accountChoiceOf(form);
      if (!account.ok) {
        const platform = platformOf(connection.platformKey).name;
        return renderCompany(ctx, company, {
          token: access.token,
          only: connection.id,
          status: 400,
          accountProblem: {
            connectionId: connection.id,
            message: `Choose the ${platform} ${accountNoun(connection.platformKey)} you are signed in to, then press Connect: "${account.value.slice(0, 60)}" is not one of the choices. Nothing was connected.`,
          },
        });
      }
      const { store } = ctx.app;
      const result = consentOnce(ctx, access, () => {
        // Read again inside the transaction: a concurrent Connect or drop may have changed it.
        const current = store.connections.get(connection.id) ?? connection;
        return consentToConnection({ store, company, connection: current, now: ctx.now, otherTenant: account.choice === "other" });
      });
      if (!result) return refusedLink("used");
      return afterConsent(ctx.app, company, result, platformOf(connection.platformKey).name, access.token);
    },
  },
  {
    method: "POST",
    pattern: "/link/company/:companyId/connect",
    handler: async (ctx) => {
      const company = lookupCompany(ctx);
      if (!company) return noCompany(param(ctx, "companyId"));
      const checked = await connectForm(ctx, company);
      if (!checked.ok) return checked.response;
      const { form, access } = checked;
      const key = form.get("platformKey") ?? "";
      if (!isManagedPlatformKey(key)) {
        return renderCompany(ctx, company, {
          token: access.token,
          status: 400,
          choiceProblem: key ? `The sandbox does not simulate the platform "${key}": choose one of the list.` : "Choose the platform that holds your books, then press Connect.",
        });
      }
      const { store } = ctx.app;
      const result = consentOnce(ctx, access, () => consentToNewConnection({ store, company, platformKey: key, now: ctx.now }));
      if (!result) return refusedLink("used");
      return afterConsent(ctx.app, company, result, platformOf(key).name, access.token);
    },
  },
  {
    method: "GET",
    pattern: "/link/logos/:file",
    handler: (ctx) => {
      const match = /^([a-z]{4})\.svg$/.exec(param(ctx, "file"));
      const key = match?.[1];
      if (!key || !isManagedPlatformKey(key)) {
        return htmlPage(404, messageLinkPage({ heading: "No such logo", paragraphs: ["The sandbox has a logo for each of its six platforms only."] }));
      }
      const platformKey: PlatformKey = key;
      return { status: 200, body: platformBadgeSvg({ key: platformKey, name: platformOf(platformKey).name, size: 80 }), contentType: "image/svg+xml" };
    },
  },
];

const router = createRouter<LinkContext, Promise<LinkResponse> | LinkResponse>(routes);

/** Headers every Link page carries: not cached, not indexed, not framed, no referrer (its address holds the company id). */
export const LINK_HEADERS: Readonly<Record<string, string>> = {
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
  "X-Robots-Tag": "noindex, nofollow",
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

/** Answers a request under /link/ (path without the base path). */
export async function handleLinkRequest(params: {
  app: SandboxApp;
  req: IncomingMessage;
  path: string;
  query: URLSearchParams;
}): Promise<LinkResponse> {
  const method = params.req.method ?? "GET";
  let match;
  try {
    match = router.match(method === "HEAD" ? "GET" : method, params.path);
  } catch (error) {
    if (!(error instanceof MalformedPathError)) throw error;
    match = { kind: "not-found" as const };
  }
  if (match.kind === "method-not-allowed") {
    return htmlPage(
      405,
      messageLinkPage({ heading: "Not allowed", paragraphs: [`This address answers ${match.allowed.join(" and ")} only.`] }),
      { Allow: match.allowed.join(", ") },
    );
  }
  if (match.kind === "not-found") {
    return htmlPage(
      404,
      messageLinkPage({
        heading: "Nothing here",
        paragraphs: ["This is not a Link page of the service sandbox. Check the link you were sent; it should end with /link/company/ and the company's ID."],
      }),
    );
  }
  try {
    return await match.handler({ app: params.app, now: params.app.clock.now(), params: match.params, query: params.query, req: params.req });
  } catch (error) {
    if (error instanceof ApiError && error.status === 413) {
      return htmlPage(413, messageLinkPage({ heading: "Too much sent", paragraphs: ["The form sent more than the page asks for; nothing was changed."] }));
    }
    throw error;
  }
}
