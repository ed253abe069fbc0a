import { cn } from "./cn";
import { CopyButton } from "./copy-button";

/** An identifier cut to its first and last characters ("3fa85f64…afa6"); short ones stay whole. */
export function shortId(value: string, head = 8, tail = 4): string {
  return value.length <= head + tail + 1 ? value : `${value.slice(0, head)}…${value.slice(-tail)}`;
}

/**
 * An identifier in monospace with a copy button (hidden when printed); a dash when there is none.
 * `short`: its first and last characters on one line, the whole value on hover and for screen
 * readers (for tables, where a UUID would otherwise wrap over lines); `truncate`: cut to its box
 * (20rem at most, so a table column does not stretch to a whole URL) at the end, for values whose
 * start says most (a URL); otherwise it wraps anywhere, so a printed report shows it whole.
 */
export function CopyableId({ value, label, truncate = false, short = false }: { value: string | null; label: string; truncate?: boolean; short?: boolean }) {
  if (!value) return <span className="text-slate-400">—</span>;
  if (short) {
    return (
      <span className="inline-flex items-center gap-1 whitespace-nowrap">
        <code title={value} className="rounded bg-slate-100 px-1.5 py-0.5 text-xs print:bg-transparent print:p-0">
          <span aria-hidden="true" className="print:hidden">
            {shortId(value)}
          </span>
          <span className="sr-only print:not-sr-only">{value}</span>
        </code>
        <CopyButton value={value} label={label} className="print:hidden" />
      </span>
    );
  }
  return (
    <span className="inline-flex max-w-full items-center gap-1">
      <code title={truncate ? value : undefined} className={cn("rounded bg-slate-100 px-1.5 py-0.5 text-xs print:bg-transparent print:p-0", truncate ? "max-w-[20rem] truncate" : "break-all")}>
        {value}
      </code>
      <CopyButton value={value} label={label} className="print:hidden" />
    </span>
  );
}
