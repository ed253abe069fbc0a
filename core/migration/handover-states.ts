/**
 * The handover's unions. Owned by the domain (no imports); db/schema.ts imports them.
 */

/**
 * What purged an engagement's credentials: the customer's acknowledgement of the handover report,
 * or the automatic purge a set time after the report was produced or the engagement cancelled.
 */
export const PURGE_TRIGGERS = ["handover_acknowledged", "after_handover", "after_cancellation"] as const;
export type PurgeTrigger = (typeof PURGE_TRIGGERS)[number];
