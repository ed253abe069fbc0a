"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { EmptyState, Field, Input, Notice, Pagination, ProgressBar, Select } from "@/app/_components/ui";
import { toFormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";
import { itemStateLabel } from "@/server/migration/handover/state-words";
import { FINAL_ITEM_STATES } from "@/server/migration/states";
import { HandoverTable } from "./handover-table";

type FinalState = (typeof FINAL_ITEM_STATES)[number];

const PAGE_SIZE = 25;

/**
 * The report's companies a page at a time, filtered by final state and searched on the server
 * (an engagement may hold 100,000). Staff read it through the console's procedures (a preview
 * before the report exists), customers through the portal's.
 */
export function HandoverItems({ engagementId, audience, caption }: { engagementId: string; audience: "staff" | "customer"; caption: string }) {
  const trpc = useTRPC();
  const [page, setPage] = useState(1);
  const [state, setState] = useState<FinalState | "">("");
  const [typed, setTyped] = useState("");
  const [search, setSearch] = useState("");
  useEffect(() => {
    // Ask the server once typing pauses.
    const timer = setTimeout(() => {
      setSearch(typed.trim());
      setPage(1);
    }, 300);
    return () => clearTimeout(timer);
  }, [typed]);

  const input = { engagementId, page, pageSize: PAGE_SIZE, state: state || undefined, search: search || undefined };
  const staff = useQuery({ ...trpc.handover.items.queryOptions(input), enabled: audience === "staff", placeholderData: keepPreviousData });
  const portal = useQuery({ ...trpc.portalHandover.items.queryOptions(input), enabled: audience === "customer", placeholderData: keepPreviousData });
  const items = audience === "staff" ? staff : portal;
  const data = items.data;

  return (
    <div className="space-y-3">
      <form
        role="search"
        aria-label="Filter the report's companies"
        className="grid gap-3 sm:grid-cols-2 print:hidden"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(typed.trim());
          setPage(1);
        }}
      >
        <Field label="Search companies" hint="Name, external reference, companyId or connectionId">
          {(p) => <Input {...p} type="search" value={typed} onChange={(e) => setTyped(e.target.value)} />}
        </Field>
        <Field label="Filter by final state">
          {(p) => (
            <Select
              {...p}
              value={state}
              onChange={(e) => {
                setState(e.target.value as FinalState | "");
                setPage(1);
              }}
            >
              <option value="">Every state</option>
              {FINAL_ITEM_STATES.map((s) => (
                <option key={s} value={s}>
                  {itemStateLabel(s)}
                </option>
              ))}
            </Select>
          )}
        </Field>
      </form>
      <div className="h-1" aria-hidden={!items.isFetching}>
        {items.isFetching ? <ProgressBar label="Loading companies" size="sm" /> : null}
      </div>
      {items.error ? <Notice tone="error">{toFormError(items.error).message}</Notice> : null}
      {data && data.total === 0 ? <EmptyState title="No companies match">Try another state or search.</EmptyState> : null}
      {data && data.total > 0 ? (
        <>
          <HandoverTable rows={data.items} caption={caption} />
          <Pagination page={data.page} pageSize={data.pageSize} total={data.total} onPageChange={setPage} noun="companies" />
        </>
      ) : null}
    </div>
  );
}
