/**
 * The JSON values some columns hold whose shape belongs to no domain module: the schema files
 * (written from db/schema-description.ts) type those columns with these.
 */

/** A contact of the customer for the migration window. */
export type IntakeContact = { name: string; email: string };

/** A time the customer suggests when declining proposed windows (ISO 8601 in UTC). */
export type SuggestedWindow = { startsAt: string; endsAt: string };

/** Whose move an engagement's hold paused, and how long that move had run (milliseconds). */
export type PausedMove = { party: "customer" | "support"; elapsedMs: number };
