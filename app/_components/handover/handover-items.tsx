"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ItemsFilterForm, useItemsFilter } from "@/app/_components/migration/items-filter";
import { EmptyState, Notice, Pagination, ProgressBar } from "@/app/_components/ui";
import { toFormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";
import { FINAL_ITEM_STATES } from "@/core/migration/states";
import { HandoverTable } from "./handover-table";

type FinalState = (typeof FINAL_ITEM_STATES)[number];

const PAGE_SIZE = 25;

/**
 * The report's companies a page at a time, filtered by final state and searched on the server
 * (an engagement may hold 100,000). Staff may read it before the report exists (a preview); a
 * customer, once it is produced.
 */
export function HandoverItems({ engagementId, caption }: { engagementId: string; caption: string }) {
  const trpc = useTRPC();
  const filter = useItemsFilter<FinalState>();
  const input = { engagementId, pageSize: PAGE_SIZE, ...filter.query };
  const items = useQuery({ ...trpc.handover.items.queryOptions(input), placeholderData: keepPreviousData });
  const data = items.data;

  return (
    <div className="space-y-3">
      <ItemsFilterForm filter={filter} states={FINAL_ITEM_STATES} label="Filter the report's companies" stateLabel="Filter by final state" />
      <div className="h-1" aria-hidden={!items.isFetching}>
        {items.isFetching ? <ProgressBar label="Loading companies" size="sm" /> : null}
      </div>
      {items.error ? <Notice tone="error">{toFormError(items.error).message}</Notice> : null}
      {data && data.total === 0 ? <EmptyState title="No companies match">Try another state or search.</EmptyState> : null}
      {data && data.total > 0 ? (
        <>
          <HandoverTable rows={data.items} caption={caption} compact />
          <Pagination page={data.page} pageSize={data.pageSize} total={data.total} onPageChange={filter.setPage} noun={{ one: "company", other: "companies" }} />
        </>
      ) : null}
    </div>
  );
}
