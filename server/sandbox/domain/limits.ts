/**
 * Account limits (seed §8). Request-rate limits are in rate-limits.ts.
 */
import type { Plan } from "../store/store";

/** Companies a free-trial client may hold. */
export const FREE_COMPANY_LIMIT = 50;
/** Active API keys per client. */
export const API_KEY_LIMIT = 10;
/** Days a free account lives; after that every endpoint answers 402. */
export const FREE_ACCOUNT_DAYS = 365;

const DAY_MS = 86_400_000;

/** True when a free account is older than 365 days at sandbox time `now`. */
export function isAccountExpired(params: { plan: Plan; createdAt: number; now: number }): boolean {
  return params.plan === "free" && params.now - params.createdAt > FREE_ACCOUNT_DAYS * DAY_MS;
}
