/**
 * Migration item states in words, for screens, mail, the timeline and the handover report (pure:
 * the browser imports it too).
 */
import { FINAL_ITEM_STATES, type MigrationItemState } from "./states";
import type { PurgeTrigger } from "./handover-states";
import { plural } from "../words";

/** A state as a label ("Reauthorization required"). */
export function itemStateLabel(state: MigrationItemState): string {
  switch (state) {
    case "pending":
      return "Pending";
    case "company_created":
      return "Company created";
    case "connection_created":
      return "Connection created";
    case "authorized":
      return "Authorized";
    case "sync_requested":
      return "Sync requested";
    case "verified":
      return "Verified";
    case "reauth_required":
      return "Reauthorization required";
    case "failed":
      return "Failed";
    case "set_aside":
      return "Set aside";
    case "reconnect_pending":
      return "Reconnection pending";
    default: {
      const never: never = state;
      return never;
    }
  }
}

/** Counts per final state in words, in the states' order, zeros left out: "117 verified, 3 reauthorization required". */
export function finalCountsInWords(counts: Readonly<Record<string, number>>): string {
  const parts = FINAL_ITEM_STATES.filter((s) => (counts[s] ?? 0) > 0).map((s) => `${(counts[s] ?? 0).toLocaleString("en-GB")} ${itemStateLabel(s).toLowerCase()}`);
  return parts.length ? parts.join(", ") : "none";
}

/** What purged the credentials, in words: "when the report was acknowledged". */
export function purgeTriggerWords(trigger: PurgeTrigger): string {
  switch (trigger) {
    case "handover_acknowledged":
      return "when the report was acknowledged";
    case "after_handover":
      return "automatically, as the report was not acknowledged in time";
    case "after_cancellation":
      return "automatically after the engagement was cancelled";
    default: {
      const never: never = trigger;
      return never;
    }
  }
}

/**
 * A company's calls to the service: every request sent for it (a migration that passed at once
 * makes a dozen), and the failures in a row at its last call where there are any — "12 calls",
 * "9 calls, the last 5 failed". Calls, not attempts: 12 read as twelve tries of a company that
 * passed the first time.
 */
export function callsText(inAll: number, failedInARow: number): string {
  const all = `${inAll.toLocaleString("en-GB")} ${plural(inAll, { one: "call", other: "calls" })}`;
  if (failedInARow <= 0) return all;
  return failedInARow === 1 ? `${all}, the last one failed` : `${all}, the last ${failedInARow.toLocaleString("en-GB")} failed`;
}
