/** Checklist arithmetic the UI needs before asking the server (the server decides for real). */
import type { StepNumber, StepView } from "./types";

/** Steps gated on `step`, directly or through other steps: what reopening it would reset. */
export function dependentSteps(steps: readonly Pick<StepView, "number" | "gates">[], step: StepNumber): StepNumber[] {
  const gatesOf = new Map(steps.map((s) => [s.number, s.gates]));
  const dependsOn = (candidate: StepNumber, seen: Set<StepNumber>): boolean => {
    for (const gate of gatesOf.get(candidate) ?? []) {
      if (gate === step) return true;
      if (seen.has(gate)) continue;
      seen.add(gate);
      if (dependsOn(gate, seen)) return true;
    }
    return false;
  };
  return steps.map((s) => s.number).filter((n) => n !== step && dependsOn(n, new Set()));
}

/** Steps a reopen of `step` would actually change: the step and every dependent not already pending. */
export function reopenCascade(steps: readonly Pick<StepView, "number" | "gates" | "state">[], step: StepNumber): StepNumber[] {
  const stateOf = new Map(steps.map((s) => [s.number, s.state]));
  return dependentSteps(steps, step).filter((n) => stateOf.get(n) !== "pending");
}

/** How many of the six steps are done for a current step (7 means all six). */
export function stepsDone(currentStep: number): number {
  return Math.max(0, Math.min(6, currentStep - 1));
}
