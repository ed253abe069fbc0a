/**
 * Whose move it is on an engagement, as one pure rule over its state — to the very end: the
 * engagement's status, its steps, the current submission's review, the windows awaiting the
 * customer, and after the bulk run the handover report, the companies waiting for their end
 * customers to reconnect and a supplementary file of fresh tokens. The first step that is open
 * (not done, its gates done) decides, in step order; at step 6 and after, the last mile does.
 * Applied after every change, in the same transaction (refresh-waiting.ts); the party that gets the
 * move is mailed (notify.ts). Beside the party whose move it is, each side's own to-do is named
 * (`moves`), so a page can show its viewer what is theirs even while the other side has the move.
 */
import { openGates, type StepStates } from "../checklist";
import type { NextMoveAction, SubmissionStatus, WaitingParty } from "@/core/engagements/flow-states";
import { STEP_NUMBERS, type EngagementStatus, type StepNumber } from "@/core/engagements/states";
import type { SupplementaryStatus } from "@/core/migration/states";
import { companiesText, plural } from "@/core/words";

/** What happens after the bulk run, as the rule reads it. */
export type LastMile = {
  /** The engagement's latest bulk run has ended (completed or cancelled) and none is under way. */
  bulkRunEnded: boolean;
  /** The handover report: produced, and acknowledged. Null before it is produced. */
  handover: { acknowledged: boolean } | null;
  /** Real companies waiting for their end customers to reconnect. */
  reconnectPending: number;
  /** The current (not replaced) supplementary file's status, or null when there is none. */
  supplementary: SupplementaryStatus | null;
  /**
   * Of the companies waiting for their end customers, those whose fresh tokens are in the
   * supplementary file support has not reviewed yet: the customer has done their part for them.
   */
  freshTokensInReview?: number;
  /** Migrated connections the watch found dropped since support last marked the drops seen. */
  unseenDrops?: number;
};

export const NO_LAST_MILE: LastMile = { bulkRunEnded: false, handover: null, reconnectPending: 0, supplementary: null, freshTokensInReview: 0, unseenDrops: 0 };

/** Support's to-do while the watch has found dropped connections support has not looked at. */
function dropsMove(lm: LastMile): Move | null {
  const n = lm.unseenDrops ?? 0;
  if (n === 0) return null;
  return {
    action: "look_at_drops",
    step: 6,
    text: `${plural(n, { one: "A migrated connection", other: `${n.toLocaleString("en-GB")} migrated connections` })} dropped during the hypercare watch: look at ${plural(n, { one: "it", other: "them" })} with the customer, then mark ${plural(n, { one: "it", other: "them" })} seen.`,
  };
}

export type WaitingInput = {
  status: EngagementStatus;
  states: StepStates;
  /** The current (newest, not replaced) submission's status, or null before the first one. */
  submission: SubmissionStatus | null;
  /** Windows support proposed that the customer has not answered yet. */
  proposedWindows: number;
  /**
   * The customer's latest decline of the proposed windows, when support has proposed nothing
   * since: their reason and how many times they suggested instead.
   */
  windowDecline?: { reason: string; suggested: number } | null;
  /** A single-company test or rehearsal under way (queued or running): nothing to start until it ends. */
  testUnderWay?: { kind: "pilot" | "rehearsal"; queued: boolean } | null;
  lastMile?: LastMile;
};

/** One party's next move: what to do, in words addressed to them, and where it is done. */
export type Move = { action: NextMoveAction; text: string; step: StepNumber };

export type Waiting = {
  /** Who has the move; null when nobody has (not active, or every step done). */
  party: WaitingParty | null;
  /** The step the move is on. */
  step: StepNumber | null;
  /** What the party is to do, in words addressed to them. */
  next: string;
  /** Each side's own next move, whether or not it is the one the engagement waits on. */
  moves: Record<WaitingParty, Move | null>;
};

const NONE: Record<WaitingParty, Move | null> = { customer: null, support: null };

/**
 * The customer's to-do while companies wait for their end customers (null when none do, or when
 * every one of them has fresh tokens with support for review: that is support's move then).
 */
function reconnectMove(lm: LastMile): Move | null {
  const inReview = Math.min(lm.freshTokensInReview ?? 0, lm.reconnectPending);
  const n = lm.reconnectPending - inReview;
  if (n === 0) return null;
  const word = (one: string, other: string) => plural(n, { one, other });
  const reviewed = inReview
    ? `Fresh tokens for ${companiesText(inReview)} are with Ferry support for review. ${plural(n, { one: "One other company", other: `${n.toLocaleString("en-GB")} other companies` })}`
    : companiesText(n);
  return {
    action: "send_reconnect_links",
    step: 6,
    text: `${reviewed} ${word("was", "were")} not migrated with the tokens given and ${word("waits for its end customer", "wait for their end customers")}: send ${word("it its", "each its")} reconnect link (download ${word("it", "them")} as CSV), or send fresh tokens for ${word("it", "them")} in a supplementary file.`,
  };
}

/** Step 6 and what follows it: the bulk run, the report, reconnections, a supplementary file. */
function lastMileMoves(lm: LastMile, stepDone: boolean): Record<WaitingParty, Move | null> {
  const reconnect = reconnectMove(lm);
  const review: Move | null =
    lm.supplementary === "submitted"
      ? {
          action: "review_supplementary",
          step: 6,
          text: lm.freshTokensInReview
            ? `Review the supplementary file of fresh tokens (for ${companiesText(lm.freshTokensInReview)} waiting for their end customers), then accept it or send it back.`
            : "Review the supplementary file of fresh tokens, then accept it or send it back.",
        }
      : null;
  const drops = dropsMove(lm);
  if (stepDone) return { customer: reconnect, support: review ?? drops };
  if (lm.handover && !lm.handover.acknowledged) {
    const ack: Move = {
      action: "acknowledge_report",
      step: 6,
      text: `Read the handover report and acknowledge it.${reconnect ? ` ${reconnect.text}` : ""}`,
    };
    return { customer: ack, support: review ?? drops };
  }
  if (!lm.handover && lm.bulkRunEnded) {
    const produce: Move = {
      action: "produce_report",
      step: 6,
      text: lm.reconnectPending
        ? `Produce the handover report: ${companiesText(lm.reconnectPending)} ${plural(lm.reconnectPending, { one: "waits for its end customer", other: "wait for their end customers" })} to reconnect, which the report lists with ${plural(lm.reconnectPending, { one: "its link", other: "their links" })}.`
        : "Produce the handover report.",
    };
    return { customer: reconnect, support: review ?? drops ?? produce };
  }
  return { customer: reconnect, support: review ?? drops ?? { action: "run_bulk", step: 6, text: "Run the bulk migration and hand over." } };
}

/** The move the engagement waits on, from both sides' moves: `prefer`'s when it has one, else the other's. */
function waitingOn(moves: Record<WaitingParty, Move | null>, prefer: WaitingParty): Waiting {
  const other: WaitingParty = prefer === "support" ? "customer" : "support";
  const party = moves[prefer] ? prefer : moves[other] ? other : null;
  const move = party ? moves[party] : null;
  return { party, step: move?.step ?? null, next: move?.text ?? "Nothing: every step is done.", moves };
}

/** A person's words quoted in a move, cut short where they would crowd the panel and the mail. */
function clip(text: string, max = 140): string {
  const t = text.trim().replace(/\s+/g, " ").replace(/[.;:,!]+$/, "");
  return t.length <= max ? t : `${t.slice(0, max - 1).trimEnd()}…`;
}

/** Whose move it is, what they are to do, and each side's own next move. */
export function whoseMove(input: WaitingInput): Waiting {
  const lm = input.lastMile ?? NO_LAST_MILE;
  switch (input.status) {
    case "on_hold":
      return { party: null, step: null, next: "Nothing until the engagement is resumed.", moves: NONE };
    case "cancelled":
      return { party: null, step: null, next: "Nothing: the engagement is closed.", moves: NONE };
    case "completed": {
      // Handed over and acknowledged; companies still in their end customers' hands keep it going.
      const moves = lastMileMoves(lm, true);
      if (!moves.customer && !moves.support) return { party: null, step: null, next: "Nothing: the engagement is closed.", moves: NONE };
      return waitingOn(moves, "support");
    }
    case "active":
      break;
    default: {
      const never: never = input.status;
      return never;
    }
  }
  const open = STEP_NUMBERS.find((s) => input.states[s] !== "done" && openGates(input.states, s).length === 0);
  if (open === undefined) {
    const moves = lastMileMoves(lm, true);
    if (!moves.customer && !moves.support) return { party: null, step: null, next: "Nothing: every step is done.", moves: NONE };
    return waitingOn(moves, "support");
  }
  // The callback URL depends only on the platform (step 3 has no gate): while support has the move
  // on steps 1 and 2, adding it is the customer's own to-do beside it.
  const callbackAside: Move | null =
    open < 3 && input.states[3] !== "done" && openGates(input.states, 3).length === 0
      ? { action: "confirm_callback", step: 3, text: "Add the callback URL to the OAuth app and confirm it: it depends only on the platform, so it can be done now." }
      : null;
  const on = (party: WaitingParty, action: NextMoveAction, next: string): Waiting => ({
    party,
    step: open,
    next,
    moves: { ...NONE, ...(party === "support" && callbackAside ? { customer: callbackAside } : {}), [party]: { action, text: next, step: open } },
  });
  switch (open) {
    case 1:
      switch (input.submission) {
        case null:
        case "replaced":
          return on("customer", "submit_file", "Submit the OAuth app's details and the token file.");
        case "returned":
          return on("customer", "fix_file", "Fix the token file or details support sent back, and submit them again.");
        case "submitted":
        case "accepted":
          return on("support", "review_submission", "Review the submitted details and token file, then accept them or send them back.");
        default: {
          const never: never = input.submission;
          return never;
        }
      }
    case 2: {
      if (input.proposedWindows > 0) return on("customer", "accept_window", "Accept one of the proposed migration windows, or decline them and say what would suit.");
      const declined = input.windowDecline;
      if (!declined) return on("support", "propose_window", "Propose a migration window.");
      const suggested = declined.suggested ? ` and suggested ${plural(declined.suggested, { one: "a time", other: `${declined.suggested} times` })}` : "";
      return on("support", "propose_window", `Propose new windows: the customer declined the proposed ones (“${clip(declined.reason)}”)${suggested}.`);
    }
    case 3:
      return on("customer", "confirm_callback", "Add the callback URL to the OAuth app and confirm it.");
    case 4:
      return on("customer", "confirm_syncing", "Turn off syncing in the old app for every company in the file, and confirm it.");
    case 5: {
      const t = input.testUnderWay;
      if (!t) return on("support", "run_test", "Run the single-company test.");
      const what = t.kind === "rehearsal" ? "the rehearsal on the sandbox" : "the single-company test";
      return on("support", "follow_test", `Follow ${what} in step 5: it is ${t.queued ? "waiting for a worker" : "running"}, and nothing else can start until it ends.`);
    }
    case 6: {
      // Support has the move while anything waits on it (the run, a review of fresh tokens, the
      // report), even while the customer has the report to acknowledge: a pending support action
      // is always in support's queue. Otherwise the customer acknowledges.
      return waitingOn(lastMileMoves(lm, false), "support");
    }
    default: {
      const never: never = open;
      return never;
    }
  }
}
