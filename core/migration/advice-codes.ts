/** What to do next after a failure, as stable codes (the words: server/migration/advice.ts). */
export const ADVICE_CODES = [
  /** The platform never accepted these tokens for this app and account (not issued, malformed, another app or account). */
  "tokens_never_valid",
  /** The tokens were good once and were replaced: the old app refreshed them after the export, or they were already exchanged. */
  "tokens_rotated",
  /** The end customer disconnected or uninstalled the app, or the token expired: only they can grant access again. */
  "tokens_revoked",
  /** The platform refused the tokens in words that name none of the three families. */
  "tokens_refused",
  "syncing_still_on",
  "credentials_refused",
  "company_limit",
  "api_key_refused",
  "account_expired",
  "sync_schedule_not_allowed",
  "data_types_failed",
  "sync_too_slow",
  "service_unavailable",
  "service_maintenance",
  "deleted_on_service",
  "no_service_target",
  /** The target redirected, or its address is one no target may reach: its base URL needs an admin. */
  "target_base_url",
  "sandbox_unavailable",
  "unexpected",
  // Codes earlier versions stored in finished test runs: still read, no longer given (every
  // invalid_grant was taken for a refresh after the export; the families above tell them apart).
  "token_refreshed_after_export",
  "token_revoked",
  "tokens_of_another_account",
] as const;
export type AdviceCode = (typeof ADVICE_CODES)[number];
