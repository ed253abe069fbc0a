/** A stored window as the screens show it. */
import { formatDuration } from "@/core/format";
import type { WindowRow } from "./window-repository";
import type { WindowView } from "@/core/engagements/window-schemas";

/** The window with its length, its estimate in words and whether it is shorter than the estimate. */
export function windowView(row: WindowRow, people: Map<string, { id: string; name: string }>): WindowView {
  const person = (id: string | null) => (id ? (people.get(id) ?? null) : null);
  const durationSeconds = Math.round((row.endsAt.getTime() - row.startsAt.getTime()) / 1000);
  return {
    id: row.id,
    status: row.status,
    startsAt: row.startsAt,
    endsAt: row.endsAt,
    durationSeconds,
    estimateSeconds: row.estimateSeconds,
    estimate: formatDuration(row.estimateSeconds),
    shorterThanEstimate: durationSeconds < row.estimateSeconds,
    note: row.note,
    proposedBy: person(row.proposedById),
    proposedAt: row.proposedAt,
    decidedBy: person(row.decidedById),
    decidedAt: row.decidedAt,
  };
}
