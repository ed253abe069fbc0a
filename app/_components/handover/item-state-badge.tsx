import { Badge, type BadgeTone } from "@/app/_components/ui";
import type { MigrationItemState } from "@/core/migration/states";
import { itemStateLabel } from "@/core/migration/state-words";

const TONE: Record<MigrationItemState, BadgeTone> = {
  pending: "neutral",
  company_created: "info",
  connection_created: "info",
  authorized: "info",
  sync_requested: "info",
  verified: "success",
  reauth_required: "warning",
  failed: "danger",
  set_aside: "muted",
  reconnect_pending: "warning",
};

/** A migration item's state as a badge. */
export function ItemStateBadge({ state }: { state: MigrationItemState }) {
  return <Badge tone={TONE[state]}>{itemStateLabel(state)}</Badge>;
}
