/**
 * The platform's redirect check at authorize, as real platforms make it: the service sends the end
 * customer to the platform with `redirect_uri` = its callback URL (platforms.ts `callbackUrl`) and
 * the client id of the OAuth app it uses for the client's connections. When that app is the
 * customer's own (store oauth_apps; managed token migrations, step 3) and the callback URL is not
 * one of the app's registered redirect URIs (string equality, as platforms compare them), the
 * platform refuses before the end customer can allow anything: nothing links, and the service
 * keeps the refusal as an Active `dataConnectionErrors` item on the connection, in the platform's
 * words. Without an app of the customer's, the service uses its own, whose callback is registered.
 *
 * The words are each platform's answer for an unregistered redirect URI: Intuit's sentence, Zoho's
 * "Invalid Redirect Uri" page, Shopify's "not whitelisted" OAuth error, FreshBooks' Doorkeeper
 * description; FreeAgent and Wave as a plain OAuth `redirect_uri_mismatch`.
 */
import type { PlatformKey } from "../../platforms";
import { iso } from "../domain/clock";
import type { ConnectionErrorEntry, Store } from "../store/store";
import { platformOf } from "./profiles";

const PLAIN_MISMATCH = "redirect_uri_mismatch: The redirect URI in the request does not match a redirect URI registered on the app.";

/** What each platform says when the redirect URI is not registered on the app. */
const WORDS: Record<PlatformKey, string> = {
  fbrh: PLAIN_MISMATCH,
  vxvy: "invalid_redirect_uri: The requested redirect uri is malformed or doesn't match client redirect URI.",
  qhyg: "The redirect_uri query parameter value is invalid. Make sure it is listed in the Redirect URIs section on your app's keys tab and matches it exactly.",
  fztf: "Oauth error invalid_request: The redirect_uri is not whitelisted",
  pbtz: PLAIN_MISMATCH,
  rwuv: "Invalid Redirect Uri — Redirect URI passed does not match with the one configured",
};

/** A refused authorize: which app, which redirect URI, and the platform's words. */
export type RedirectRefusal = {
  platformKey: PlatformKey;
  platformName: string;
  /** The redirect_uri the service sent: the platform's callback URL. */
  redirectUri: string;
  appClientId: string;
  appName: string;
  /** The platform's own words, as its authorize page shows them. */
  words: string;
  /** The `dataConnectionErrors` item's message: the words, the redirect_uri sent and the app's client id. */
  errorMessage: string;
};

/** The marker of a refusal's message, so a second refusal finds the first (see withRedirectRefusal). */
const MESSAGE_MARK = "refused the authorization: ";

/**
 * The platform's refusal of an authorize for the client's connections to the platform, or null
 * when it goes through (no app of the customer's, or the callback URL is registered on it).
 */
export function redirectRefusal(store: Store, params: { clientId: string; platformKey: PlatformKey }): RedirectRefusal | null {
  const app = store.oauthApps.get(params);
  if (!app) return null;
  const platform = platformOf(params.platformKey);
  const redirectUri = platform.callbackUrl;
  if (app.redirectUris.includes(redirectUri)) return null;
  const words = WORDS[params.platformKey];
  return {
    platformKey: params.platformKey,
    platformName: platform.name,
    redirectUri,
    appClientId: app.appClientId,
    appName: app.name,
    words,
    errorMessage: `${platform.name} ${MESSAGE_MARK}${words} (redirect_uri=${redirectUri}, client_id=${app.appClientId})`,
  };
}

function isActiveRedirectRefusal(entry: ConnectionErrorEntry): boolean {
  return entry.status === "Active" && entry.statusCode === "400" && entry.errorMessage.includes(MESSAGE_MARK) && entry.errorMessage.includes("redirect_uri=");
}

/**
 * The connection's errors with the refusal as one Active item at `now`: a connection refused again
 * keeps one such item (the latest words and time), not one per attempt.
 */
export function withRedirectRefusal(errors: readonly ConnectionErrorEntry[], refusal: RedirectRefusal, now: number): ConnectionErrorEntry[] {
  const item: ConnectionErrorEntry = {
    statusCode: "400",
    statusText: "Bad Request",
    errorMessage: refusal.errorMessage,
    erroredOnUtc: iso(now),
    status: "Active",
  };
  const at = errors.findIndex(isActiveRedirectRefusal);
  if (at === -1) return [...errors, item];
  return errors.map((e, i) => (i === at ? item : e));
}
