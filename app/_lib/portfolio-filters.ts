/**
 * The portfolio's filters and grouping live in the URL, so a view (say, "late, by owner") can be
 * shared and reloaded. One mapping both ways, used by the server page (its prefetch) and the
 * client view (the same query key).
 */
import { PORTFOLIO_GROUPS, PORTFOLIO_RISK_FILTERS, type PortfolioGroup, type PortfolioRiskFilter } from "@/core/engagements/portfolio-schemas";

export const PORTFOLIO_PAGE_SIZE = 50;

export type PortfolioFilters = {
  ownerId?: string;
  organizationId?: string;
  platformKey?: string;
  targetId?: string;
  risk?: PortfolioRiskFilter;
  group: PortfolioGroup;
  page: number;
  pageSize: number;
};

type ParamSource = URLSearchParams | Record<string, string | string[] | undefined>;

function read(source: ParamSource, name: string): string | undefined {
  if (source instanceof URLSearchParams) return source.get(name)?.trim() || undefined;
  const value = source[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
}

const oneOf = <T extends string>(values: readonly T[], value: string | undefined): T | undefined => (values as readonly string[]).includes(value ?? "") ? (value as T) : undefined;

/** The URL's parameter for each filter. */
const PARAMS = { ownerId: "owner", organizationId: "customer", platformKey: "platform", targetId: "target" } as const;

/** Reads the filters from search params; anything malformed is dropped rather than sent to the server. */
export function parsePortfolioFilters(source: ParamSource): PortfolioFilters {
  const filters: PortfolioFilters = { group: oneOf(PORTFOLIO_GROUPS, read(source, "group")) ?? "none", page: 1, pageSize: PORTFOLIO_PAGE_SIZE };
  for (const [key, param] of Object.entries(PARAMS) as [keyof typeof PARAMS, string][]) {
    const value = read(source, param);
    if (value) filters[key] = value.slice(0, 100);
  }
  const risk = oneOf(PORTFOLIO_RISK_FILTERS, read(source, "risk"));
  if (risk) filters.risk = risk;
  const page = Number(read(source, "page"));
  if (Number.isInteger(page) && page > 1) filters.page = Math.min(page, 10_000);
  return filters;
}

/** Writes the filters to search params, leaving out defaults so URLs stay short. */
export function portfolioFiltersToParams(filters: PortfolioFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, param] of Object.entries(PARAMS) as [keyof typeof PARAMS, string][]) {
    const value = filters[key];
    if (value) params.set(param, value);
  }
  if (filters.risk) params.set("risk", filters.risk);
  if (filters.group !== "none") params.set("group", filters.group);
  if (filters.page > 1) params.set("page", String(filters.page));
  return params;
}

/** The filters with one change; any change but the page's goes back to the first page. */
export function withPortfolioFilter(filters: PortfolioFilters, change: Partial<PortfolioFilters>): PortfolioFilters {
  return { ...filters, page: 1, ...change };
}

/** Whether anything narrows the view (the grouping does not). */
export function narrowsPortfolio(filters: PortfolioFilters): boolean {
  return Boolean(filters.ownerId || filters.organizationId || filters.platformKey || filters.targetId || filters.risk);
}
