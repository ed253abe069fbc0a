/**
 * The whole story of one company of the bulk run, for the row that opens in its table: why it
 * ended where it is (Ferry's words beside the service's error, never repeating them), the family
 * of the platform's refusal when it refused the tokens, and what to do — support's next step in
 * the console (advice.ts), the customer's in the portal (the handover's customer actions). Pure.
 */
import type { Failure } from "@/core/migration/failure";
import type { ItemChecks } from "@/core/migration/item-results";
import type { MigrationItemState } from "@/core/migration/states";
import { adviceFor } from "../advice";
import type { PlatformError, StoredErrorKind } from "../engine/pipeline";
import { customerOutcome } from "../handover/customer-actions";
import { FAMILY_WORDS, readTokenRefusal } from "../token-refusal-words";

export type ItemStory = {
  /** Why it ended there, in Ferry's words (null while it is on its way, or verified). */
  why: string | null;
  /** The platform refused the tokens: the family (what the tokens are) and the case it named. */
  refusal: { family: "never_valid" | "rotated" | "revoked"; words: string; case: string } | null;
  /** What to do next: support's step in the console, the customer's in the portal. */
  whatToDo: string | null;
};

/** States in which a company's tokens were refused (or it went back to its end customer for them). */
const TOKEN_STATES: readonly MigrationItemState[] = ["reauth_required", "reconnect_pending"];

/** The platform's own words in the checks the engine stored (the refused authorization's errors), read leniently. */
export function platformErrorsOf(rawChecks: unknown): PlatformError[] {
  const errors = (rawChecks as { connection?: { errors?: unknown } } | null)?.connection?.errors;
  if (!Array.isArray(errors)) return [];
  return errors
    .filter((e): e is Record<string, unknown> => !!e && typeof e === "object")
    .map((e) => ({
      statusCode: typeof e.statusCode === "string" ? e.statusCode : null,
      statusText: typeof e.statusText === "string" ? e.statusText : null,
      errorMessage: typeof e.errorMessage === "string" ? e.errorMessage : null,
    }));
}

/** Support's advice for the stored failure, or null when the kind is one this Ferry does not know. */
function supportAdvice(error: Failure, platformErrors: readonly PlatformError[]): string | null {
  if (!error.kind) return null;
  const advice: unknown = adviceFor({ kind: error.kind as StoredErrorKind, status: error.status, error: error.error, platformErrors });
  return advice && typeof advice === "object" && "text" in advice && typeof advice.text === "string" ? advice.text : null;
}

/** The story of a company (see ItemStory), for `viewer`. */
export function itemStory(input: {
  state: MigrationItemState;
  outcomeReason: string | null;
  lastError: Failure | null;
  checks: ItemChecks | null;
  platformErrors: readonly PlatformError[];
  attempts: number;
  viewer: "staff" | "customer";
}): ItemStory {
  const e = input.lastError;
  const outcome = customerOutcome({ state: input.state, outcomeReason: input.outcomeReason, lastError: e, checks: input.checks, attempts: input.attempts });
  // The engine's own account where it says more than the error; else Ferry's words for the state.
  const own = input.outcomeReason && !(e?.error && input.outcomeReason.includes(e.error)) ? input.outcomeReason : null;
  const why = own ?? outcome.reason;
  const tokenTrouble = TOKEN_STATES.includes(input.state) || e?.kind === "reauthorization_required" || e?.kind === "auth_error_during_sync";
  const reading = tokenTrouble ? readTokenRefusal([input.platformErrors.at(-1)?.errorMessage, e?.error, input.outcomeReason]) : null;
  const refusal = reading?.family && reading.case ? { family: reading.family, words: FAMILY_WORDS[reading.family], case: reading.case } : null;
  const whatToDo = input.viewer === "staff" && e ? (supportAdvice(e, input.platformErrors) ?? outcome.action) : outcome.action;
  return { why, refusal, whatToDo };
}
