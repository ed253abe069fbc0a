import type { ReactNode } from "react";
import { cn } from "./cn";
import { Table, TBody, Td, Th, THead, Tr } from "./table";

export type ResponsiveColumn<R> = {
  label: string;
  cell: (row: R) => ReactNode;
  className?: string;
  /**
   * Stays in view while the table scrolls sideways inside its box: the column that names the row
   * at the start, the row's actions at the end.
   */
  sticky?: "start" | "end";
  /** On a phone, the row's title (shown first, without its label). */
  title?: boolean;
  /** The column's header is read out but not shown (an "Actions" column of buttons). */
  labelHidden?: boolean;
  /** For the header (e.g. `normal-case` for a file's own column names). */
  labelClassName?: string;
  /** On a phone, the value takes the card's whole width under its label (long text: errors, outcomes). */
  wide?: boolean;
  /** On a phone, whether the row has a value here at all (a card leaves out a line of "—"). */
  present?: (row: R) => boolean;
};

/** The classes that keep a sticky cell in place, opaque, with a line between it and what scrolls under it. */
export function stickyCell(side: "start" | "end" | undefined, header = false): string | undefined {
  if (!side) return undefined;
  return cn(
    "sticky z-10",
    header ? "bg-slate-50" : "bg-white",
    side === "start" ? "left-0 shadow-[inset_-1px_0_0_var(--color-slate-200)]" : "right-0 shadow-[inset_1px_0_0_var(--color-slate-200)]",
  );
}

/**
 * A table from `sm` (or `lg`) up, scrolling sideways in its own box when it is wider than the page (a
 * focusable region then, with its `sticky` columns kept in view); below it (phones) each row becomes a stacked card of label
 * and value, so nothing is wider than the screen. Both carry the caption as their accessible name;
 * only one is displayed (the other is `display: none`, out of the accessibility tree).
 */
export function ResponsiveTable<R>({
  caption,
  captionVisible = true,
  columns,
  rows,
  rowKey,
  rowProps,
  rowClassName,
  dense = false,
  className,
  stackBelow = "sm",
}: {
  caption: string;
  captionVisible?: boolean;
  columns: ResponsiveColumn<R>[];
  rows: readonly R[];
  rowKey: (row: R) => string;
  rowProps?: (row: R) => Record<string, string>;
  /** A row's own look (the one selected, say). */
  rowClassName?: (row: R) => string | undefined;
  /** Tighter rows, for long lists of companies read a page at a time. */
  dense?: boolean;
  /** For the table's box (e.g. print styles). */
  className?: string;
  /**
   * Below which width rows become stacked cards: phones (`sm`, the default), or also tablets and
   * narrow windows (`lg`) for a wide table whose columns all matter (the engagement list).
   */
  stackBelow?: "sm" | "lg";
}) {
  const title = columns.find((c) => c.title);
  const labelled = columns.filter((c) => c !== title && !c.labelHidden);
  const unlabelled = columns.filter((c) => c !== title && c.labelHidden);
  return (
    <>
      <div className={stackBelow === "lg" ? "hidden lg:block" : "hidden sm:block"}>
        <Table caption={caption} captionVisible={captionVisible} className={className}>
          <THead>
            <Tr>
              {columns.map((c) => (
                <Th key={c.label} className={cn(dense && "px-3", c.sticky === "end" ? "text-right" : undefined, stickyCell(c.sticky, true), c.labelClassName)}>
                  {c.labelHidden ? <span className="sr-only">{c.label}</span> : c.label}
                </Th>
              ))}
            </Tr>
          </THead>
          <TBody>
            {rows.map((r) => (
              <Tr key={rowKey(r)} className={rowClassName?.(r)} {...rowProps?.(r)}>
                {columns.map((c) => (
                  <Td key={c.label} className={cn(dense && "px-3 py-2", c.className, stickyCell(c.sticky))}>
                    {c.cell(r)}
                  </Td>
                ))}
              </Tr>
            ))}
          </TBody>
        </Table>
      </div>
      <div className={stackBelow === "lg" ? "lg:hidden" : "sm:hidden"}>
        <p className={captionVisible ? "mb-2 text-sm font-semibold text-slate-900" : "sr-only"}>{caption}</p>
        <ul aria-label={caption} className="space-y-2">
          {rows.map((r) => (
            <li key={rowKey(r)} className={cn("min-w-0 rounded-lg border border-slate-200 bg-white p-3 shadow-xs", rowClassName?.(r))} {...rowProps?.(r)}>
              {title ? <div className="mb-2 min-w-0 text-sm break-words text-slate-900">{title.cell(r)}</div> : null}
              <dl className="grid grid-cols-[minmax(0,7rem)_minmax(0,1fr)] gap-x-3 gap-y-2 text-sm">
                {labelled
                  .filter((c) => c.present?.(r) ?? true)
                  .map((c) => (
                    <div key={c.label} className="contents">
                      <dt className={cn("pt-0.5 text-xs font-semibold tracking-wide text-slate-600 uppercase", c.wide && "col-span-2", c.labelClassName)}>{c.label}</dt>
                      <dd className={cn("min-w-0 break-words text-slate-800", c.wide && "col-span-2 -mt-1.5")}>{c.cell(r)}</dd>
                    </div>
                  ))}
              </dl>
              {unlabelled.map((c) => (
                <div key={c.label} className="mt-3">
                  {c.cell(r)}
                </div>
              ))}
            </li>
          ))}
        </ul>
      </div>
    </>
  );
}
