/** Starting, completing and reopening a checklist step. */
import { readSteps, type Tx } from "@/db/database";
import type { Database, Steps } from "@/db/database";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { assertOrganization, refuse } from "./access";
import { recordStatusChange } from "./change-status";
import { completesOnBehalf, currentStep, decideStepAction, statusAfterStepChange, type StepActor, type StepStates } from "./checklist";
import { loadForChange, updateStep, updateEngagement, type StepChange } from "./engagement-repository";
import { confirmationEvidence } from "./confirm/confirmation-evidence";
import type { FlowEvidence } from "@/core/engagements/evidence";
import type { EngagementStatus, StepAction, StepNumber, StepState } from "@/core/engagements/states";
import { withNotice, type NotifyDeps } from "./waiting/notify";
import { refreshWaiting, type WaitingChange } from "./waiting/refresh-waiting";
import { afterStepsReopened } from "./window/after-steps-reopened";

function pick(states: StepStates, steps: StepNumber[]): Record<string, StepState> {
  return Object.fromEntries(steps.map((s) => [String(s), states[s]]));
}

export type StepActionInput = {
  engagementId: string;
  step: StepNumber;
  action: StepAction;
  note?: string;
  reason?: string;
};

export type StepActionResult = {
  changed: StepNumber[];
  status: EngagementStatus;
  /** Whose move it now is, when the change passed it to a party (for the caller's mail). */
  waiting: WaitingChange | null;
};

/**
 * Starts, completes or reopens a step, as a person (the Start/Complete/Reopen actions). Completing
 * records the note as evidence, with the structured evidence of a confirmation (the callback URL,
 * step 4's risk as it stood); reopening resets every step gated on it and records the reason.
 * Checked before the transaction (a cheap refusal) and again inside it against the rows as they
 * are then. Returns the steps that changed.
 */
export async function actOnStep(database: Database, deps: NotifyDeps, actor: Actor, input: StepActionInput): Promise<StepActionResult> {
  const first = await readSteps(database, (tx) => loadForChange(tx, input.engagementId));
  assertOrganization(actor, first.eng.organizationId);
  const pre = decideStepAction({ role: actor.role, states: first.states, engagementStatus: first.eng.status, ...input });
  if (!pre.ok) refuse(pre);
  // Read committed: applyStepAction locks the engagement row before it decides (loadForChange).
  return database.transaction(
    function* (tx) {
      const now = new Date();
      // Locks the engagement first, so the evidence is read as the change will find it.
      yield* loadForChange(tx, input.engagementId);
      const evidence = input.action === "complete" ? yield* confirmationEvidence(tx, { engagementId: input.engagementId, step: input.step, now }) : undefined;
      return yield* withNotice(tx, deps.notify, input.engagementId, yield* applyStepAction(tx, actor, { ...input, via: "person", evidence, at: now }));
    },
    { isolation: "read committed" },
  );
}

/**
 * The same change inside the caller's transaction, for a step's own flow (accepting a
 * submission, a window, a passed test run…) with its structured evidence, or for a flow that
 * reopens a step with a reason (a reschedule, a failed test). Decided again here on the rows as
 * they are (the engagement row locked); refusals throw.
 */
export function* applyStepAction(
  tx: Tx,
  actor: Actor,
  input: StepActionInput & { via: StepActor; evidence?: FlowEvidence; at?: Date },
): Steps<StepActionResult> {
  const { eng, states } = yield* loadForChange(tx, input.engagementId);
  const d = decideStepAction({ role: actor.role, states, engagementStatus: eng.status, ...input });
  if (!d.ok) refuse(d);
  const now = input.at ?? new Date();
  const note = input.note?.trim() || undefined;
  const reason = input.reason?.trim() ?? "";
  for (const step of d.changed) {
    yield* updateStep(tx, eng.id, step, stepChange(actor, input.action, { step, acted: input.step, state: d.next[step], note, reason, flow: input.evidence }), now);
  }
  const status = statusAfterStepChange(eng.status, d.next);
  yield* updateEngagement(tx, eng.id, { currentStep: currentStep(d.next), status, ...(status !== eng.status ? { statusChangedAt: now } : {}) }, now);
  const before = { step: input.step, states: pick(states, d.changed) };
  const after = { step: input.step, states: pick(d.next, d.changed) };
  const common = { actor, targetId: `${eng.id}:${input.step}`, engagementId: eng.id, organizationId: eng.organizationId, at: now };
  switch (input.action) {
    case "start":
      yield* writeAudit(tx, { ...common, action: "step.started", before, after });
      break;
    case "complete":
      yield* writeAudit(tx, { ...common, action: "step.completed", before, after: { ...after, ...(note ? { note } : {}) } });
      break;
    case "reopen":
      yield* writeAudit(tx, { ...common, action: "step.reopened", before, after: { ...after, reason, cascade: d.changed.filter((s) => s !== input.step) } });
      break;
    default: {
      const never: never = input.action;
      return never;
    }
  }
  if (status !== eng.status) yield* recordStatusChange(tx, actor, { engagement: eng, to: status, at: now });
  if (input.action === "reopen") yield* afterStepsReopened(tx, actor, { engagementId: eng.id, steps: d.changed, at: now });
  return { changed: d.changed, status, waiting: yield* refreshWaiting(tx, eng.id, now) };
}

function stepChange(
  actor: Actor,
  action: StepAction,
  c: { step: StepNumber; acted: StepNumber; state: StepState; note?: string; reason: string; flow?: FlowEvidence },
): StepChange {
  switch (action) {
    case "start":
      return { kind: "start", state: c.state };
    case "complete":
      return {
        kind: "complete",
        state: c.state,
        completedById: actor.id,
        evidence: {
          note: c.note,
          ...(completesOnBehalf(actor.role, c.step) ? { onBehalfOfCustomer: true } : {}),
          ...(c.flow ? { flow: c.flow } : {}),
        },
      };
    case "reopen":
      return {
        kind: "reopen",
        state: c.state,
        reopenedById: actor.id,
        reason: c.step === c.acted ? c.reason : `Step ${c.acted} was reopened: ${c.reason}`,
      };
    default: {
      const never: never = action;
      return never;
    }
  }
}
