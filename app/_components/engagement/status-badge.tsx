import { Badge, type BadgeTone } from "@/app/_components/ui";
import { statusLabel, stepStateLabel } from "@/app/_lib/labels";
import type { EngagementStatus, StepView } from "@/app/_lib/types";

const STATUS_TONE: Record<EngagementStatus, BadgeTone> = {
  active: "info",
  on_hold: "warning",
  completed: "success",
  cancelled: "muted",
};

export function StatusBadge({ status }: { status: EngagementStatus }) {
  return <Badge tone={STATUS_TONE[status]}>{statusLabel(status)}</Badge>;
}

const STATE_TONE: Record<StepView["displayState"], BadgeTone> = {
  pending: "neutral",
  in_progress: "info",
  done: "success",
  locked: "muted",
};

export function StepStateBadge({ state }: { state: StepView["displayState"] }) {
  return (
    <Badge tone={STATE_TONE[state]}>
      {state === "locked" ? (
        <svg viewBox="0 0 16 16" className="size-3" fill="currentColor" aria-hidden="true">
          <path d="M8 1a3.5 3.5 0 0 0-3.5 3.5V7H4a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h8a1 1 0 0 0 1-1V8a1 1 0 0 0-1-1h-.5V4.5A3.5 3.5 0 0 0 8 1Zm2 6V4.5a2 2 0 1 0-4 0V7h4Z" />
        </svg>
      ) : null}
      {stepStateLabel(state)}
    </Badge>
  );
}
