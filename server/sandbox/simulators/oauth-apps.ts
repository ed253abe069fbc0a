/**
 * The customers' own OAuth apps at the simulated platforms (store oauth_apps): how the controls
 * create one, and how it is shown (the controls' view, the address of its developer console page).
 * The redirect check at authorize is simulators/redirect-check.ts; the console's pages are
 * developer/.
 */
import type { PlatformKey } from "../../platforms";
import type { OAuthAppRow, Store } from "../store/store";
import { platformOf } from "./profiles";

/**
 * What a platform client id may be here: letters, digits and `._~-`, as the platforms' own ids are
 * (Intuit's and Shopify's alphanumeric ones, Zoho's `1000.ABC…`); it is a path segment of the console.
 */
export const APP_CLIENT_ID = /^[A-Za-z0-9._~-]{1,200}$/;

/** The path of the app's developer console page, below the sandbox's base path. */
export function consolePath(basePath: string, platformKey: PlatformKey, appClientId: string): string {
  return `${basePath}/developer/${platformKey}/apps/${encodeURIComponent(appClientId)}`;
}

/** An app as the controls show it, with the absolute address of its console page. */
export type OAuthAppView = {
  clientId: string;
  platformKey: PlatformKey;
  appClientId: string;
  name: string;
  redirectUris: string[];
  consoleUrl: string;
};

/** The app as the controls show it; `publicUrl` is the sandbox's, base path included. */
export function oauthAppView(app: OAuthAppRow, publicUrl: string): OAuthAppView {
  return {
    clientId: app.clientId,
    platformKey: app.platformKey,
    appClientId: app.appClientId,
    name: app.name,
    redirectUris: app.redirectUris,
    consoleUrl: `${publicUrl}${consolePath("", app.platformKey, app.appClientId)}`,
  };
}

export type PutOAuthAppResult = { ok: true; app: OAuthAppRow; created: boolean } | { ok: false; conflict: string };

/**
 * Creates or replaces the client's app at the platform (synchronous: run it in a transaction). The
 * platform's client id belongs to one app of the platform: another client's is a conflict.
 */
export function putOAuthApp(params: {
  store: Store;
  client: { id: string; name: string };
  platformKey: PlatformKey;
  appClientId: string;
  name?: string;
  redirectUris: readonly string[];
  now: number;
}): PutOAuthAppResult {
  const { store, client, platformKey, appClientId, now } = params;
  const holder = store.oauthApps.findByAppClientId({ platformKey, appClientId });
  if (holder && holder.clientId !== client.id) {
    return { ok: false, conflict: `The ${platformOf(platformKey).name} client id ${appClientId} belongs to another client's app.` };
  }
  const before = store.oauthApps.get({ clientId: client.id, platformKey });
  const app: OAuthAppRow = {
    clientId: client.id,
    platformKey,
    appClientId,
    name: params.name ?? `${client.name}'s ${platformOf(platformKey).name} app`,
    redirectUris: [...params.redirectUris],
    createdAt: before?.createdAt ?? now,
    updatedAt: now,
  };
  store.oauthApps.put(app);
  return { ok: true, app, created: before === undefined };
}
