"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { ItemStateBadge } from "@/app/_components/handover/item-state-badge";
import { CompanyTimelineList } from "@/app/_components/migration/company-timeline";
import { CompletenessBadge, CompletenessView } from "@/app/_components/migration/completeness-view";
import { FailureDetails, FailureSummary } from "@/app/_components/migration/failure-details";
import { NameOnService } from "@/app/_components/migration/name-on-service";
import { ItemsFilterForm, useItemsFilter } from "@/app/_components/migration/items-filter";
import { Badge, Button, CopyableId, Dialog, EmptyState, Notice, Pagination, ProgressBar, ResponsiveTable, type ResponsiveColumn } from "@/app/_components/ui";
import type { RouterOutputs } from "@/app/_lib/types";
import { toFormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";
import { callsText } from "@/core/migration/state-words";
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
    className: "min-w-40 max-w-56",
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
  {
    // Both ids in one column, one above the other: the table fits a laptop's width with every column in view.
    label: "Ids on the service",
    className: "whitespace-nowrap",
    present: (r) => r.companyId !== null,
    cell: (r) => (
      <span className="grid grid-cols-[auto_auto] items-center gap-x-1.5 gap-y-0.5 text-xs">
        <span className="text-slate-500">company</span>
        <CopyableId value={r.companyId} label={`companyId of ${r.name}`} short />
        <span className="text-slate-500">connection</span>
        <CopyableId value={r.connectionId} label={`connectionId of ${r.name}`} short />
      </span>
    ),
  },
  {
    // Complete, short, validation issues, not compared: in words; the details say which data types.
    label: "Data",
    className: "whitespace-nowrap",
    present: (r) => r.completeness !== null,
    cell: (r) => (r.completeness ? <CompletenessBadge verdict={r.completeness.verdict} /> : none),
  },
  // Calls, not attempts: a company that passed at once made a dozen (every request sent for it).
  { label: "Calls", className: "whitespace-nowrap tabular-nums", present: (r) => r.attemptsInAll > 0, cell: (r) => (r.attemptsInAll > 0 ? callsText(r.attemptsInAll, r.attempts) : none) },
  {
    label: "Last error",
    wide: true,
    present: (r) => r.lastError !== null,
    className: "min-w-44 max-w-60",
    cell: (r) => (r.lastError ? <FailureSummary failure={r.lastError} subject={`${r.name}'s last error`} /> : none),
  },
  {
    // Short, so the header fits: the row's details say it whole.
    label: "Why",
    wide: true,
    present: (r) => !!r.story.why,
    className: "min-w-40 max-w-52 text-xs",
    cell: (r) => (r.story.why ? <p className="line-clamp-2 break-words">{r.story.why}</p> : none),
  },
];

/**
 * The bulk run's companies a page at a time: filtered by state and searched on the server (fast at
 * 100,000), read again while the run is `live`. Each row opens its whole story (Details); with
 * `actions` it also gets the console's controls (set aside, retry), in the column kept in view at
 * the end; without, it is the portal's read-only table.
 */
export function BulkItems({ engagementId, live, actions }: { engagementId: string; live: boolean; actions?: (item: BulkItem) => ReactNode }) {
  const trpc = useTRPC();
  const filter = useItemsFilter<MigrationItemState>();
  const [opened, setOpened] = useState<BulkItem | null>(null);
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
            columns={[
              ...COLUMNS,
              {
                label: "Actions",
                labelHidden: true,
                sticky: "end",
                className: "whitespace-nowrap",
                cell: (r) => (
                  <div className="flex gap-2 sm:justify-end">
                    <Button size="sm" variant="secondary" aria-label={`Details of ${r.name}`} aria-haspopup="dialog" onClick={() => setOpened(r)}>
                      Details
                    </Button>
                    {actions?.(r)}
                  </div>
                ),
              },
            ]}
            rows={data.rows}
            rowKey={(r) => r.id}
            rowProps={(r) => ({ "data-item-state": r.state })}
            dense
          />
          <Pagination page={data.page} pageSize={data.pageSize} total={data.total} onPageChange={filter.setPage} noun={{ one: "company", other: "companies" }} />
        </>
      ) : null}
      {opened ? <ItemDetails engagementId={engagementId} item={data?.rows.find((r) => r.id === opened.id) ?? opened} onClose={() => setOpened(null)} /> : null}
    </div>
  );
}

/**
 * One company's whole story, in a drawer of its own (a row never grows): where it stands, its ids
 * and calls, the service's error with its status and correlationId, why it ended there, the family
 * of the platform's refusal, what to do, and its timeline. Read from the live page, so it follows
 * the run.
 */
function ItemDetails({ engagementId, item: r, onClose }: { engagementId: string; item: BulkItem; onClose: () => void }) {
  const rows: { term: string; detail: ReactNode }[] = [
    { term: "State", detail: <ItemStateBadge state={r.state} /> },
    ...(r.externalRef ? [{ term: "External ref", detail: <CopyableId value={r.externalRef} label={`external ref of ${r.name}`} /> }] : []),
    { term: "Name on the service", detail: r.serviceName },
    { term: "companyId", detail: <CopyableId value={r.companyId} label={`companyId of ${r.name}`} /> },
    { term: "connectionId", detail: <CopyableId value={r.connectionId} label={`connectionId of ${r.name}`} /> },
    { term: "Calls to the service", detail: r.attemptsInAll > 0 ? callsText(r.attemptsInAll, r.attempts) : "None yet" },
  ];
  return (
    <Dialog open onClose={onClose} placement="drawer" title={r.name} description={r.pilot ? "Migrated by the single-company test (the pilot)." : "A company of the bulk migration."}>
      <div className="space-y-4 text-sm">
        <dl className="grid gap-x-4 gap-y-1 sm:grid-cols-[minmax(0,9rem)_minmax(0,1fr)] sm:gap-y-2">
          {rows.map((x) => (
            <div key={x.term} className="contents">
              <dt className="text-slate-600">{x.term}</dt>
              <dd className="min-w-0 text-slate-900">{x.detail}</dd>
            </div>
          ))}
        </dl>
        {r.lastError ? (
          <section aria-labelledby={`${r.id}-error`} className="space-y-1">
            <h3 id={`${r.id}-error`} className="font-semibold text-slate-900">
              Last error
            </h3>
            <FailureDetails failure={r.lastError} subject={`${r.name}'s last error`} className="text-sm" />
          </section>
        ) : null}
        {r.completeness ? <CompletenessView completeness={r.completeness} company={r.name} /> : null}
        {r.story.why ? <Story title="Why it ended there">{r.story.why}</Story> : null}
        {r.story.refusal ? (
          <Story title="The platform's refusal">
            Tokens <strong className="font-semibold">{r.story.refusal.words}</strong>: {r.story.refusal.case}.
          </Story>
        ) : null}
        {r.story.whatToDo ? <Story title="What to do">{r.story.whatToDo}</Story> : null}
        {!r.lastError && !r.story.why && !r.story.whatToDo ? <p className="text-slate-600">Nothing went wrong with this company.</p> : null}
        <section aria-labelledby={`${r.id}-timeline`} className="space-y-2 border-t border-slate-200 pt-4">
          <h3 id={`${r.id}-timeline`} className="font-semibold text-slate-900">
            Timeline
          </h3>
          <CompanyTimelineList engagementId={engagementId} itemId={r.id} name={r.name} />
        </section>
      </div>
    </Dialog>
  );
}

function Story({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="space-y-1">
      <h3 className="font-semibold text-slate-900">{title}</h3>
      <p className="break-words text-slate-800">{children}</p>
    </section>
  );
}
