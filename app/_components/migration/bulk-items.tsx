"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ItemStateBadge } from "@/app/_components/handover/item-state-badge";
import { FailureSummary } from "@/app/_components/migration/failure-details";
import { NameOnService } from "@/app/_components/migration/name-on-service";
import { ItemsFilterForm, useItemsFilter } from "@/app/_components/migration/items-filter";
import { Badge, CopyableId, EmptyState, Notice, Pagination, ProgressBar, ResponsiveTable, type ResponsiveColumn } from "@/app/_components/ui";
import type { RouterOutputs } from "@/app/_lib/types";
import { toFormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";
import { attemptsText } from "@/core/migration/state-words";
import { MIGRATION_ITEM_STATES, type MigrationItemState } from "@/core/migration/states";
import { BULK_POLL_MS } from "./bulk-run-view";

export type BulkItem = RouterOutputs["bulk"]["items"]["rows"][number];

const PAGE_SIZE = 25;

const none = <span className="text-slate-400">—</span>;

/** One line per id and state; the company stays in view while the rest scrolls sideways. */
const COLUMNS: ResponsiveColumn<BulkItem>[] = [
  {
    label: "Company",
    sticky: "start",
    title: true,
    className: "min-w-44 max-w-64",
    cell: (r) => (
      <>
        <span className="font-medium break-words text-slate-900">{r.name}</span>
        {r.pilot ? (
          <Badge tone="info" className="ml-2">
            Pilot
          </Badge>
        ) : null}
        <NameOnService name={r.name} serviceName={r.serviceName} />
        {r.externalRef ? (
          <span className="block text-xs text-slate-600">
            <span className="sr-only">External ref </span>
            {r.externalRef}
          </span>
        ) : null}
      </>
    ),
  },
  { label: "State", className: "whitespace-nowrap", cell: (r) => <ItemStateBadge state={r.state} /> },
  { label: "companyId", className: "whitespace-nowrap", present: (r) => r.companyId !== null, cell: (r) => <CopyableId value={r.companyId} label={`companyId of ${r.name}`} short /> },
  { label: "connectionId", className: "whitespace-nowrap", present: (r) => r.connectionId !== null, cell: (r) => <CopyableId value={r.connectionId} label={`connectionId of ${r.name}`} short /> },
  { label: "Attempts", className: "text-right tabular-nums", present: (r) => r.attemptsInAll > 0, cell: (r) => attemptsText(r.attemptsInAll, r.attempts) },
  {
    label: "Last error",
    wide: true,
    present: (r) => r.lastError !== null,
    className: "min-w-52 max-w-72",
    cell: (r) => (r.lastError ? <FailureSummary failure={r.lastError} subject={`${r.name}'s last error`} /> : none),
  },
  {
    label: "Why it ended there",
    wide: true,
    present: (r) => !!r.outcomeReason,
    className: "min-w-44 max-w-64 text-xs",
    cell: (r) =>
      r.outcomeReason ? (
        <p className="line-clamp-2 break-words" title={r.outcomeReason}>
          {r.outcomeReason}
        </p>
      ) : (
        none
      ),
  },
];

/**
 * The bulk run's companies a page at a time: filtered by state and searched on the server (fast at
 * 100,000), read again while the run is `live`. With `actions` each row gets the console's
 * controls (set aside, retry), in a column kept in view at the end while a row of the page has
 * one; without, it is the portal's read-only table.
 */
export function BulkItems({ engagementId, live, actions }: { engagementId: string; live: boolean; actions?: (item: BulkItem) => ReactNode }) {
  const trpc = useTRPC();
  const filter = useItemsFilter<MigrationItemState>();
  const input = { engagementId, pageSize: PAGE_SIZE, ...filter.query };
  const options = { placeholderData: keepPreviousData, refetchInterval: live ? BULK_POLL_MS : false } as const;
  const items = useQuery(trpc.bulk.items.queryOptions(input, options));
  const data = items.data;
  // A poll's refetch is not "loading": only a change of filter or page shows the bar.
  const loading = items.isFetching && (items.isPlaceholderData || !data);

  return (
    <div className="space-y-3">
      <ItemsFilterForm filter={filter} states={MIGRATION_ITEM_STATES} label="Filter the bulk run's companies" stateLabel="Filter by state" />
      <div className="h-1" aria-hidden={!loading}>
        {loading ? <ProgressBar label="Loading companies" size="sm" /> : null}
      </div>
      {items.error ? <Notice tone="error">{toFormError(items.error).message}</Notice> : null}
      {data && data.total === 0 ? <EmptyState title="No companies match">Try another state or search.</EmptyState> : null}
      {data && data.total > 0 ? (
        <>
          <ResponsiveTable
            caption="Companies of the bulk migration"
            columns={actions && data.rows.some((r) => r.canRetry || r.canSetAside) ? [...COLUMNS, { label: "Actions", labelHidden: true, sticky: "end", className: "whitespace-nowrap", cell: actions }] : COLUMNS}
            rows={data.rows}
            rowKey={(r) => r.id}
            rowProps={(r) => ({ "data-item-state": r.state })}
            dense
          />
          <Pagination page={data.page} pageSize={data.pageSize} total={data.total} onPageChange={filter.setPage} noun="companies" />
        </>
      ) : null}
    </div>
  );
}
