/**
 * The managed-migration checklist as one pure module: the six steps, their gates, the reopen
 * cascade, who may act on which step, the engagement status rules, and the rules on owners and
 * service targets. No I/O; the engagement operations apply what this module decides, inside one
 * transaction. Each decision comes in two parts where input is involved: whether the actor may do
 * it in this state (what screens show before anyone types), and whether the input is complete.
 */
import { isStaff, type Role } from "@/core/accounts/roles";
import {
  ALL_STEPS_DONE,
  STEP_ACTIONS,
  STEP_NUMBERS,
  type DisplayState,
  type EngagementStatus,
  type Responsible,
  type StepAction,
  type StepNumber,
  type StepState,
} from "@/core/engagements/states";
import { stepDefinition } from "@/core/engagements/steps";
import { reasonsFor, type StatusReason } from "@/core/engagements/status-reasons";
import { listText, plural } from "@/core/words";

export { isStaff, STEP_ACTIONS, STEP_NUMBERS };
export type { DisplayState, Responsible, StepAction, StepNumber };

/**
 * How each step completes. "confirmation": a person completes it (the customer confirms, or staff
 * on their behalf with a note). "flow": only its flow completes it, with structured evidence (an
 * accepted submission, an accepted window, a passed test run, a handover): nobody can click it done.
 * A flow may also own the step's start and reopen (`starts`, `reopens`: what a person is told to
 * do instead), so its records (the submission, the windows) never disagree with the step.
 */
export type StepCompletion = { by: "confirmation" } | { by: "flow"; how: string; starts?: string; reopens?: string };

export const STEP_COMPLETION: Record<StepNumber, StepCompletion> = {
  1: {
    by: "flow",
    how: "Step 1 completes when support accepts the customer's submitted details and token file.",
    starts: "Step 1 starts when the customer submits its details and token file.",
    reopens: "To reopen step 1, send the customer's submission back with a note.",
  },
  2: {
    by: "flow",
    how: "Step 2 completes when the customer accepts one of the migration windows support proposed.",
    starts: "Step 2 starts when support proposes a migration window.",
    reopens: "To reopen step 2, reschedule the accepted window with a reason.",
  },
  3: { by: "confirmation" },
  4: { by: "confirmation" },
  5: {
    by: "flow",
    how: "Step 5 completes when a single-company test passes: run it in the step's panel.",
    starts: "Step 5 starts when the single-company test is run: run it in the step's panel.",
  },
  6: {
    by: "flow",
    how: "Step 6 completes when the customer acknowledges the handover report (or support records their acknowledgement) and the credentials are purged.",
    starts: "Step 6 starts when the bulk migration is started (or the handover report produced): do it in the step's panel.",
  },
};

/** Who is asking for a step change: a person (the Start/Complete/Reopen actions) or a step's own flow. */
export type StepActor = "person" | "flow";


/** Type guard for step numbers arriving from input. */
export function isStepNumber(value: number): value is StepNumber {
  return Number.isInteger(value) && value >= 1 && value <= 6;
}

/** Every step that must be done before `step`, directly or through other gates. */
export function transitiveGates(step: StepNumber): StepNumber[] {
  const out = new Set<StepNumber>();
  const visit = (s: StepNumber) => {
    for (const g of stepDefinition(s).gates) {
      if (!out.has(g)) {
        out.add(g);
        visit(g);
      }
    }
  };
  visit(step);
  return [...out].sort((a, b) => a - b);
}

/** Every step gated on `step`, directly or transitively: what a reopen of `step` reopens. */
export function dependents(step: StepNumber): StepNumber[] {
  return STEP_NUMBERS.filter((s) => transitiveGates(s).includes(step));
}

/**
 * Who may do what to which step, as data. Staff act on every step (for a customer's step they act
 * on the customer's behalf and must say how the customer confirmed). Customers submit their
 * details (start step 1, or reopen it with a new file), accept a proposed window (complete step 2),
 * confirm steps 3 and 4, and complete step 6 by acknowledging the handover report (its flow only:
 * see STEP_COMPLETION).
 */
export const STEP_PERMISSIONS: Record<Role, Record<StepAction, readonly StepNumber[]>> = {
  admin: { start: STEP_NUMBERS, complete: STEP_NUMBERS, reopen: STEP_NUMBERS },
  support: { start: STEP_NUMBERS, complete: STEP_NUMBERS, reopen: STEP_NUMBERS },
  // A customer's new token file after acceptance reopens step 1 (through the intake flow only).
  customer: { start: [1], complete: [2, 3, 4, 6], reopen: [1] },
};

/** Whether a role may take an action on a step at all (before state and gates are considered). */
export function roleMayAct(role: Role, action: StepAction, step: StepNumber): boolean {
  return STEP_PERMISSIONS[role][action].includes(step);
}

/** Staff completing a step the customer is responsible for do it on the customer's behalf. */
export function completesOnBehalf(role: Role, step: StepNumber): boolean {
  return isStaff(role) && stepDefinition(step).responsible !== "support" && step !== 1;
}

export type StepStates = Readonly<Record<StepNumber, StepState>>;

/** All six steps pending: a new engagement. */
export function initialStates(): StepStates {
  return { 1: "pending", 2: "pending", 3: "pending", 4: "pending", 5: "pending", 6: "pending" };
}

/** The gates of `step` that are not done yet. */
export function openGates(states: StepStates, step: StepNumber): StepNumber[] {
  return stepDefinition(step).gates.filter((g) => states[g] !== "done");
}

/** The first step that is not done, or 7 when all six are done. */
export function currentStep(states: StepStates): number {
  return STEP_NUMBERS.find((s) => states[s] !== "done") ?? ALL_STEPS_DONE;
}

/** How many of the six steps are done: the one measure of progress, in lists and on pages. */
export function stepsDone(states: StepStates): number {
  return STEP_NUMBERS.filter((s) => states[s] === "done").length;
}

/** What a locked step waits for, naming only its open gates ("Waits for step 4 (Syncing disabled)."); null when it is not locked. */
export function waitsForWords(states: StepStates, step: StepNumber): string | null {
  if (displayState(states, step) !== "locked") return null;
  return `Waits for ${listText(openGates(states, step).map((s) => `step ${s} (${stepDefinition(s).title})`))}.`;
}

/** A step's state as shown: `locked` while a gate is open and nothing has happened yet. */
export function displayState(states: StepStates, step: StepNumber): DisplayState {
  if (states[step] === "pending" && openGates(states, step).length > 0) return "locked";
  return states[step];
}

export type Refusal = {
  ok: false;
  /** CONFLICT: something else under way stops it (a test already running). */
  code: "FORBIDDEN" | "PRECONDITION_FAILED" | "BAD_INPUT" | "CONFLICT";
  reason: string;
  /** For BAD_INPUT: the input field at fault. */
  field?: "note" | "reason" | "reasonCode" | "ownerId" | "itemId";
};

/** A refusal as a screen's control: offered, or not and why (the words the operation would refuse with). */
export const toControl = (refusal: Refusal | null): { allowed: boolean; reason: string | null } => ({ allowed: refusal === null, reason: refusal?.reason ?? null });

export type Decision = { ok: true; next: StepStates; changed: StepNumber[] } | Refusal;

const gateNames = (steps: StepNumber[]) =>
  steps.map((s) => `step ${s} (${stepDefinition(s).title})`).join(", ");

/**
 * The actions a person may take on a step in a state (whether each is allowed now is decided
 * separately). A step in progress was never done, so there is nothing to reopen: only Complete.
 */
export function offeredActions(state: StepState): StepAction[] {
  switch (state) {
    case "pending":
      return ["start", "complete"];
    case "in_progress":
      return ["complete"];
    case "done":
      return ["reopen"];
    default: {
      const never: never = state;
      return never;
    }
  }
}

/** The steps a reopen of `step` would change: the step and every dependent not already pending. */
export function reopenCascade(states: StepStates, step: StepNumber): StepNumber[] {
  return dependents(step).filter((d) => states[d] !== "pending");
}

type StepActionContext = {
  role: Role;
  action: StepAction;
  step: StepNumber;
  states: StepStates;
  engagementStatus: EngagementStatus;
  /** A person (the default) or the step's own flow; flow-completed steps refuse a person's Complete. */
  via?: StepActor;
};

/**
 * Whether the actor may take the action on the step now: role, engagement status, the step's
 * state and its gates. Says nothing about the input (note, reason); see `stepInputRefusal`.
 */
export function stepActionAvailability(params: StepActionContext): { ok: true } | Refusal {
  const { role, action, step, states, engagementStatus } = params;
  const title = stepDefinition(step).title;
  if (!roleMayAct(role, action, step)) {
    return { ok: false, code: "FORBIDDEN", reason: `A ${role} user cannot ${action} step ${step} (${title}).` };
  }
  if (engagementStatus !== "active") {
    return {
      ok: false,
      code: "PRECONDITION_FAILED",
      reason: `The engagement is ${statusWords(engagementStatus)}; steps can change only while it is active.`,
    };
  }
  const state = states[step];
  const flowRefusal = personRefusedByFlow(step, action, params.via ?? "person");
  switch (action) {
    case "start": {
      if (state !== "pending") {
        return { ok: false, code: "PRECONDITION_FAILED", reason: `Step ${step} (${title}) is already ${label(state)}.` };
      }
      const open = openGates(states, step);
      if (open.length) {
        return {
          ok: false,
          code: "PRECONDITION_FAILED",
          reason: `Step ${step} (${title}) cannot start before ${gateNames(open)} ${plural(open.length, { one: "is", other: "are" })} done.`,
        };
      }
      return flowRefusal ?? { ok: true };
    }
    case "complete": {
      if (state === "done") {
        return { ok: false, code: "PRECONDITION_FAILED", reason: `Step ${step} (${title}) is already done.` };
      }
      const open = openGates(states, step);
      if (open.length) {
        return {
          ok: false,
          code: "PRECONDITION_FAILED",
          reason: `Step ${step} (${title}) cannot be completed before ${gateNames(open)} ${plural(open.length, { one: "is", other: "are" })} done.`,
        };
      }
      if (flowRefusal) return flowRefusal;
      if (role === "customer" && step === 2 && state !== "in_progress") {
        return { ok: false, code: "PRECONDITION_FAILED", reason: "There is no proposed migration window to accept yet." };
      }
      return { ok: true };
    }
    case "reopen": {
      if (state === "pending") {
        return { ok: false, code: "PRECONDITION_FAILED", reason: `Step ${step} (${title}) is not started; there is nothing to reopen.` };
      }
      // A flow resets a step it owns while in progress (a submission sent back goes back to the
      // customer); a person reopens only what was done.
      if (state === "in_progress" && (params.via ?? "person") === "person") {
        return { ok: false, code: "PRECONDITION_FAILED", reason: `Step ${step} (${title}) is in progress, not done; there is nothing to reopen.` };
      }
      return flowRefusal ?? { ok: true };
    }
    default: {
      const never: never = action;
      return never;
    }
  }
}

/** A person's action on a step whose flow owns it, refused with what to do instead; null otherwise. */
export function personRefusedByFlow(step: StepNumber, action: StepAction, via: StepActor): Refusal | null {
  const completion = STEP_COMPLETION[step];
  if (completion.by !== "flow" || via !== "person") return null;
  const reason = action === "complete" ? completion.how : action === "start" ? completion.starts : completion.reopens;
  return reason ? { ok: false, code: "PRECONDITION_FAILED", reason } : null;
}

/** Whether the text an action needs is there: a note when staff confirm for the customer, a reason to reopen. */
export function stepInputRefusal(params: { role: Role; action: StepAction; step: StepNumber; note?: string; reason?: string; via?: StepActor }): Refusal | null {
  const { role, action, step } = params;
  if (action === "complete" && (params.via ?? "person") === "person" && completesOnBehalf(role, step) && !params.note?.trim()) {
    return {
      ok: false,
      code: "BAD_INPUT",
      field: "note",
      reason: `Say how the customer confirmed step ${step} (${stepDefinition(step).title}); it is recorded as evidence.`,
    };
  }
  if (action === "reopen" && !params.reason?.trim()) {
    return { ok: false, code: "BAD_INPUT", field: "reason", reason: "Give a reason for reopening the step." };
  }
  return null;
}

/**
 * Decides a step action: availability (role, engagement status, state, gates), then the input,
 * then the resulting states. `note` is the completion evidence; `reason` is why a step is reopened.
 */
export function decideStepAction(params: StepActionContext & { note?: string; reason?: string }): Decision {
  const available = stepActionAvailability(params);
  if (!available.ok) return available;
  const inputRefusal = stepInputRefusal(params);
  if (inputRefusal) return inputRefusal;
  const { action, step, states } = params;
  switch (action) {
    case "start":
      return { ok: true, next: { ...states, [step]: "in_progress" }, changed: [step] };
    case "complete":
      return { ok: true, next: { ...states, [step]: "done" }, changed: [step] };
    case "reopen": {
      const cascade = reopenCascade(states, step);
      const next: Record<StepNumber, StepState> = { ...states, [step]: "pending" };
      for (const d of cascade) next[d] = "pending";
      return { ok: true, next, changed: [step, ...cascade] };
    }
    default: {
      const never: never = action;
      return never;
    }
  }
}

/** An engagement status in words ("on hold"). */
export function statusWords(status: EngagementStatus): string {
  return status.replace("_", " ");
}

function label(state: StepState): string {
  switch (state) {
    case "pending":
      return "pending";
    case "in_progress":
      return "in progress";
    case "done":
      return "done";
    default: {
      const never: never = state;
      return never;
    }
  }
}

/**
 * Engagement status changes staff may make by hand, and whether each needs a reason. `completed`
 * is reached only by completing step 6; `cancelled` is final. Going on hold and cancelling need a
 * reason from their short list (core/engagements/status-reasons.ts).
 */
export const STATUS_TRANSITIONS: Record<EngagementStatus, readonly { to: EngagementStatus; reasonRequired: boolean }[]> = {
  active: [
    { to: "on_hold", reasonRequired: true },
    { to: "cancelled", reasonRequired: true },
  ],
  on_hold: [
    { to: "active", reasonRequired: false },
    { to: "cancelled", reasonRequired: true },
  ],
  completed: [],
  cancelled: [],
};

/** The status changes a role may make from `from` (none for customers), with their reason rule. */
export function statusChangeOptions(role: Role, from: EngagementStatus): { to: EngagementStatus; reasonRequired: boolean }[] {
  return isStaff(role) ? [...STATUS_TRANSITIONS[from]] : [];
}

/** Decides whether a manual status change is allowed (role and transition; see `statusChangeInputRefusal`). */
export function decideStatusChange(params: {
  role: Role;
  from: EngagementStatus;
  to: EngagementStatus;
}): { ok: true } | Refusal {
  if (!isStaff(params.role)) {
    return { ok: false, code: "FORBIDDEN", reason: "Only support staff can change an engagement's status." };
  }
  if (params.from === params.to) {
    return { ok: false, code: "PRECONDITION_FAILED", reason: `The engagement is already ${statusWords(params.to)}.` };
  }
  if (!STATUS_TRANSITIONS[params.from].some((t) => t.to === params.to)) {
    const why =
      params.to === "completed"
        ? "An engagement is completed by finishing step 6 (bulk migration and handover)."
        : `A ${statusWords(params.from)} engagement cannot become ${statusWords(params.to)}.`;
    return { ok: false, code: "PRECONDITION_FAILED", reason: why };
  }
  return { ok: true };
}

/**
 * Whether a status change has the reason it needs: going on hold and cancelling each take one of
 * their short list's reasons, and "Other" takes words as well.
 */
export function statusChangeInputRefusal(params: { to: EngagementStatus; reasonCode?: StatusReason; reason?: string }): Refusal | null {
  const offered = reasonsFor(params.to);
  if (!offered.length) return null;
  const why = params.to === "cancelled" ? "cancelling" : "putting it on hold";
  if (!params.reasonCode || !offered.includes(params.reasonCode)) {
    return { ok: false, code: "BAD_INPUT", field: "reasonCode", reason: `Choose a reason for ${why}.` };
  }
  if (params.reasonCode === "other" && !params.reason?.trim()) {
    return { ok: false, code: "BAD_INPUT", field: "reason", reason: `Say in a few words why: the reason is "Other".` };
  }
  return null;
}

/** Why a person cannot own an engagement. */
export const OWNER_REFUSAL: Refusal = { ok: false, code: "BAD_INPUT", field: "ownerId", reason: "The owner must be an active support user." };

/** The owner of an engagement must be an active staff member. */
export function isEligibleOwner<T extends { role: Role; active: boolean }>(owner: T | undefined): owner is T {
  return !!owner && owner.active && isStaff(owner.role);
}

/** A completed or cancelled engagement keeps the service target it migrated into. */
export function targetChangeRefusal(status: EngagementStatus): Refusal | null {
  if (status === "completed" || status === "cancelled") {
    return { ok: false, code: "PRECONDITION_FAILED", reason: `The engagement is ${status}; its service target can no longer change.` };
  }
  return null;
}

/** Whether the viewer may point the engagement at another service target now: support staff, until it is completed or cancelled. */
export function targetChangeAvailability(role: Role, status: EngagementStatus): Refusal | null {
  if (!isStaff(role)) return { ok: false, code: "FORBIDDEN", reason: "Only support staff choose service targets." };
  return targetChangeRefusal(status);
}

/** The status an engagement takes after a step change: completing step 6 completes it. */
export function statusAfterStepChange(status: EngagementStatus, next: StepStates): EngagementStatus {
  return status === "active" && next[6] === "done" ? "completed" : status;
}
