/**
 * The unions of steps 1–4 as real flows: a token-file submission's review, a proposed migration
 * window, and whose move it is. Owned by the domain (no imports); db/schema.ts imports them.
 */

/** A customer's submission of platform details and a token file, as support reviews it. */
export const SUBMISSION_STATUSES = ["submitted", "accepted", "returned", "replaced"] as const;
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];

/**
 * A migration window support proposes and the customer accepts, or declines (with a reason and
 * times that would suit, which support answers with new proposals).
 */
export const WINDOW_STATUSES = ["proposed", "accepted", "withdrawn", "superseded", "declined"] as const;
export type WindowStatus = (typeof WINDOW_STATUSES)[number];

/** A customer's request for an engagement, as support answers it. */
export const ENGAGEMENT_REQUEST_STATUSES = ["open", "accepted", "declined"] as const;
export type EngagementRequestStatus = (typeof ENGAGEMENT_REQUEST_STATUSES)[number];

/** Whose move it is on an engagement (null: nobody's, e.g. on hold or completed). */
export const WAITING_PARTIES = ["customer", "support"] as const;
export type WaitingParty = (typeof WAITING_PARTIES)[number];

/**
 * What a party's next move is, as a key the screens turn into a button: each names the place (or
 * the action) where the move is made.
 */
export const NEXT_MOVE_ACTIONS = [
  "submit_file",
  "fix_file",
  "review_submission",
  "propose_window",
  "accept_window",
  "confirm_callback",
  "confirm_syncing",
  "run_test",
  /** A single-company test or rehearsal is under way: support follows it in step 5 (nothing to start meanwhile). */
  "follow_test",
  "run_bulk",
  "produce_report",
  "acknowledge_report",
  "send_reconnect_links",
  "review_supplementary",
  /** Migrated connections dropped during the hypercare watch, not yet looked at by support. */
  "look_at_drops",
] as const;
export type NextMoveAction = (typeof NEXT_MOVE_ACTIONS)[number];

/**
 * Step 3's round trip (server/migration/callback-check): `waiting` for the customer to authorize the
 * throwaway connection; `refused` — the platform refused the redirect (the callback URL is not on the
 * customer's app), still open for another try once it is added; `proven` — the connection linked, so
 * the platform sent the authorization to the callback URL; `failed` — the service refused to make the
 * throwaway company or connection; `cancelled`.
 */
export const CALLBACK_CHECK_STATUSES = ["waiting", "refused", "proven", "failed", "cancelled"] as const;
export type CallbackCheckStatus = (typeof CALLBACK_CHECK_STATUSES)[number];
