"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { useEffect, useEffectEvent, useMemo, useState } from "react";
import { ReferenceLink } from "@/app/_components/engagement/reference-link";
import { StatusBadge } from "@/app/_components/engagement/status-badge";
import { StepProgress } from "@/app/_components/engagement/step-progress";
import { Waiting } from "@/app/_components/engagement/waiting";
import {
  Button,
  cn,
  EmptyState,
  Field,
  Input,
  Notice,
  Pagination,
  ProgressBar,
  ResponsiveTable,
  Select,
  useHydrated,
  type ResponsiveColumn,
} from "@/app/_components/ui";
import {
  engagementFiltersToParams,
  hasActiveFilters,
  parseEngagementFilters,
  withFilter,
  type EngagementFilters,
} from "@/app/_lib/engagement-filters";
import { currentStepTitle, ENGAGEMENT_STATUSES, formatDateTime, statusLabel, waitingLabel } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementListItem, EngagementStatus } from "@/app/_lib/types";
import { useUrlInPlace } from "@/app/_lib/use-url-in-place";
import { useTRPC } from "@/app/_trpc/react";

const STATUS_CHOICES: { value: string; label: string }[] = [
  { value: "", label: "Any status" },
  { value: "active,on_hold", label: "Open (active or on hold)" },
  ...ENGAGEMENT_STATUSES.map((s) => ({ value: s, label: statusLabel(s) })),
];

const STEP_CHIPS = [1, 2, 3, 4, 5, 6, 7] as const;

/**
 * The list's columns. They fit a laptop's width (1366 px) without scrolling: names wrap, the time
 * of the last change keeps to one line. Below `lg` each engagement is a card of label and value,
 * headed by its reference, as the portal's list is.
 */
const COLUMNS: ResponsiveColumn<EngagementListItem>[] = [
  { label: "Reference", title: true, className: "whitespace-nowrap", cell: (e) => <ReferenceLink href={`/engagements/${e.id}`} reference={e.reference} /> },
  { label: "Organisation", className: "min-w-32", cell: (e) => e.organizationName },
  { label: "Platform", cell: (e) => e.platformName },
  { label: "Owner", cell: (e) => e.ownerName },
  { label: "Status", cell: (e) => <StatusBadge status={e.status} /> },
  { label: "Current step", cell: (e) => <StepProgress currentStep={e.currentStep} stepsDone={e.stepsDone} /> },
  { label: "Whose move", cell: (e) => <Waiting party={e.waitingOn} since={e.waitingSince} viewer="console" /> },
  { label: "Updated", className: "whitespace-nowrap text-slate-600", cell: (e) => formatDateTime(e.updatedAt) },
];

export function EngagementList() {
  const trpc = useTRPC();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const changeUrl = useUrlInPlace();
  const filters = useMemo(() => parseEngagementFilters(searchParams), [searchParams]);
  const list = useQuery({ ...trpc.engagements.list.queryOptions(filters), placeholderData: keepPreviousData });
  const staff = useQuery(trpc.users.staff.queryOptions());
  const platforms = useQuery(trpc.platforms.list.queryOptions());

  // Filters change the URL in place (useUrlInPlace): Next keeps useSearchParams in step without a
  // server round trip, and the list query refetches on its own. Each change builds on the URL as
  // it is now, not on the last render's filters: under load a debounced search could fire before
  // the render of "Clear filters" and bring the cleared filters back.
  function apply(change: Partial<EngagementFilters>, mode: "push" | "replace" = "push") {
    const current = parseEngagementFilters(new URLSearchParams(window.location.search));
    const query = engagementFiltersToParams(withFilter(current, change)).toString();
    const url = query ? `${pathname}?${query}` : pathname;
    changeUrl(url, mode);
  }

  const [search, setSearch] = useState(filters.search ?? "");
  // Back/forward or "clear filters" changed the URL: show its search, unless it is what is typed.
  const [urlSearch, setUrlSearch] = useState(filters.search ?? "");
  if ((filters.search ?? "") !== urlSearch) {
    setUrlSearch(filters.search ?? "");
    if ((filters.search ?? "") !== search.trim()) setSearch(filters.search ?? "");
  }
  const applySearch = useEffectEvent((value: string) => apply({ search: value || undefined }, "replace"));
  useEffect(() => {
    if (search.trim() === (filters.search ?? "")) return;
    // Re-armed on every keystroke, so the list asks the server once typing pauses.
    const timer = setTimeout(() => applySearch(search.trim()), 300);
    return () => clearTimeout(timer);
  }, [search, filters.search]);

  // On a phone the filters fold under a button, so the list itself is on the first screen.
  const [showFilters, setShowFilters] = useState(false);
  const active = [filters.status, filters.ownerId, filters.waitingOn, filters.platformKey, filters.step].filter((v) => v !== undefined).length;

  const data = list.data;
  const counts = data?.countsByStep ?? {};
  const allCount = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const statusValue = filters.status?.join(",") ?? "";

  return (
    <div className="space-y-5">
      <section aria-label="Filters" className="space-y-4 rounded-lg border border-slate-200 bg-white p-4 shadow-xs">
        <form
          method="post"
          role="search"
          className="grid gap-4 md:grid-cols-3 lg:grid-cols-5"
          onSubmit={(event) => {
            event.preventDefault();
            apply({ search: search.trim() || undefined });
          }}
        >
          <Field label="Search" hint="Reference, organisation or platform">
            {(p) => <Input {...p} type="search" name="q" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="FER-1001, Acme…" />}
          </Field>
          <div className="md:hidden">
            <Button variant="secondary" size="sm" aria-expanded={showFilters} aria-controls="more-filters more-filters-steps" onClick={() => setShowFilters((v) => !v)}>
              {showFilters ? "Fewer filters" : `More filters${active ? ` (${active} on)` : ""}`}
            </Button>
          </div>
          <div id="more-filters" className={cn("contents", !showFilters && "max-md:hidden")}>
          <Field label="Status">
            {(p) => (
              <Select
                {...p}
                value={STATUS_CHOICES.some((c) => c.value === statusValue) ? statusValue : ""}
                onChange={(e) => apply({ status: e.target.value ? (e.target.value.split(",") as EngagementStatus[]) : undefined })}
              >
                {STATUS_CHOICES.map((c) => (
                  <option key={c.value} value={c.value}>
                    {c.label}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          <Field label="Owner">
            {(p) => (
              <Select {...p} value={filters.ownerId ?? ""} onChange={(e) => apply({ ownerId: e.target.value || undefined })}>
                <option value="">Anyone</option>
                {staff.data?.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          <Field label="Whose move">
            {(p) => (
              <Select {...p} value={filters.waitingOn ?? ""} onChange={(e) => apply({ waitingOn: (e.target.value || undefined) as EngagementFilters["waitingOn"] })}>
                <option value="">Anyone&apos;s</option>
                <option value="support">{waitingLabel("support")}</option>
                <option value="customer">{waitingLabel("customer")}</option>
              </Select>
            )}
          </Field>
          <Field label="Platform">
            {(p) => (
              <Select {...p} value={filters.platformKey ?? ""} onChange={(e) => apply({ platformKey: e.target.value || undefined })}>
                <option value="">Any platform</option>
                {platforms.data?.managed.map((pl) => (
                  <option key={pl.key} value={pl.key}>
                    {pl.name}
                  </option>
                ))}
              </Select>
            )}
          </Field>
          </div>
        </form>
        <div id="more-filters-steps" className={cn("flex flex-wrap items-center gap-2", !showFilters && "max-md:hidden")} role="group" aria-label="Current step">
          <StepChip label="All steps" count={allCount} pressed={!filters.step} onClick={() => apply({ step: undefined })} />
          {STEP_CHIPS.map((step) => (
            <StepChip
              key={step}
              label={step === 7 ? "All done" : `${step}. ${currentStepTitle(step)}`}
              count={counts[String(step)] ?? 0}
              pressed={filters.step === step}
              onClick={() => apply({ step: filters.step === step ? undefined : step })}
            />
          ))}
          {hasActiveFilters(filters) ? (
            <Button
              variant="ghost"
              size="sm"
              className="ml-auto"
              onClick={() => {
                setSearch("");
                changeUrl(pathname);
              }}
            >
              Clear filters
            </Button>
          ) : null}
        </div>
      </section>

      <div className="h-1" aria-hidden={!list.isFetching}>
        {list.isFetching ? <ProgressBar label="Loading engagements" size="sm" /> : null}
      </div>

      {list.error ? <Notice tone="error">{toFormError(list.error).message}</Notice> : null}

      {data && data.items.length === 0 && data.total > 0 ? (
        <EmptyState
          title={`There is no page ${data.page.toLocaleString("en-GB")}`}
          action={
            <Button variant="secondary" onClick={() => apply({ page: 1 })}>
              Go to the first page
            </Button>
          }
        >
          {data.total.toLocaleString("en-GB")} engagements match, on {Math.ceil(data.total / data.pageSize).toLocaleString("en-GB")} pages.
        </EmptyState>
      ) : null}

      {data && data.total === 0 ? (
        <EmptyState
          title={hasActiveFilters(filters) ? "No engagements match these filters" : "No engagements yet"}
          action={
            hasActiveFilters(filters) ? (
              <Button variant="secondary" onClick={() => changeUrl(pathname)}>
                Clear filters
              </Button>
            ) : (
              <Link href="/engagements/new" className="font-medium text-indigo-700 underline">
                Open the first engagement
              </Link>
            )
          }
        />
      ) : null}

      {data && data.items.length > 0 ? (
        <div className={cn("space-y-4 transition-opacity", list.isPlaceholderData && "opacity-60")}>
          <ResponsiveTable caption="Engagements" captionVisible={false} columns={COLUMNS} rows={data.items} rowKey={(e) => e.id} rowClassName={() => "hover:bg-slate-50"} stackBelow="lg" dense />
          <Pagination page={data.page} pageSize={data.pageSize} total={data.total} noun={{ one: "engagement", other: "engagements" }} onPageChange={(page) => apply({ page })} />
        </div>
      ) : null}

      {!data && list.isPending ? <p className="text-sm text-slate-600">Loading engagements…</p> : null}
    </div>
  );
}

function StepChip({ label, count, pressed, onClick }: { label: string; count: number; pressed: boolean; onClick: () => void }) {
  const hydrated = useHydrated();
  return (
    <button
      type="button"
      disabled={!hydrated}
      aria-pressed={pressed}
      onClick={onClick}
      className={cn(
        "inline-flex items-center gap-2 rounded-full px-3 py-1 text-sm ring-1 ring-inset focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600",
        pressed ? "bg-indigo-600 text-white ring-indigo-600" : "bg-white text-slate-700 ring-slate-300 hover:bg-slate-50",
      )}
    >
      {label}
      <span className={cn("rounded-full px-1.5 text-xs font-semibold tabular-nums", pressed ? "bg-indigo-500" : "bg-slate-100")}>{count.toLocaleString("en-GB")}</span>
    </button>
  );
}
