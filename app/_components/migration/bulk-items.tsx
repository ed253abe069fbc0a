"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ItemStateBadge } from "@/app/_components/handover/item-state-badge";
import { FailureDetails } from "@/app/_components/migration/failure-details";
import { NameOnService } from "@/app/_components/migration/name-on-service";
import { ItemsFilterForm, useItemsFilter } from "@/app/_components/migration/items-filter";
import { Badge, CopyableId, EmptyState, Notice, Pagination, ProgressBar, Table, TBody, Td, Th, THead, Tr } from "@/app/_components/ui";
import type { RouterOutputs } from "@/app/_lib/types";
import { toFormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";
import { attemptsText } from "@/core/migration/state-words";
import { MIGRATION_ITEM_STATES, type MigrationItemState } from "@/core/migration/states";
import { BULK_POLL_MS } from "./bulk-run-view";

export type BulkItem = RouterOutputs["bulk"]["items"]["rows"][number];

const PAGE_SIZE = 25;

/**
 * The bulk run's companies a page at a time: filtered by state and searched on the server (fast at
 * 100,000), read again while the run is `live`. With `actions` each row gets the console's
 * controls (set aside, retry); without, it is the portal's read-only table.
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
          <Table caption="Companies of the bulk migration" captionVisible scrollable>
            <THead>
              <Tr>
                <Th>Company</Th>
                <Th>External ref</Th>
                <Th>State</Th>
                <Th>companyId</Th>
                <Th>connectionId</Th>
                <Th className="text-right">Attempts</Th>
                <Th>Last error</Th>
                <Th>Why it ended there</Th>
                {actions ? <Th>Actions</Th> : null}
              </Tr>
            </THead>
            <TBody>
              {data.rows.map((r) => (
                <Tr key={r.id} data-item-state={r.state}>
                  <Td className="min-w-36">
                    <span className="font-medium break-words text-slate-900">{r.name}</span>
                    {r.pilot ? (
                      <Badge tone="info" className="ml-2">
                        Pilot
                      </Badge>
                    ) : null}
                    <NameOnService name={r.name} serviceName={r.serviceName} />
                  </Td>
                  <Td className="text-sm">{r.externalRef ?? <span className="text-slate-400">—</span>}</Td>
                  <Td>
                    <ItemStateBadge state={r.state} />
                  </Td>
                  <Td className="text-xs">
                    <CopyableId value={r.companyId} label={`companyId of ${r.name}`} />
                  </Td>
                  <Td className="text-xs">
                    <CopyableId value={r.connectionId} label={`connectionId of ${r.name}`} />
                  </Td>
                  <Td className="text-right tabular-nums">{attemptsText(r.attemptsInAll, r.attempts)}</Td>
                  <Td className="min-w-48 text-xs">
                    {r.lastError ? <FailureDetails failure={r.lastError} subject={`${r.name}'s last error`} /> : <span className="text-slate-400">—</span>}
                  </Td>
                  <Td className="min-w-48 text-xs">{r.outcomeReason ?? <span className="text-slate-400">—</span>}</Td>
                  {actions ? <Td className="whitespace-nowrap">{actions(r)}</Td> : null}
                </Tr>
              ))}
            </TBody>
          </Table>
          <Pagination page={data.page} pageSize={data.pageSize} total={data.total} onPageChange={filter.setPage} noun="companies" />
        </>
      ) : null}
    </div>
  );
}
