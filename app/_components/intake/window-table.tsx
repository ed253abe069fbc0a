import type { ReactNode } from "react";
import { Badge, ResponsiveTable, type ResponsiveColumn } from "@/app/_components/ui";
import { formatDateTime, formatDuration } from "@/app/_lib/labels";
import type { WindowView } from "@/app/_lib/types";

const STATUS: Record<WindowView["status"], { label: string; tone: "info" | "success" | "muted" }> = {
  proposed: { label: "Proposed", tone: "info" },
  accepted: { label: "Agreed", tone: "success" },
  withdrawn: { label: "Withdrawn", tone: "muted" },
  superseded: { label: "Superseded", tone: "muted" },
  declined: { label: "Declined", tone: "muted" },
};

/** A window's calendar invite (.ics), for proposed and agreed windows. */
export function InviteLink({ engagementId, window }: { engagementId: string; window: WindowView }) {
  if (window.status !== "proposed" && window.status !== "accepted") return null;
  return (
    <a
      href={`/api/engagements/${engagementId}/windows/${window.id}/invite`}
      download
      className="text-sm font-medium text-indigo-700 underline"
    >
      {/* The name read out starts with the words shown (WCAG 2.5.3), then says which window. */}
      Calendar invite (.ics)<span className="sr-only"> for the window starting {formatDateTime(window.startsAt)}</span>
    </a>
  );
}

/** The migration windows: when, how long against the estimate, where each stands, and the viewer's actions (stacked rows on a phone). */
export function WindowTable({
  engagementId,
  windows,
  actions,
  caption = "Migration windows",
}: {
  engagementId: string;
  windows: readonly WindowView[];
  actions?: (w: WindowView) => ReactNode;
  caption?: string;
}) {
  if (!windows.length) return null;
  const columns: ResponsiveColumn<WindowView>[] = [
    {
      label: "Window (UTC)",
      title: true,
      cell: (w) => (
        <>
          <span className="block font-medium">{formatDateTime(w.startsAt)}</span>
          <span className="block text-slate-600">to {formatDateTime(w.endsAt)}</span>
          {w.note ? <span className="mt-1 block text-slate-600">“{w.note}”</span> : null}
        </>
      ),
    },
    {
      label: "Length",
      className: "whitespace-nowrap",
      cell: (w) => (
        <>
          {formatDuration(w.durationSeconds)}
          <span className="block text-xs text-slate-600">estimate {w.estimate}</span>
          {w.shorterThanEstimate && (w.status === "proposed" || w.status === "accepted") ? (
            <Badge tone="warning" className="mt-1">
              Shorter than the estimate
            </Badge>
          ) : null}
        </>
      ),
    },
    { label: "Status", cell: (w) => <Badge tone={STATUS[w.status].tone}>{STATUS[w.status].label}</Badge> },
    {
      label: "Actions",
      labelHidden: true,
      cell: (w) => (
        <div className="flex flex-wrap items-center gap-3">
          <InviteLink engagementId={engagementId} window={w} />
          {actions?.(w)}
        </div>
      ),
    },
  ];
  return (
    <ResponsiveTable caption={caption} captionVisible={false} columns={columns} rows={windows} rowKey={(w) => w.id} rowProps={(w) => ({ "data-window-status": w.status })} />
  );
}
