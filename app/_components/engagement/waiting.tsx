import { Badge } from "@/app/_components/ui";
import { formatDateTime, waitingLabel } from "@/app/_lib/labels";

/** Whose move it is and since when, for lists and engagement pages; `next` says what is to be done. */
export function Waiting({
  party,
  since,
  next,
  viewer,
}: {
  party: "customer" | "support" | null;
  since: Date | null;
  next?: string;
  viewer: "console" | "portal";
}) {
  if (!party) return <span className="text-slate-500">—</span>;
  const yours = viewer === "portal" ? party === "customer" : party === "support";
  return (
    <span className="inline-flex flex-col gap-0.5">
      <span>
        <Badge tone={yours ? "warning" : "muted"}>{waitingLabel(party, viewer)}</Badge>
      </span>
      {since ? <span className="text-xs whitespace-nowrap text-slate-600">since {formatDateTime(since)}</span> : null}
      {next ? <span className="text-sm text-slate-700">{next}</span> : null}
    </span>
  );
}
