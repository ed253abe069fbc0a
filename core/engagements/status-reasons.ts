/**
 * Why an engagement went on hold or was cancelled: a short list, so the portfolio can count them,
 * and free text beside it (required with "Other"). Owned by the domain (no imports).
 */

export const HOLD_REASONS = ["customer_unavailable", "customer_it_change", "platform_issue", "service_issue", "commercial", "other"] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];

export const CANCEL_REASONS = ["customer_withdrew", "moving_self_serve", "platform_unsupported", "duplicate", "commercial", "other"] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

export const STATUS_REASONS = [...new Set([...HOLD_REASONS, ...CANCEL_REASONS])] as [HoldReason | CancelReason, ...(HoldReason | CancelReason)[]];
export type StatusReason = HoldReason | CancelReason;

export const STATUS_REASON_LABELS: Record<StatusReason, string> = {
  customer_unavailable: "Customer unavailable",
  customer_it_change: "Customer's IT or app changes",
  platform_issue: "Problem on the platform",
  service_issue: "Problem on the service (quota, outage)",
  commercial: "Commercial or contract",
  customer_withdrew: "Customer withdrew",
  moving_self_serve: "Customer migrates on its own",
  platform_unsupported: "Platform or set-up not supported",
  duplicate: "Duplicate engagement",
  other: "Other",
};

/** The reasons offered when going to `status` (none for other changes). */
export function reasonsFor(status: string): readonly StatusReason[] {
  if (status === "on_hold") return HOLD_REASONS;
  if (status === "cancelled") return CANCEL_REASONS;
  return [];
}
