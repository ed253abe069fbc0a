/**
 * For each company the handover report lists: why it was not migrated, in words, and what the
 * customer must do about it. Pure, from the item's final state, the reason the engine stored, its
 * last error and its checks. (The engine's advice for support — server/migration/advice.ts — says
 * what support should do during the run; this says what the customer does after the handover.)
 *
 * The report shows the last error beside the reason (the service's or the platform's own words,
 * status and correlationId), so a reason never repeats those words: it says what happened in
 * Ferry's, and only a company without a stored error gets the engine's account as its reason.
 */
import type { MigrationItemState } from "@/core/migration/states";
import { failingDataTypes } from "./item-results";
import type { Failure } from "@/core/migration/failure";
import { countOf } from "@/core/words";
import type { ItemChecks } from "@/core/migration/item-results";
import { readTokenRefusal } from "../token-refusal-words";

export type CustomerOutcome = {
  /** Why the company is not migrated (null for a verified one). */
  reason: string | null;
  /** What the customer must do (null when nothing). */
  action: string | null;
};

export type OutcomeInput = {
  state: MigrationItemState;
  outcomeReason: string | null;
  lastError: Failure | null;
  checks: ItemChecks | null;
  attempts: number;
};

/**
 * The way back for a company that failed for another reason than its tokens (it may not exist on
 * the service, so it may have no reconnect link): the service's own connection flow.
 */
const reconnect = "ask the end customer to reconnect through the service's link flow";
const RECONNECT = `A${reconnect.slice(1)}`;
/** …or another managed migration with fresh tokens (Ferry deletes these ones at the handover). */
const OR_NEW_FILE = "or send the company's current tokens in a new token file for a follow-up migration";

const sentence = (s: string) => (/[.!?]$/.test(s.trim()) ? s.trim() : `${s.trim()}.`);


/** Fresh tokens or the end customer's consent: the two ways back for a company refused on its tokens. */
const LINK = "send the end customer the company's reconnect link";
const OR_FRESH = "or send fresh tokens for it in a supplementary file";

/**
 * What the customer does about tokens the platform refused, by the family its words name (the
 * same reading as support's advice, token-refusal-words.ts): tokens never valid call for the right
 * ones, tokens the old app replaced for syncing off and then new ones or the end customer's
 * consent, revoked ones for the end customer's consent only.
 */
function tokenAction(input: { texts: readonly (string | null | undefined)[]; duringSync: boolean }): string {
  const refusal = input.duringSync ? { family: "rotated" as const, case: "refused during the sync, probably refreshed by your old app" } : readTokenRefusal(input.texts);
  switch (refusal.family) {
    case "never_valid":
      return `The platform never accepted the tokens in your file for this company (${refusal.case}): send its tokens from the right OAuth app and account in a supplementary file, or ${LINK}.`;
    case "rotated":
      return `The platform says the tokens in your file were replaced (${refusal.case}): check that syncing in your old app is off, then ${LINK}, ${OR_FRESH}.`;
    case "revoked":
      return `The platform no longer grants access to this company (${refusal.case}): only the end customer can grant it again. Send them the company's reconnect link.`;
    case null:
      return `${LINK.charAt(0).toUpperCase()}${LINK.slice(1)}, ${OR_FRESH}.`;
    default: {
      const never: never = refusal.family;
      return never;
    }
  }
}

/** Why the platform refused the migrated tokens, and what follows from it. */
function reauthOutcome(input: OutcomeInput): CustomerOutcome {
  const e = input.lastError;
  const reason = !e
    ? sentence(input.outcomeReason ?? "The platform did not accept the migrated tokens")
    : e.kind === "auth_error_during_sync"
      ? "The platform refused the migrated tokens during the sync, so the connection needs authorizing again."
      : "The platform refused the migrated tokens when the connection was authorized, so it needs authorizing again.";
  return {
    reason,
    action: tokenAction({ texts: [input.outcomeReason, input.lastError?.error], duringSync: input.lastError?.kind === "auth_error_during_sync" }),
  };
}

/** A failed company: by what failed — the service's answer, or the data checks. */
function failedOutcome(input: OutcomeInput): CustomerOutcome {
  const e = input.lastError;
  const failing = failingDataTypes(input.checks);
  switch (e?.kind) {
    case "company_limit":
      return { reason: "The service account reached its company limit.", action: `Upgrade the service account, then ${reconnect}, ${OR_NEW_FILE}.` };
    case "account_expired":
      return { reason: "The service account's free period has expired.", action: `Renew the service account, then ${reconnect}, ${OR_NEW_FILE}.` };
    case "sync_schedule_not_allowed":
      return {
        reason: "The service account's plan does not allow the requested sync schedule.",
        action: "Remove the hourly sync schedule in the service's settings or upgrade the plan, then ask the service to sync the company again.",
      };
    case "unauthorized":
    case "forbidden":
      return {
        reason: "The service refused the API key Ferry migrated with.",
        action: `Nothing was wrong with this company's tokens: ${reconnect}, ${OR_NEW_FILE} once the service account's API key is sorted out.`,
      };
    case "bad_request":
      return {
        reason: "The service refused the company's details.",
        action: `Correct this company's row in your token file (the fields named) and send it in a new token file, or ${reconnect}.`,
      };
    case "active_connection_exists":
      return {
        reason: "The company already had an active connection on the service.",
        action: `Check that connection in the service: if it is not this end customer's, remove it and ${reconnect}.`,
      };
    default:
      break;
  }
  const authErrors = failing.get("AuthError");
  if (authErrors?.length) {
    return {
      reason: e ? "The platform refused the migrated tokens during the sync." : sentence(input.outcomeReason ?? `The platform refused the migrated tokens when syncing ${authErrors.join(", ")}`),
      action: tokenAction({ texts: [], duringSync: true }),
    };
  }
  const fetchErrors = failing.get("FetchError");
  if (fetchErrors?.length && (!e || e.kind === "sync_failed")) {
    return {
      reason: e ? "The company is connected, but the platform failed to return some of its data." : sentence(input.outcomeReason ?? `The company is connected, but the platform failed to return ${fetchErrors.join(", ")}`),
      action: "Ask the service to sync these data types again; if they keep failing, have the end customer check the company's data and permissions on the platform.",
    };
  }
  const tries = input.attempts > 1 ? ` after ${countOf(input.attempts, "failed attempt", "failed attempts")} in a row` : "";
  return {
    reason: e ? failedReason(e, tries) : sentence(input.outcomeReason ?? `The migration did not complete${tries}`),
    action: `${RECONNECT}, ${OR_NEW_FILE}.${e?.correlationId ? " If you contact the service's support, quote the correlationId." : ""}`,
  };
}

/** Why a company failed on a stored error, in Ferry's words (the error itself is shown beside it). */
function failedReason(e: Failure, tries: string): string {
  switch (e.kind) {
    case "sync_failed":
      return "Some of the company's data did not sync.";
    case "sync_timeout":
      return "The company's sync did not finish in time.";
    case "unexpected_status":
      return "The service left the connection in an unexpected state after its authorization.";
    case "timeout":
    case "network":
      return `The service did not answer${tries}.`;
    default:
      return `The service did not complete the migration${tries}.`;
  }
}

/** Why a company is where it ended, and what the customer must do about it. */
export function customerOutcome(input: OutcomeInput): CustomerOutcome {
  switch (input.state) {
    case "verified":
      return { reason: null, action: null };
    case "reauth_required":
    case "reconnect_pending":
      return reauthOutcome(input);
    case "failed":
      return failedOutcome(input);
    case "set_aside":
      return {
        reason: sentence(`Set aside by support${input.outcomeReason ? `: ${input.outcomeReason}` : ""}`),
        action: `Not migrated. If the company should still move, ${reconnect}, ${OR_NEW_FILE}; otherwise nothing.`,
      };
    case "pending":
    case "company_created":
    case "connection_created":
    case "authorized":
    case "sync_requested":
      // Not final: no report holds these (the handover waits for every company to finish).
      return { reason: null, action: null };
    default: {
      const never: never = input.state;
      return never;
    }
  }
}
