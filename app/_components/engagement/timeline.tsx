import { EmptyState } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import type { TimelineEntry } from "@/app/_lib/types";

/** The engagement's audit events, newest first. */
export function Timeline({ entries }: { entries: readonly TimelineEntry[] }) {
  if (!entries.length) return <EmptyState title="No activity yet" />;
  return (
    <ol className="relative space-y-4 border-l border-slate-200 pl-5" aria-label="Audit events, newest first">
      {entries.map((e) => (
        <li key={e.id} className="relative" data-action={e.action}>
          <span aria-hidden="true" className="absolute top-1.5 -left-[1.6rem] size-2.5 rounded-full bg-indigo-500 ring-4 ring-white" />
          <p className="text-sm text-slate-900">{e.summary}</p>
          <p className="mt-0.5 text-xs text-slate-600">
            {e.actor} ·{" "}
            {e.since ? (
              <>
                <time dateTime={e.since.toISOString()}>{formatDateTime(e.since)}</time> – <time dateTime={e.at.toISOString()}>{formatDateTime(e.at)}</time>
              </>
            ) : (
              <time dateTime={e.at.toISOString()}>{formatDateTime(e.at)}</time>
            )}
          </p>
        </li>
      ))}
    </ol>
  );
}
