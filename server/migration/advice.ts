/**
 * What to do next when a company's migration did not pass, in words support can act on (and
 * quote to the customer). One place, keyed on the failure's kind, status and text, so the
 * single-company test, the bulk run and the handover report say the same thing. Pure.
 */
import type { AdviceCode } from "@/core/migration/advice-codes";
import type { PlatformError, StoredErrorKind } from "./engine/pipeline";
import { readTokenRefusal } from "./token-refusal-words";


export type Advice = {
  code: AdviceCode;
  /** What to do next, in words. */
  text: string;
  /**
   * A checklist step whose promise the failure shows broken: step 4 (syncing disabled) when the
   * old app replaced the tokens after the file was exported (the rotated family, or an AuthError
   * during the sync). The single-company test reopens it with the text.
   */
  reopenStep: 4 | null;
};

/** A failure as the advice reads it. */
export type AdviceInput = {
  kind: StoredErrorKind;
  /** The service's HTTP status, when it answered. */
  status: number | null;
  /** The service's error text, or the pipeline's account of the failure. */
  error: string;
  /** For a connection left Deauthorized: the platform's refusal. */
  platformErrors?: readonly PlatformError[] | null;
};

const advice = (code: AdviceCode, text: string, reopenStep: 4 | null = null): Advice => ({ code, text, reopenStep });

/** The way back for a company whose tokens the platform refused, once the migration has started. */
const WAY_BACK = "This company can come back by its reconnect link or by fresh tokens in a supplementary file.";

/**
 * The words for a refused authorization, by the family the platform's words name. Only tokens the
 * old app replaced break step 4's promise (syncing off), so only they reopen it; tokens that were
 * never valid blame the file's row, revoked ones the end customer's consent.
 *
 * None of them says "export a new file": a token refusal comes from authorizing the company on
 * the service, which only a single-company test or the bulk run does, and from the first of them
 * the portal refuses to replace the token file (the migration has started). The ways back named
 * instead are the company's reconnect link and a supplementary file of fresh tokens.
 */
function reauthorizationAdvice(input: AdviceInput): Advice {
  const last = input.platformErrors?.[input.platformErrors.length - 1];
  const refusal = readTokenRefusal([last?.errorMessage, input.error]);
  switch (refusal.family) {
    case "never_valid":
      return advice(
        "tokens_never_valid",
        `The platform never accepted this company's tokens (${refusal.case}): the token file's row is wrong, not the old app's syncing. Ask the customer for this company's tokens from the right OAuth app and account in a supplementary file, or to send its end customer the company's reconnect link.`,
      );
    case "rotated":
      return advice(
        "tokens_rotated",
        `The platform says this company's tokens were replaced (${refusal.case}). Ask the customer to confirm syncing is off in the old app: while it runs, it replaces the tokens of every company in the file. ${WAY_BACK}`,
        4,
      );
    case "revoked":
      return advice(
        "tokens_revoked",
        `The platform no longer grants access to this company (${refusal.case}): only the end customer can grant it again, through the company's reconnect link. Neither the token file nor the old app's syncing is at fault.`,
      );
    case null:
      return advice(
        "tokens_refused",
        `The platform refused this company's tokens without saying why in words Ferry recognises (its answer is below): check with the customer that syncing is off in the old app. ${WAY_BACK}`,
      );
    default: {
      const never: never = refusal.family;
      return never;
    }
  }
}

/** What to do about a failure (see the module comment). */
export function adviceFor(input: AdviceInput): Advice {
  switch (input.kind) {
    case "reauthorization_required":
      return reauthorizationAdvice(input);
    case "auth_error_during_sync":
      return advice(
        "syncing_still_on",
        `The platform stopped accepting the tokens during the sync: the old app is probably still syncing and refreshed them. Ask the customer to confirm syncing is off in the old app. ${WAY_BACK}`,
        4,
      );
    case "company_limit":
      return advice(
        "company_limit",
        "The service account is on a free trial with 50 companies: upgrade the account (or delete companies it no longer needs), then run the test again.",
      );
    case "unauthorized":
    case "forbidden":
      return advice(
        "api_key_refused",
        "The service target's API key is wrong or not allowed: an admin should check the key under Admin → Service targets (or choose another target), then run the test again.",
      );
    case "account_expired":
      return advice("account_expired", "The service account's free trial has expired: the customer must upgrade the account before anything can be migrated.");
    case "sync_schedule_not_allowed":
      return advice(
        "sync_schedule_not_allowed",
        "The service account is on a free trial, which does not allow hourly sync schedules: remove them from the sync settings or upgrade the account.",
      );
    case "bad_request":
      return advice(
        "credentials_refused",
        `The service refused the request as malformed (${input.error}): check this company's row in the token file against the platform's fields, then run the test again.`,
      );
    case "sync_failed":
      return advice(
        "data_types_failed",
        `${input.error} Run the test again; if the same data types fail, ask the customer to check them on the platform (permissions, broken records).`,
      );
    case "sync_timeout":
      return advice(
        "sync_too_slow",
        `${input.error} The company may hold far more data than its records hint: run the test again, or pick a smaller company.`,
      );
    case "maintenance":
      return advice("service_maintenance", "The service is down for maintenance: run the test again once it is back.");
    case "rate_limited":
    case "server_error":
    case "timeout":
    case "network":
      return advice(
        "service_unavailable",
        `The service did not answer properly, several times (${input.status ? `${input.status}: ` : ""}${input.error}): run the test again later; if it persists, quote the correlationId to the service's support.`,
      );
    case "not_found":
      return advice(
        "deleted_on_service",
        "The company or its connection no longer exists on the service (deleted outside Ferry?): pick another company for the test, or set this one aside.",
      );
    case "no_service_target":
      return advice("no_service_target", `The engagement has no service target it may use (${input.error.trim().replace(/[.;:,!]+$/, "")}): choose one on the engagement, then run the test again.`);
    case "sandbox_unavailable":
      return advice(
        "sandbox_unavailable",
        `The built-in sandbox could not be used for the rehearsal (${input.error}): check that it runs (npm start starts it) and that SANDBOX_URL and SANDBOX_ADMIN_TOKEN reach the worker.`,
      );
    case "redirected":
    case "address_refused":
      return advice(
        "target_base_url",
        `Nothing was sent on: ${input.error.trim().replace(/[.;:,!]+$/, "")}. An admin should check the service target's base URL under Admin → Service targets (or choose another target), then run the test again.`,
      );
    case "answer_too_large":
    case "data_type_not_supported":
    case "not_ready":
    case "too_many_values":
    case "active_connection_exists":
    case "method_not_allowed":
    case "unexpected":
    case "unexpected_status":
    case "internal":
      return advice(
        "unexpected",
        `The service answered in a way Ferry did not expect (${input.status ? `${input.status}: ` : ""}${input.error}): run the test again; if it repeats, quote the correlationId to the service's support.`,
      );
    default: {
      const never: never = input.kind;
      return never;
    }
  }
}
