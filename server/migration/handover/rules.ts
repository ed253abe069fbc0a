/**
 * When a handover report may be produced and acknowledged: the rules as one pure module, so the
 * operations (before their transaction and again inside it) and the screens (what is offered, and
 * why not) decide the same way.
 */
import { isStaff, openGates, statusWords, type Refusal, type StepStates } from "@/server/engagements/checklist";
import { stepDefinition } from "@/core/engagements/steps";
import type { EngagementStatus } from "@/core/engagements/states";
import type { Role } from "@/core/accounts/roles";
import { FINAL_ITEM_STATES } from "@/core/migration/states";
import { itemStateLabel } from "@/core/migration/state-words";
import { countOf, plural } from "@/core/words";

const refused = (reason: string): Refusal => ({ ok: false, code: "PRECONDITION_FAILED", reason });

const FINAL = new Set<string>(FINAL_ITEM_STATES);

export type ConfirmContext = {
  engagementStatus: EngagementStatus;
  states: StepStates;
  /** Real items per state, and their total. */
  counts: Readonly<Record<string, number>>;
  total: number;
  /** A bulk run still queued, running or paused, in words ("running"), or null. */
  activeBulkRun: string | null;
  handover: { confirmedAt: Date } | null;
};

/** Why the handover report cannot be produced now, or null when it can. */
export function confirmRefusal(c: ConfirmContext): Refusal | null {
  if (c.handover) return refused("The handover report has already been produced.");
  if (c.engagementStatus !== "active") {
    return refused(`The engagement is ${statusWords(c.engagementStatus)}; the handover report can be produced only while it is active.`);
  }
  const open = openGates(c.states, 6);
  if (open.length) {
    return refused(`The handover comes after ${open.map((s) => `step ${s} (${stepDefinition(s).title})`).join(", ")}.`);
  }
  if (c.states[6] === "done") return refused("Step 6 is already done.");
  if (c.total === 0) return refused("There are no companies to hand over: the engagement has no accepted token file.");
  if (c.activeBulkRun) {
    return refused(`The bulk run is still ${c.activeBulkRun}: let it finish, or cancel it, before producing the handover report.`);
  }
  const waiting = Object.entries(c.counts).filter(([state, n]) => n > 0 && !FINAL.has(state));
  if (waiting.length) {
    const n = waiting.reduce((sum, [, k]) => sum + k, 0);
    const which = waiting.map(([state, k]) => `${k.toLocaleString("en-GB")} ${itemStateLabel(state as (typeof FINAL_ITEM_STATES)[number]).toLowerCase()}`);
    return refused(
      `${countOf(n, "company is", "companies are")} not in a final state yet (${which.join(", ")}): migrate, retry or set ${plural(n, { one: "it", other: "them" })} aside first.`,
    );
  }
  return null;
}

export type AcknowledgeContext = {
  role: Role;
  engagementStatus: EngagementStatus;
  states: StepStates;
  handover: { acknowledgedAt: Date | null } | null;
};

/** Acknowledging, or reading as a customer, a report nobody has produced yet. */
export const NOT_PRODUCED = refused("The handover report has not been produced yet.");

/** Why the viewer cannot acknowledge the report now (the note is checked separately), or null. */
export function acknowledgeRefusal(c: AcknowledgeContext): Refusal | null {
  if (!c.handover) return NOT_PRODUCED;
  if (c.handover.acknowledgedAt) return refused("The handover report has already been acknowledged.");
  if (c.engagementStatus !== "active") {
    return refused(`The engagement is ${statusWords(c.engagementStatus)}; the handover can be acknowledged only while it is active.`);
  }
  const open = openGates(c.states, 6);
  if (open.length) {
    // A step before it was reopened after the report was produced (a new test run, say).
    return refused(`The handover can be acknowledged once ${open.map((s) => `step ${s} (${stepDefinition(s).title})`).join(", ")} is done again.`);
  }
  return null;
}

/** Staff acknowledge for the customer, and must say how the customer acknowledged. */
export function acknowledgementNeedsNote(role: Role): boolean {
  return isStaff(role);
}

/** Why the acknowledgement's note is missing, or null. */
export function acknowledgementNoteRefusal(role: Role, note: string | undefined): Refusal | null {
  if (acknowledgementNeedsNote(role) && !note?.trim()) {
    return {
      ok: false,
      code: "BAD_INPUT",
      field: "note",
      reason: "Say how the customer acknowledged the report (e.g. email of 3 May); it is recorded as evidence.",
    };
  }
  return null;
}
