"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { formatDistanceStrict } from "date-fns";
import { usePathname, useSearchParams } from "next/navigation";
import { useMemo, useState, type ReactNode } from "react";
import { ReferenceLink } from "@/app/_components/engagement/reference-link";
import { Badge, Button, cn, EmptyState, Field, Notice, Pagination, ProgressBar, ResponsiveTable, Select, useHydrated, type BadgeTone, type ResponsiveColumn } from "@/app/_components/ui";
import { formatDateTime, waitingLabel } from "@/app/_lib/labels";
import { narrowsPortfolio, parsePortfolioFilters, portfolioFiltersToParams, withPortfolioFilter, type PortfolioFilters } from "@/app/_lib/portfolio-filters";
import { toFormError } from "@/app/_lib/trpc-error";
import { useUrlInPlace } from "@/app/_lib/use-url-in-place";
import { useTRPC } from "@/app/_trpc/react";
import { RISK_LABELS, type Risk } from "@/core/engagements/clocks";
import type { Portfolio, PortfolioGroup, PortfolioRiskFilter, PortfolioRow } from "@/core/engagements/portfolio-schemas";
import { STATUS_REASON_LABELS } from "@/core/engagements/status-reasons";

const RISK_TONES: Record<Risk, BadgeTone> = { late: "danger", at_risk: "warning", on_pace: "success" };

const GROUPS: { value: PortfolioGroup; label: string }[] = [
  { value: "none", label: "Nothing (one list)" },
  { value: "owner", label: "Owner" },
  { value: "customer", label: "Customer" },
  { value: "platform", label: "Platform" },
  { value: "target", label: "Service target" },
  { value: "risk", label: "Risk" },
];

/** "in 3 days", "2 hours ago": against the time the server read the clocks, so server and browser say the same. */
const relative = (date: Date, at: Date) => formatDistanceStrict(date, at, { addSuffix: true });

function Due({ row, at }: { row: PortfolioRow; at: Date }) {
  if (row.paused) {
    return (
      <span className="inline-flex flex-col gap-0.5">
        <span>
          <Badge tone="neutral">Paused</Badge>
        </span>
        <span className="text-xs text-slate-600">{row.statusReason ? STATUS_REASON_LABELS[row.statusReason] : "On hold"}</span>
      </span>
    );
  }
  if (!row.risk || !row.dueAt) return <span className="text-slate-500">—</span>;
  return (
    <span className="inline-flex flex-col gap-0.5">
      <span>
        <Badge tone={RISK_TONES[row.risk]}>{RISK_LABELS[row.risk]}</Badge>
      </span>
      <span className="text-xs whitespace-nowrap text-slate-600" title={formatDateTime(row.dueAt)}>
        due {relative(row.dueAt, at)}
      </span>
    </span>
  );
}

function Move({ row, at }: { row: PortfolioRow; at: Date }) {
  if (!row.party) return <span className="text-slate-500">Nobody&apos;s</span>;
  return (
    <span className="inline-flex flex-col gap-0.5">
      <span>
        <Badge tone={row.party === "support" && !row.paused ? "warning" : "muted"}>{waitingLabel(row.party)}</Badge>
      </span>
      {row.waitingSince ? (
        <span className="text-xs whitespace-nowrap text-slate-600" title={formatDateTime(row.waitingSince)}>
          since {relative(row.waitingSince, at)}
        </span>
      ) : null}
    </span>
  );
}

function columns(at: Date): ResponsiveColumn<PortfolioRow>[] {
  return [
    {
      label: "Engagement",
      title: true,
      className: "whitespace-nowrap",
      cell: (r) => (
        <span className="inline-flex flex-col gap-0.5">
          <ReferenceLink href={`/engagements/${r.id}`} reference={r.reference} />
          {r.stale ? (
            <span>
              <Badge tone="muted">Stale: {r.idleDays} days</Badge>
            </span>
          ) : null}
        </span>
      ),
    },
    {
      label: "Customer",
      className: "min-w-32",
      cell: (r) => (
        <span className="inline-flex flex-col">
          <span>{r.organizationName}</span>
          <span className="text-xs text-slate-600">{r.platformName}</span>
        </span>
      ),
    },
    {
      label: "Step",
      className: "min-w-36",
      cell: (r) => (
        <span>
          {r.currentStep <= 6 ? `${r.currentStep}. ` : ""}
          {r.stepTitle}
        </span>
      ),
    },
    { label: "Whose move", cell: (r) => <Move row={r} at={at} /> },
    { label: "Due", cell: (r) => <Due row={r} at={at} /> },
    {
      label: "Next window",
      present: (r) => r.nextWindow !== null,
      cell: (r) =>
        r.nextWindow ? (
          <span className="inline-flex flex-col gap-0.5">
            <span className="whitespace-nowrap">{formatDateTime(r.nextWindow.startsAt)}</span>
            <span className="text-xs text-slate-600">{r.nextWindow.agreed ? "agreed" : "proposed"}</span>
          </span>
        ) : (
          <span className="text-slate-500">—</span>
        ),
    },
    {
      label: "Projected finish",
      cell: (r) => (r.projectedFinish ? <span className="whitespace-nowrap">{formatDateTime(r.projectedFinish).replace(/, \d\d:\d\d UTC$/, "")}</span> : "—"),
    },
    { label: "Owner", cell: (r) => r.ownerName },
    { label: "Target", present: (r) => r.targetName !== null, cell: (r) => r.targetName ?? <span className="text-slate-500">None yet</span> },
  ];
}

/** The counts across the top, each a filter of its own (pressed while it is the one applied). */
const TILES: { risk: PortfolioRiskFilter; label: string; count: (c: Portfolio["counts"]) => number; tone: string }[] = [
  { risk: "late", label: "Late", count: (c) => c.late, tone: "text-red-700" },
  { risk: "at_risk", label: "At risk", count: (c) => c.atRisk, tone: "text-amber-800" },
  { risk: "on_pace", label: "On pace", count: (c) => c.onPace, tone: "text-emerald-700" },
  { risk: "on_hold", label: "On hold", count: (c) => c.onHold, tone: "text-slate-700" },
  { risk: "stale", label: "Stale", count: (c) => c.stale, tone: "text-slate-700" },
];

function Tile({ label, count, tone, pressed, onClick }: { label: string; count: number; tone: string; pressed: boolean; onClick: () => void }) {
  const hydrated = useHydrated();
  return (
    <button
      type="button"
      disabled={!hydrated}
      aria-pressed={pressed}
      onClick={onClick}
      className={cn(
        "flex flex-col items-start rounded-lg border bg-white px-2 py-2 text-left shadow-xs sm:px-4 sm:py-3 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600",
        pressed ? "border-indigo-600 ring-2 ring-indigo-600" : "border-slate-200 hover:bg-slate-50",
      )}
    >
      <span className={cn("text-xl font-semibold tabular-nums sm:text-2xl", tone)}>{count.toLocaleString("en-GB")}</span>
      <span className="text-xs text-slate-700 sm:text-sm">{label}</span>
    </button>
  );
}

function Reasons({ title, reasons }: { title: string; reasons: Portfolio["holdReasons"] }) {
  if (!reasons.length) return null;
  return (
    <div>
      <h2 className="text-sm font-semibold text-slate-900">{title}</h2>
      <ul className="mt-1 flex flex-wrap gap-2 text-sm text-slate-700">
        {reasons.map((r) => (
          <li key={r.key}>
            <Badge tone="muted">
              {r.label}: <span className="tabular-nums">{r.count}</span>
            </Badge>
          </li>
        ))}
      </ul>
    </div>
  );
}

function FilterSelect(props: { label: string; value: string | undefined; any: string; options: { value: string; label: string }[]; onChange: (value: string | undefined) => void }) {
  return (
    <Field label={props.label}>
      {(p) => (
        <Select {...p} value={props.value ?? ""} onChange={(e) => props.onChange(e.target.value || undefined)}>
          <option value="">{props.any}</option>
          {props.options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </Select>
      )}
    </Field>
  );
}

export function PortfolioView() {
  const trpc = useTRPC();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const changeUrl = useUrlInPlace();
  const filters = useMemo(() => parsePortfolioFilters(searchParams), [searchParams]);
  const query = useQuery({ ...trpc.portfolio.get.queryOptions(filters), placeholderData: keepPreviousData });

  function apply(change: Partial<PortfolioFilters>) {
    const current = parsePortfolioFilters(new URLSearchParams(window.location.search));
    const params = portfolioFiltersToParams(withPortfolioFilter(current, change)).toString();
    changeUrl(params ? `${pathname}?${params}` : pathname);
  }

  const data = query.data;
  const at = data?.at;
  const cols = useMemo(() => columns(at ?? new Date(0)), [at]);
  const o = data?.options;
  // On a phone the filters fold under a button, so the rows are on the first screen.
  const [showFilters, setShowFilters] = useState(false);
  const filtersOn = [filters.ownerId, filters.organizationId, filters.platformKey, filters.targetId, filters.group === "none" ? undefined : filters.group].filter(Boolean).length;

  return (
    <div className="space-y-5">
      {data ? (
        <section aria-label="Counts" className="grid grid-cols-5 gap-2 sm:gap-3">
          {TILES.map((t) => (
            <Tile key={t.risk} label={t.label} count={t.count(data.counts)} tone={t.tone} pressed={filters.risk === t.risk} onClick={() => apply({ risk: filters.risk === t.risk ? undefined : t.risk })} />
          ))}
        </section>
      ) : null}

      <section aria-label="Filters" className="space-y-4 rounded-lg border border-slate-200 bg-white p-4 shadow-xs">
        <div className="md:hidden">
          <Button variant="secondary" size="sm" aria-expanded={showFilters} aria-controls="portfolio-filters" onClick={() => setShowFilters((v) => !v)}>
            {showFilters ? "Hide filters" : `Filters and grouping${filtersOn ? ` (${filtersOn} on)` : ""}`}
          </Button>
        </div>
        <div id="portfolio-filters" className={cn("grid gap-4 sm:grid-cols-2 lg:grid-cols-5", !showFilters && "max-md:hidden")}>
          <FilterSelect label="Owner" any="Anyone" value={filters.ownerId} options={(o?.owners ?? []).map((x) => ({ value: x.id, label: x.name }))} onChange={(v) => apply({ ownerId: v })} />
          <FilterSelect label="Customer" any="Any customer" value={filters.organizationId} options={(o?.customers ?? []).map((x) => ({ value: x.id, label: x.name }))} onChange={(v) => apply({ organizationId: v })} />
          <FilterSelect label="Platform" any="Any platform" value={filters.platformKey} options={(o?.platforms ?? []).map((x) => ({ value: x.key, label: x.name }))} onChange={(v) => apply({ platformKey: v })} />
          <FilterSelect
            label="Service target"
            any="Any target"
            value={filters.targetId}
            options={[{ value: "none", label: "No target yet" }, ...(o?.targets ?? []).map((x) => ({ value: x.id, label: x.name }))]}
            onChange={(v) => apply({ targetId: v })}
          />
          <Field label="Group by">
            {(p) => (
              <Select {...p} value={filters.group} onChange={(e) => apply({ group: e.target.value as PortfolioGroup })}>
                {GROUPS.map((g) => (
                  <option key={g.value} value={g.value}>
                    {g.label}
                  </option>
                ))}
              </Select>
            )}
          </Field>
        </div>
        {data && (data.holdReasons.length || data.cancelReasons.length) ? (
          <div className="flex flex-wrap gap-x-8 gap-y-3 border-t border-slate-100 pt-3">
            <Reasons title="Why on hold" reasons={data.holdReasons} />
            <Reasons title="Why cancelled" reasons={data.cancelReasons} />
          </div>
        ) : null}
        {narrowsPortfolio(filters) ? (
          <div className="flex justify-end">
            <Button variant="ghost" size="sm" onClick={() => changeUrl(filters.group === "none" ? pathname : `${pathname}?group=${filters.group}`)}>
              Clear filters
            </Button>
          </div>
        ) : null}
      </section>

      <div className="h-1" aria-hidden={!query.isFetching}>
        {query.isFetching ? <ProgressBar label="Loading the portfolio" size="sm" /> : null}
      </div>
      {query.error ? <Notice tone="error">{toFormError(query.error).message}</Notice> : null}

      {data && data.total === 0 ? (
        <EmptyState title={narrowsPortfolio(filters) ? "No open engagement matches these filters" : "No open engagements"}>
          {narrowsPortfolio(filters) ? "Clear a filter to see more." : "Engagements show here from the moment they are opened until they are completed or cancelled."}
        </EmptyState>
      ) : null}

      {data && data.rows.length > 0 ? (
        <div className={cn("space-y-6 transition-opacity", query.isPlaceholderData && "opacity-60")}>
          {groupsOnPage(data, filters.group).map((g) => (
            <GroupTable key={g.key} heading={g.heading} rows={g.rows} columns={cols} />
          ))}
          <Pagination page={data.page} pageSize={data.pageSize} total={data.total} noun={{ one: "engagement", other: "engagements" }} onPageChange={(page) => apply({ page })} />
        </div>
      ) : null}
    </div>
  );
}

/** The page's rows cut into their groups (in the server's order), each with its heading. */
function groupsOnPage(data: Portfolio, group: PortfolioGroup): { key: string; heading: ReactNode; rows: PortfolioRow[] }[] {
  if (group === "none") return [{ key: "all", heading: null, rows: data.rows }];
  const keyOf = (r: PortfolioRow): string => {
    switch (group) {
      case "owner":
        return r.ownerId;
      case "customer":
        return r.organizationId;
      case "platform":
        return r.platformKey;
      case "target":
        return r.targetId ?? "none";
      case "risk":
        return r.paused ? "on_hold" : (r.risk ?? "none");
      default:
        return "all";
    }
  };
  const out: { key: string; heading: ReactNode; rows: PortfolioRow[] }[] = [];
  for (const r of data.rows) {
    const key = keyOf(r);
    let entry = out.find((g) => g.key === key);
    if (!entry) {
      const g = data.groups.find((x) => x.key === key);
      const detail = g ? [`${g.count} open`, g.late ? `${g.late} late` : null, g.atRisk ? `${g.atRisk} at risk` : null].filter(Boolean).join(", ") : "";
      entry = { key, heading: `${g?.label ?? key}${detail ? ` · ${detail}` : ""}`, rows: [] };
      out.push(entry);
    }
    entry.rows.push(r);
  }
  return out;
}

function GroupTable({ heading, rows, columns: cols }: { heading: ReactNode; rows: PortfolioRow[]; columns: ResponsiveColumn<PortfolioRow>[] }) {
  return (
    <section aria-label={typeof heading === "string" ? heading : "Open engagements"} className="space-y-2">
      {heading ? <h2 className="text-base font-semibold text-slate-900">{heading}</h2> : null}
      <ResponsiveTable
        caption={typeof heading === "string" ? heading : "Open engagements"}
        captionVisible={false}
        columns={cols}
        rows={rows}
        rowKey={(r) => r.id}
        rowClassName={(r) => cn("hover:bg-slate-50", r.risk === "late" && !r.paused && "bg-red-50/40")}
        stackBelow="lg"
        dense
      />
    </section>
  );
}
