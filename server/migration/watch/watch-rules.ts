/**
 * The watch after a bulk run, as pure rules: how often an engagement's companies are checked
 * within the watch's share of the service's daily quota, and what one check's listing means for
 * each watched company — linked again by its end customer (carried on to verified), or dropped
 * after its migration (handed back to its end customer with its reconnect link).
 *
 * Once a day a check lists all the engagement's companies (their connections come with them), a
 * page of up to WATCH_PAGE_SIZE companies per request: never one request per company. While
 * companies wait for their end customers, a check every `reconnectEveryMs` between those listings
 * looks up only the waiting ones — one by one while they are at most LOOKUP_MAX (a few kilobytes
 * each, where a listing page is megabytes), else by the same listing. Either way never more than
 * WATCH_QUOTA_SHARE of the daily quota a day: the daily listing first, the lookups in what is left.
 */
import { linkUrlWithoutToken, otherTenant } from "@/core/migration/link-url";
import type { ConnectionStatus } from "@/server/platforms";
import { platformErrorText, type PlatformError } from "../engine/pipeline";

/** The share of the service's daily quota the watch may spend (1 %). */
export const WATCH_QUOTA_SHARE = 0.01;
/** Companies per list request (the service's largest page). */
export const WATCH_PAGE_SIZE = 5_000;
export const DAY_MS = 86_400_000;
/** How often companies waiting for their end customers are looked at: the real service, and a sandbox (whose clock may be moved). */
export const RECONNECT_EVERY_MS = { service: 5 * 60_000, sandbox: 10_000 } as const;
/** How soon a check that could not be made is tried again (at most; a daily watch tries again sooner). */
export const RETRY_AFTER_FAILURE_MS = 15 * 60_000;

/** List requests one check makes for `companies` companies (at least one: an empty list is an answer too). */
export function pagesFor(companies: number): number {
  return Math.max(1, Math.ceil(companies / WATCH_PAGE_SIZE));
}

/** The requests the watch may make in one day on the target's quota (null: no quota known, nothing to keep under). */
export function dailyBudget(dailyQuota: number | null): number | null {
  return dailyQuota === null ? null : Math.floor(dailyQuota * WATCH_QUOTA_SHARE);
}

/** A watch's next check at the epoch was asked for (a new watch, the handover, support's "check now"), not scheduled. */
export const ASKED_FOR = new Date(0);

/** Up to this many companies waiting for their end customers are looked up one by one between the daily listings. */
export const LOOKUP_MAX = 25;

/**
 * What a check reads: every company (`list`: the daily listing, a check asked for — a new watch,
 * the handover, support's "check now" — the last check of the hypercare days, or whenever the waiting companies are more than LOOKUP_MAX), or only the companies waiting
 * for their end customers (`waiting`). `dayStartedAt` is when the current day of the watch began:
 * its listing's time (the watch's day count starts again with it).
 */
export function planCheck(p: { pending: number; dayStartedAt: Date | null; now: Date; hypercareStarts: boolean; hypercareEndsAt: Date | null; askedFor: boolean }): "list" | "waiting" {
  if (p.askedFor || p.hypercareStarts || hypercareOver(p.hypercareEndsAt, p.now) || p.pending === 0 || p.pending > LOOKUP_MAX) return "list";
  if (!p.dayStartedAt || p.now.getTime() - p.dayStartedAt.getTime() >= DAY_MS) return "list";
  return "waiting";
}

/** Requests one check between the daily listings makes: the waiting companies one by one, or the listing's pages. */
export function requestsOfWaitingCheck(pending: number, companies: number): number {
  return pending <= LOOKUP_MAX ? pending : pagesFor(companies);
}

/**
 * How long after this check the next one is due: every `reconnectEveryMs` while companies wait for
 * their end customers, else daily — and never sooner than the quota share allows, once the daily
 * listing's pages are counted, for the requests a check between listings takes. When the share
 * cannot afford even the daily listing, the check is made daily anyway and the screens say why.
 */
export function nextCheckDelayMs(p: { pending: number; companies: number; dailyQuota: number | null; reconnectEveryMs: number }): number {
  if (p.pending === 0) return DAY_MS;
  const budget = dailyBudget(p.dailyQuota);
  if (budget === null) return p.reconnectEveryMs;
  const spare = budget - pagesFor(p.companies);
  const perCheck = requestsOfWaitingCheck(p.pending, p.companies);
  if (spare < perCheck) return DAY_MS;
  return Math.max(p.reconnectEveryMs, Math.ceil((DAY_MS * perCheck) / spare));
}

/** A company the watch looks at: one waiting for its end customer, or one migrated. */
export type WatchedItem = {
  id: string;
  name: string;
  state: "reconnect_pending" | "verified";
  companyId: string;
  connectionId: string | null;
  linkUrl: string | null;
  /** The platform company the migrated tokens were for (connectionInfo), when the service said. */
  platformTenant: Record<string, string> | null;
  /** A reconnection to another platform company already found (and its connection unlinked). */
  wrongTenant: Record<string, string> | null;
};

/** A company as the service listed it. */
export type ListedCompany = {
  id: string;
  redirect: string | null;
  connections: { id: string; integrationKey: string | null; status: ConnectionStatus; errors: PlatformError[]; tenant: Record<string, string> | null }[];
};

export type WatchFindings = {
  /** Waiting companies whose connection is Linked again: carry them on (sync, verify) on that connection. */
  reconnected: { itemId: string; connectionId: string }[];
  /** Migrated companies whose connection is no longer authorized, with the platform's words. */
  dropped: { itemId: string; reason: string }[];
  /**
   * Waiting companies linked again, but to another platform company than the migrated one (whoever
   * was signed in to the platform in the end customer's browser): not reconnected; the connection
   * is to be unlinked so nothing of that company is read, and the end customer asked to try again.
   */
  wrongTenant: { itemId: string; connectionId: string; expected: Record<string, string>; found: Record<string, string> }[];
  /** Link URLs learned or changed (the company's `redirect`). */
  links: { itemId: string; linkUrl: string }[];
  /** Watched companies the listing did not hold (deleted on the service, or listed under another tag). */
  missing: string[];
};

/** The fields of `tenant` that `migrated` names too (what was compared), else all of them. */
function comparedFields(tenant: Record<string, string>, migrated: Record<string, string>): Record<string, string> {
  const shared = Object.entries(tenant).filter(([k]) => k in migrated);
  return shared.length ? Object.fromEntries(shared) : tenant;
}

/** The connection that stands for the item: its own, else the company's connection to the same platform. */
function connectionOf(item: WatchedItem, company: ListedCompany, platformKey: string): ListedCompany["connections"][number] | undefined {
  return company.connections.find((c) => c.id === item.connectionId) ?? company.connections.find((c) => c.integrationKey === platformKey);
}

/** What one check's listing means for each watched company (see the module comment). */
export function decideWatch(items: readonly WatchedItem[], listed: ReadonlyMap<string, ListedCompany>, platformKey: string): WatchFindings {
  const findings: WatchFindings = { reconnected: [], dropped: [], wrongTenant: [], links: [], missing: [] };
  for (const item of items) {
    const company = listed.get(item.companyId);
    if (!company) {
      findings.missing.push(item.id);
      continue;
    }
    // Kept without its query: where Link URLs are one-time, every listing gives a new token, and the
    // link handed out is Ferry's own anyway (reconnect-link.ts), which asks for a fresh one when opened.
    const redirect = company.redirect ? linkUrlWithoutToken(company.redirect) : null;
    if (redirect && redirect !== item.linkUrl) findings.links.push({ itemId: item.id, linkUrl: redirect });
    const connection = connectionOf(item, company, platformKey);
    if (!connection) continue;
    if (item.state === "reconnect_pending") {
      // The end customer may have linked the same connection again, or a new one to the platform.
      const linked = connection.status === "Linked" ? connection : company.connections.find((c) => c.integrationKey === platformKey && c.status === "Linked");
      if (linked && item.platformTenant && otherTenant(item.platformTenant, linked.tenant)) findings.wrongTenant.push({ itemId: item.id, connectionId: linked.id, expected: item.platformTenant, found: comparedFields(linked.tenant!, item.platformTenant) });
      else if (linked) findings.reconnected.push({ itemId: item.id, connectionId: linked.id });
    } else if (connection.status === "Deauthorized") {
      findings.dropped.push({ itemId: item.id, reason: platformErrorText(connection.errors) });
    }
  }
  return findings;
}

/** The hypercare days are over at `now` (they began at the handover's first check). */
export function hypercareOver(hypercareEndsAt: Date | null, now: Date): boolean {
  return hypercareEndsAt !== null && now.getTime() >= hypercareEndsAt.getTime();
}
