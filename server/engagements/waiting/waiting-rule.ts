/**
 * Whose move it is on an engagement, as one pure rule over its state: the engagement's status,
 * its steps, the current submission's review and the windows awaiting the customer. The first
 * step that is open (not done, its gates done) decides, in step order: the engagement waits on
 * whoever can move that step on. Applied after every change, in the same transaction
 * (refresh-waiting.ts); the party that gets the move is mailed (notify-waiting.ts).
 */
import { openGates, type StepStates } from "../checklist";
import type { SubmissionStatus, WaitingParty } from "@/core/engagements/flow-states";
import { STEP_NUMBERS, type EngagementStatus, type StepNumber } from "@/core/engagements/states";

export type WaitingInput = {
  status: EngagementStatus;
  states: StepStates;
  /** The current (newest, not replaced) submission's status, or null before the first one. */
  submission: SubmissionStatus | null;
  /** Windows support proposed that the customer has not answered yet. */
  proposedWindows: number;
};

export type Waiting = {
  /** Who has the move; null when nobody has (not active, or every step done). */
  party: WaitingParty | null;
  /** The step the move is on. */
  step: StepNumber | null;
  /** What the party is to do, in words addressed to them. */
  next: string;
};

/** Whose move it is, and what they are to do. */
export function whoseMove(input: WaitingInput): Waiting {
  switch (input.status) {
    case "on_hold":
      return { party: null, step: null, next: "Nothing until the engagement is resumed." };
    case "completed":
    case "cancelled":
      return { party: null, step: null, next: "Nothing: the engagement is closed." };
    case "active":
      break;
    default: {
      const never: never = input.status;
      return never;
    }
  }
  const open = STEP_NUMBERS.find((s) => input.states[s] !== "done" && openGates(input.states, s).length === 0);
  if (open === undefined) return { party: null, step: null, next: "Nothing: every step is done." };
  const on = (party: WaitingParty, next: string): Waiting => ({ party, step: open, next });
  switch (open) {
    case 1:
      switch (input.submission) {
        case null:
        case "replaced":
          return on("customer", "Submit the OAuth app's details and the token file.");
        case "returned":
          return on("customer", "Fix the token file or details support sent back, and submit them again.");
        case "submitted":
        case "accepted":
          return on("support", "Review the submitted details and token file, then accept them or send them back.");
        default: {
          const never: never = input.submission;
          return never;
        }
      }
    case 2:
      return input.proposedWindows > 0
        ? on("customer", "Accept one of the proposed migration windows.")
        : on("support", "Propose a migration window.");
    case 3:
      return on("customer", "Add the callback URL to the OAuth app and confirm it.");
    case 4:
      return on("customer", "Turn off syncing in the old app for every company in the file, and confirm it.");
    case 5:
      return on("support", "Run the single-company test.");
    case 6:
      return on("support", "Run the bulk migration and hand over.");
    default: {
      const never: never = open;
      return never;
    }
  }
}
