import { cn } from "./cn";
import { CopyButton } from "./copy-button";

/** An identifier cut to its first and last characters ("3fa85f64…afa6"); short ones stay whole. */
export function shortId(value: string, head = 8, tail = 4): string {
  return value.length <= head + tail + 1 ? value : `${value.slice(0, head)}…${value.slice(-tail)}`;
}

/**
 * A link cut to the end that tells it apart ("…/company/3fa85f64…afa6"): every reconnect link
 * starts with the same host, so its start says nothing about which company it is for.
 */
export function urlTail(value: string): string {
  let path: string;
  try {
    path = new URL(value).pathname;
  } catch {
    return shortId(value, 12, 12);
  }
  const parts = path.split("/").filter(Boolean);
  if (!parts.length) return value;
  return `…/${parts.slice(-2).map((p) => shortId(p)).join("/")}`;
}

/** Identifiers up to this long stay on one line (an external ref such as "CRM-1007" never breaks inside). */
const WHOLE_UP_TO = 40;

/**
 * An identifier in monospace with a copy button (hidden when printed); a dash when there is none.
 * `short`: its first and last characters on one line, the whole value on hover and for screen
 * readers (for tables, where a UUID would otherwise wrap over lines); `truncate`: cut to its box
 * (20rem at most, so a table column does not stretch to a whole URL) at the end, for values whose
 * start says most (a URL); otherwise a short one stays on one line and a long one wraps anywhere,
 * so a printed report shows it whole.
 */
export function CopyableId({
  value,
  label,
  truncate = false,
  short = false,
  tail = false,
}: {
  value: string | null;
  label: string;
  truncate?: boolean;
  short?: boolean;
  /** A link shown by the end that tells it apart (see urlTail), the whole on hover, to screen readers and in the copy. */
  tail?: boolean;
}) {
  if (!value) return <span className="text-slate-400">—</span>;
  if (short || tail) {
    return (
      <span className="inline-flex items-center gap-1 whitespace-nowrap">
        <code title={value} className="rounded bg-slate-100 px-1.5 py-0.5 text-xs print:bg-transparent print:p-0">
          <span aria-hidden="true" className="print:hidden">
            {tail ? urlTail(value) : shortId(value)}
          </span>
          <span className="sr-only print:not-sr-only">{value}</span>
        </code>
        <CopyButton value={value} label={label} className="print:hidden" />
      </span>
    );
  }
  return (
    <span className="inline-flex max-w-full items-center gap-1">
      <code
        title={truncate ? value : undefined}
        className={cn(
          "rounded bg-slate-100 px-1.5 py-0.5 text-xs print:bg-transparent print:p-0",
          truncate ? "max-w-[20rem] truncate" : value.length <= WHOLE_UP_TO ? "whitespace-nowrap" : "break-all",
        )}
      >
        {value}
      </code>
      <CopyButton value={value} label={label} className="print:hidden" />
    </span>
  );
}
