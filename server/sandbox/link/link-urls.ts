/**
 * The addresses of a company's Link pages as the API hands them out: a company's `redirect` and a
 * connection's `linkUrl`. For a client with one-time Link URLs on (link/link-token.ts) each
 * address carries a fresh token, made when it is given out; otherwise they are the same every time.
 */
import type { SandboxApp } from "../context";
import { makeLinkToken } from "./link-token";

export type LinkUrls = {
  /** The company's `redirect`: `{publicUrl}/link/company/{companyId}`. */
  company(companyId: string): string;
  /** A connection's `linkUrl`: `{publicUrl}/link/companies/{companyId}/connections/{connectionId}/start`. */
  connection(companyId: string, connectionId: string): string;
};

/** Link addresses under `publicUrl`; with `oneTime`, each with a new token issued at sandbox time `now`. */
export function linkUrls(params: { publicUrl: string; secret: string; oneTime: boolean; now: number }): LinkUrls {
  const { publicUrl, secret, oneTime, now } = params;
  const withToken = (url: string, companyId: string): string =>
    oneTime ? `${url}?token=${makeLinkToken({ secret, companyId, now })}` : url;
  return {
    company: (companyId) => withToken(`${publicUrl}/link/company/${companyId}`, companyId),
    connection: (companyId, connectionId) =>
      withToken(`${publicUrl}/link/companies/${companyId}/connections/${connectionId}/start`, companyId),
  };
}

/** The Link addresses the API gives `clientId` at sandbox time `now` (its setting read once, here). */
export function linkUrlsFor(app: SandboxApp, clientId: string, now: number): LinkUrls {
  return linkUrls({ publicUrl: app.publicUrl, secret: app.linkSecret, oneTime: app.store.clients.oneTimeLinkUrls(clientId), now });
}
