import { CopyButton } from "./copy-button";

/** An identifier in monospace with a copy button (hidden when printed); a dash when there is none. */
export function CopyableId({ value, label }: { value: string | null; label: string }) {
  if (!value) return <span className="text-slate-400">—</span>;
  return (
    <span className="inline-flex max-w-full items-center gap-1">
      <code className="rounded bg-slate-100 px-1.5 py-0.5 text-xs break-all print:bg-transparent print:p-0">{value}</code>
      <CopyButton value={value} label={label} className="print:hidden" />
    </span>
  );
}
