/**
 * The checklist's unions: engagement statuses, step numbers and states, who is responsible, and the
 * actions on a step. Owned by the domain (no imports); db/schema.ts and the DTO schemas import them.
 */

export const ENGAGEMENT_STATUSES = ["active", "on_hold", "completed", "cancelled"] as const;
export type EngagementStatus = (typeof ENGAGEMENT_STATUSES)[number];

export const STEP_STATES = ["pending", "in_progress", "done"] as const;
export type StepState = (typeof STEP_STATES)[number];

/** A step's state as shown: `locked` while a gate is open and nothing has happened yet. */
export const DISPLAY_STATES = [...STEP_STATES, "locked"] as const;
export type DisplayState = (typeof DISPLAY_STATES)[number];

export const STEP_NUMBERS = [1, 2, 3, 4, 5, 6] as const;
export type StepNumber = (typeof STEP_NUMBERS)[number];

/** The engagement's current step once all six are done. */
export const ALL_STEPS_DONE = 7;

export const RESPONSIBLE_PARTIES = ["customer", "customer_and_support", "support"] as const;
export type Responsible = (typeof RESPONSIBLE_PARTIES)[number];

export const STEP_ACTIONS = ["start", "complete", "reopen"] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];
