/**
 * The migration engine's unions: one company's pipeline states, and the runs that drive them.
 * Owned by the domain (no imports); db/schema.ts imports them.
 */

/**
 * One company's migration: `pending → company_created → connection_created → authorized →
 * sync_requested → verified`, or one of the ends `reauth_required`, `failed`, `set_aside`.
 * After the bulk run a company that failed on its tokens is `reconnect_pending`: in its end
 * customer's hands, with the service's Link URL to authorize again (or fresh tokens from a
 * supplementary file); Ferry watches it and carries it on to `verified` once it is linked.
 */
export const MIGRATION_ITEM_STATES = [
  "pending",
  "company_created",
  "connection_created",
  "authorized",
  "sync_requested",
  "verified",
  "reauth_required",
  "failed",
  "set_aside",
  "reconnect_pending",
] as const;
export type MigrationItemState = (typeof MIGRATION_ITEM_STATES)[number];

/** Companies per state from counted rows: zero for every state, then the counts found. */
export function countsByState(rows: readonly { state: MigrationItemState; n: number | string }[]): Record<MigrationItemState, number> {
  const counts = Object.fromEntries(MIGRATION_ITEM_STATES.map((s) => [s, 0])) as Record<MigrationItemState, number>;
  // PostgreSQL's count(*) is a bigint, which node-postgres reads as a string.
  for (const r of rows) counts[r.state] = Number(r.n);
  return counts;
}

/**
 * States a run does not take an item out of by itself (a person may retry or set it aside; the
 * watch carries a reconnected company on).
 */
export const FINAL_ITEM_STATES = ["verified", "reauth_required", "failed", "set_aside", "reconnect_pending"] as const satisfies readonly MigrationItemState[];

/** What is watched on an engagement after its bulk run: reconnections, then the hypercare days after the handover. */
export const WATCH_STATUSES = ["watching", "ended"] as const;
export type WatchStatus = (typeof WATCH_STATUSES)[number];

/** What became of an open of a company's reconnect link (db: reconnect_link_opens). */
export const RECONNECT_LINK_OUTCOMES = ["redirected", "closed", "service_error"] as const;
export type ReconnectLinkOutcome = (typeof RECONNECT_LINK_OUTCOMES)[number];

/** A supplementary token file (fresh tokens for companies that failed on theirs), as support reviews it. */
/** `expired`: still awaiting review when the hypercare watch ended, so its fresh tokens were deleted unused. */
export const SUPPLEMENTARY_STATUSES = ["submitted", "accepted", "returned", "replaced", "expired"] as const;
export type SupplementaryStatus = (typeof SUPPLEMENTARY_STATUSES)[number];

/** What a run does: the single-company test, a rehearsal on the sandbox, the bulk migration. */
export const RUN_KINDS = ["pilot", "rehearsal", "bulk"] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export const RUN_STATUSES = ["queued", "running", "paused", "stopped", "passed", "failed", "completed", "cancelled"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * The calls that create something on the service. One is recorded on the item before it is sent
 * and cleared with its stored answer; a resumed item that still names one looks up what it may
 * have created (the company tag, the company's connections) before creating again.
 */
export const IN_FLIGHT_CALLS = ["createCompany", "createConnection"] as const;
export type InFlightCall = (typeof IN_FLIGHT_CALLS)[number];

/** The runs step 5 shows: the single-company test and its rehearsal on the sandbox. */
export const TEST_RUN_KINDS = ["pilot", "rehearsal"] as const satisfies readonly RunKind[];
export type TestRunKind = (typeof TEST_RUN_KINDS)[number];

/** Run statuses a worker still has work in (claimable when their lease is free). */
export const ACTIVE_RUN_STATUSES = ["queued", "running"] as const satisfies readonly RunStatus[];
