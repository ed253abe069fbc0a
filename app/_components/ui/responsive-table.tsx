import type { ReactNode } from "react";
import { Table, TBody, Td, Th, THead, Tr } from "./table";

export type ResponsiveColumn<R> = { label: string; cell: (row: R) => ReactNode; className?: string };

/**
 * A table from `sm` up; below it (phones) each row becomes a stacked card of label and value, so
 * nothing is wider than the screen. Both carry the caption as their accessible name; only one is
 * displayed (the other is `display: none`, out of the accessibility tree).
 */
export function ResponsiveTable<R>({ caption, columns, rows, rowKey, rowProps }: { caption: string; columns: ResponsiveColumn<R>[]; rows: readonly R[]; rowKey: (row: R) => string; rowProps?: (row: R) => Record<string, string> }) {
  return (
    <>
      <div className="hidden sm:block">
        <Table caption={caption} captionVisible scrollable>
          <THead>
            <Tr>
              {columns.map((c) => (
                <Th key={c.label}>{c.label}</Th>
              ))}
            </Tr>
          </THead>
          <TBody>
            {rows.map((r) => (
              <Tr key={rowKey(r)} {...rowProps?.(r)}>
                {columns.map((c) => (
                  <Td key={c.label} className={c.className}>
                    {c.cell(r)}
                  </Td>
                ))}
              </Tr>
            ))}
          </TBody>
        </Table>
      </div>
      <div className="sm:hidden">
        <p className="mb-2 text-sm font-semibold text-slate-900">{caption}</p>
        <ul aria-label={caption} className="space-y-2">
          {rows.map((r) => (
            <li key={rowKey(r)} className="rounded-lg border border-slate-200 bg-white p-3 shadow-xs" {...rowProps?.(r)}>
              <dl className="space-y-2 text-sm">
                {columns.map((c) => (
                  <div key={c.label}>
                    <dt className="text-xs font-semibold tracking-wide text-slate-600 uppercase">{c.label}</dt>
                    <dd className="mt-0.5 min-w-0 break-words text-slate-800">{c.cell(r)}</dd>
                  </div>
                ))}
              </dl>
            </li>
          ))}
        </ul>
      </div>
    </>
  );
}
