"use client";
import { useEffect, useState } from "react";
import { Field, Input, Select } from "@/app/_components/ui";
import { itemStateLabel } from "@/core/migration/state-words";
import type { MigrationItemState } from "@/core/migration/states";

/** How long typing must pause before the search goes to the server. */
const SEARCH_DEBOUNCE_MS = 300;

/**
 * A page of migration items' filter as the screens keep it: the page, a state, and a search sent
 * to the server once typing pauses (any change goes back to page 1).
 */
export function useItemsFilter<S extends MigrationItemState>() {
  const [page, setPage] = useState(1);
  const [state, setStateValue] = useState<S | "">("");
  const [typed, setTyped] = useState("");
  const [search, setSearchValue] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => {
      setSearchValue(typed.trim());
      setPage(1);
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [typed]);
  return {
    page,
    setPage,
    state,
    setState: (next: S | "") => {
      setStateValue(next);
      setPage(1);
    },
    typed,
    setTyped,
    search,
    /** Sends what is typed now (Enter in the search box). */
    searchNow: () => {
      setSearchValue(typed.trim());
      setPage(1);
    },
    /** The query's filter part: empty values left out. */
    query: { page, state: state || undefined, search: search || undefined },
  };
}

export type ItemsFilter<S extends MigrationItemState> = ReturnType<typeof useItemsFilter<S>>;

/** The search box and state select over a page of migration items (a search landmark). */
export function ItemsFilterForm<S extends MigrationItemState>({
  filter,
  states,
  label,
  stateLabel,
}: {
  filter: ItemsFilter<S>;
  states: readonly S[];
  /** The landmark's name, e.g. "Filter the report's companies". */
  label: string;
  /** The select's label, e.g. "Filter by final state". */
  stateLabel: string;
}) {
  return (
    <form
      role="search"
      aria-label={label}
      className="grid gap-3 sm:grid-cols-2 print:hidden"
      onSubmit={(event) => {
        event.preventDefault();
        filter.searchNow();
      }}
    >
      <Field label="Search companies" hint="Name, external reference, companyId or connectionId">
        {(p) => <Input {...p} type="search" value={filter.typed} onChange={(e) => filter.setTyped(e.target.value)} />}
      </Field>
      <Field label={stateLabel}>
        {(p) => (
          <Select {...p} value={filter.state} onChange={(e) => filter.setState(e.target.value as S | "")}>
            <option value="">Every state</option>
            {states.map((s) => (
              <option key={s} value={s}>
                {itemStateLabel(s)}
              </option>
            ))}
          </Select>
        )}
      </Field>
    </form>
  );
}
