import { cn } from "./cn";
import { CopyButton } from "./copy-button";

/**
 * An identifier in monospace with a copy button (hidden when printed); a dash when there is none.
 * `truncate`: shortened to its box, the full value on hover (for narrow table columns); otherwise
 * it wraps anywhere, so a printed report shows it whole.
 */
export function CopyableId({ value, label, truncate = false }: { value: string | null; label: string; truncate?: boolean }) {
  if (!value) return <span className="text-slate-400">—</span>;
  return (
    <span className="inline-flex max-w-full items-center gap-1">
      <code title={truncate ? value : undefined} className={cn("rounded bg-slate-100 px-1.5 py-0.5 text-xs print:bg-transparent print:p-0", truncate ? "truncate" : "break-all")}>
        {value}
      </code>
      <CopyButton value={value} label={label} className="print:hidden" />
    </span>
  );
}
