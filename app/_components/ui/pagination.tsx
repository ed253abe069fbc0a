"use client";
import { plural, type WordForms } from "@/core/words";
import { Button } from "./button";

export type PaginationProps = {
  page: number;
  pageSize: number;
  total: number;
  onPageChange: (page: number) => void;
  /** What is being counted, in both forms: "1 engagement", "25 engagements". */
  noun?: WordForms;
};

/** Previous/next paging with a "showing x–y of n" summary. */
export function Pagination({ page, pageSize, total, onPageChange, noun = { one: "result", other: "results" } }: PaginationProps) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const last = Math.min(total, page * pageSize);
  return (
    <nav aria-label="Pagination" className="flex flex-wrap items-center justify-between gap-3 text-sm text-slate-700">
      <p aria-live="polite">
        {total === 0
          ? `No ${noun.other}`
          : total === 1
            ? `Showing 1 ${noun.one}`
            : `Showing ${first.toLocaleString("en-GB")}–${last.toLocaleString("en-GB")} of ${total.toLocaleString("en-GB")} ${plural(total, noun)}`}
      </p>
      <div className="flex items-center gap-2">
        <Button variant="secondary" size="sm" disabled={page <= 1} onClick={() => onPageChange(page - 1)}>
          Previous
        </Button>
        <span>
          Page {page.toLocaleString("en-GB")} of {pages.toLocaleString("en-GB")}
        </span>
        <Button variant="secondary" size="sm" disabled={page >= pages} onClick={() => onPageChange(page + 1)}>
          Next
        </Button>
      </div>
    </nav>
  );
}
