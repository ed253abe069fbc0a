/**
 * The engagement list's filters live in the URL, so a filtered view can be shared and reloaded.
 * One mapping both ways, used by the server page (prefetch) and the client table (same query key).
 */
import { PAGE_SIZE } from "@/server/api/routers/shared.types";
import { ENGAGEMENT_STATUSES } from "./labels";
import type { EngagementStatus } from "./types";

export { PAGE_SIZE };

/** Far past any real list (10,000 engagements are 400 pages), and safe for the server's integer check. */
export const MAX_PAGE = 1_000_000;

export type EngagementFilters = {
  status?: EngagementStatus[];
  /** 1–6, or 7 for "all steps done". */
  step?: number;
  ownerId?: string;
  platformKey?: string;
  /** Whose move it is. */
  waitingOn?: "customer" | "support";
  search?: string;
  page: number;
  pageSize: number;
};

type ParamSource = URLSearchParams | Record<string, string | string[] | undefined>;

function read(source: ParamSource, name: string): string | undefined {
  if (source instanceof URLSearchParams) return source.get(name) ?? undefined;
  const value = source[name];
  return Array.isArray(value) ? value[0] : value;
}

const isStatus = (value: string): value is EngagementStatus => (ENGAGEMENT_STATUSES as readonly string[]).includes(value);

/** Reads filters from search params; anything malformed is dropped rather than sent to the server. */
export function parseEngagementFilters(source: ParamSource): EngagementFilters {
  const filters: EngagementFilters = { page: 1, pageSize: PAGE_SIZE };
  const status = read(source, "status")
    ?.split(",")
    .map((s) => s.trim())
    .filter(isStatus);
  if (status?.length) filters.status = [...new Set(status)];
  const step = Number(read(source, "step"));
  if (Number.isInteger(step) && step >= 1 && step <= 7) filters.step = step;
  const owner = read(source, "owner")?.trim();
  if (owner) filters.ownerId = owner.slice(0, 64);
  const platform = read(source, "platform")?.trim();
  if (platform) filters.platformKey = platform.slice(0, 16);
  const waiting = read(source, "waiting");
  if (waiting === "customer" || waiting === "support") filters.waitingOn = waiting;
  const search = read(source, "q")?.trim();
  if (search) filters.search = search.slice(0, 100);
  const page = Number(read(source, "page"));
  if (Number.isInteger(page) && page > 1) filters.page = Math.min(page, MAX_PAGE);
  return filters;
}

/** Writes filters to search params, leaving out defaults so URLs stay short. */
export function engagementFiltersToParams(filters: Partial<EngagementFilters>): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.status?.length) params.set("status", filters.status.join(","));
  if (filters.step) params.set("step", String(filters.step));
  if (filters.ownerId) params.set("owner", filters.ownerId);
  if (filters.platformKey) params.set("platform", filters.platformKey);
  if (filters.waitingOn) params.set("waiting", filters.waitingOn);
  if (filters.search?.trim()) params.set("q", filters.search.trim());
  if (filters.page && filters.page > 1) params.set("page", String(filters.page));
  return params;
}

/**
 * The filters after one change. Any change other than the page itself starts again at page 1,
 * because the old page number may not exist under the new filter.
 */
export function withFilter(current: EngagementFilters, change: Partial<EngagementFilters>): EngagementFilters {
  const next: EngagementFilters = { ...current, ...change };
  for (const key of Object.keys(change) as (keyof EngagementFilters)[]) {
    if (change[key] === undefined || change[key] === "") delete next[key];
  }
  if (!("page" in change)) next.page = 1;
  next.page ??= 1;
  next.pageSize = current.pageSize;
  return next;
}

/** True when any filter other than paging is set. */
export function hasActiveFilters(filters: EngagementFilters): boolean {
  return Boolean(filters.status?.length || filters.step || filters.ownerId || filters.platformKey || filters.waitingOn || filters.search);
}
