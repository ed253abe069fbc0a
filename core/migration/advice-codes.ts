/** What to do next after a failure, as stable codes (the words: server/migration/advice.ts). */
export const ADVICE_CODES = [
  "token_refreshed_after_export",
  "syncing_still_on",
  "token_revoked",
  "tokens_of_another_account",
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
  "sandbox_unavailable",
  "unexpected",
] as const;
export type AdviceCode = (typeof ADVICE_CODES)[number];
