/**
 * When a single-company test (step 5), a rehearsal on the built-in sandbox, or cancelling one is
 * allowed: the rules as one pure module, so the operations (before their transaction and again
 * inside it) and the step 5 panel (what is offered, and why not) decide the same way.
 */
import type { Role } from "@/core/accounts/roles";
import type { EngagementStatus } from "@/core/engagements/states";
import { ACTIVE_RUN_STATUSES, type MigrationItemState, type RunStatus, type TestRunKind } from "@/core/migration/states";
import { isStaff, stepActionAvailability, type Refusal, type StepStates } from "@/server/engagements/checklist";

const refused = (reason: string, code: Refusal["code"] = "PRECONDITION_FAILED"): Refusal => ({ ok: false, code, reason });
const pickAnother = (reason: string): Refusal => ({ ok: false, code: "BAD_INPUT", field: "itemId", reason });

const isActive = (status: RunStatus) => (ACTIVE_RUN_STATUSES as readonly RunStatus[]).includes(status);

export type TestRunContext = {
  role: Role;
  engagementStatus: EngagementStatus;
  states: StepStates;
  /** Why the engagement may not test against its service target (none chosen, gone, another organisation's, archived…), or null. */
  targetRefusal: string | null;
  /** The test or rehearsal still going (queued or running), or null: one at a time per engagement. */
  running: { kind: TestRunKind; status: RunStatus } | null;
  /** Real companies of the accepted token file. */
  companies: number;
};

function common(c: TestRunContext): Refusal | null {
  if (c.running) {
    const what = c.running.kind === "rehearsal" ? "rehearsal" : "single-company test";
    return refused(`A ${what} is already ${c.running.status === "queued" ? "waiting for the worker" : "running"}: wait for it to end or cancel it.`, "CONFLICT");
  }
  if (c.companies === 0) return refused("There are no companies to test yet: they come from the token file accepted in step 1.");
  return null;
}

/**
 * The single-company test: it completes step 5 when it passes, so it needs what completing step 5
 * needs (steps 1–4 done, step 5 not yet, the engagement active) and a service target this
 * engagement may use (the run copies it).
 */
export function pilotRefusal(c: TestRunContext): Refusal | null {
  if (!isStaff(c.role)) return refused("Only support staff run tests.", "FORBIDDEN");
  const step = stepActionAvailability({ role: c.role, action: "complete", step: 5, states: c.states, engagementStatus: c.engagementStatus, via: "flow" });
  if (!step.ok) return step;
  if (c.targetRefusal) return refused(c.targetRefusal);
  return common(c);
}

/** The rehearsal: simulated companies on the built-in sandbox, which never touches the checklist, so only an active engagement counts. */
export function rehearsalRefusal(c: TestRunContext): Refusal | null {
  if (!isStaff(c.role)) return refused("Only support staff run tests.", "FORBIDDEN");
  if (c.engagementStatus !== "active") return refused("A rehearsal runs only while the engagement is active.");
  return common(c);
}

export const testRefusal = (kind: TestRunKind, c: TestRunContext): Refusal | null => (kind === "pilot" ? pilotRefusal(c) : rehearsalRefusal(c));

/** Cancelling a test or rehearsal: support, while it has not ended (`run`: the one to cancel, or null when none is under way). */
export function cancelRefusal(c: { role: Role; run: { status: RunStatus } | null }): Refusal | null {
  if (!isStaff(c.role)) return refused("Only support staff cancel tests.", "FORBIDDEN");
  if (!c.run) return refused("No test or rehearsal is under way.");
  if (!isActive(c.run.status)) return refused(`The run has already ended (${c.run.status}).`);
  return null;
}

/**
 * The company to test. `chosen`: support named it (undefined: it is not one of this engagement's
 * companies), or Ferry picked the smallest testable one (undefined: none is left). `holder`: the
 * run the company is attached to now, if any — a pilot may not take a company another kind of run
 * is still migrating.
 */
export function companyRefusal(p: {
  kind: TestRunKind;
  chosen: boolean;
  item: { name: string; state: MigrationItemState } | undefined;
  holder: { kind: string; status: RunStatus } | null;
}): Refusal | null {
  if (!p.item) {
    return pickAnother(
      p.chosen ? "Choose a company of this engagement's token file." : "Every company has already failed, needs reauthorization or is set aside: choose one yourself.",
    );
  }
  if (p.chosen && p.item.state === "set_aside") return pickAnother(`${p.item.name} is set aside; choose another company.`);
  if (p.kind === "pilot" && p.holder && p.holder.kind !== "pilot" && isActive(p.holder.status)) {
    return pickAnother(`${p.item.name} is part of a ${p.holder.kind} run that is still going; choose another company.`);
  }
  return null;
}
