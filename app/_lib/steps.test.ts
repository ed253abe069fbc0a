import { describe, expect, it } from "vitest";
import { dependentSteps, reopenCascade, stepsDone } from "./steps";
import type { StepNumber, StepView } from "./types";

// The gates as the server describes them (DESIGN.md, "The six steps").
const gates: Record<StepNumber, StepNumber[]> = { 1: [], 2: [1], 3: [1], 4: [1], 5: [1, 2, 3, 4], 6: [5] };
const steps = (states: Partial<Record<StepNumber, StepView["state"]>> = {}) =>
  ([1, 2, 3, 4, 5, 6] as const).map((number) => ({ number, gates: gates[number], state: states[number] ?? "pending" }));

describe("dependentSteps", () => {
  it("follows gates transitively", () => {
    expect(dependentSteps(steps(), 1)).toEqual([2, 3, 4, 5, 6]);
    expect(dependentSteps(steps(), 3)).toEqual([5, 6]);
    expect(dependentSteps(steps(), 5)).toEqual([6]);
    expect(dependentSteps(steps(), 6)).toEqual([]);
  });
});

describe("reopenCascade", () => {
  it("lists only dependents that are not already pending", () => {
    const s = steps({ 1: "done", 2: "done", 3: "in_progress", 4: "pending" });
    expect(reopenCascade(s, 1)).toEqual([2, 3]);
    expect(reopenCascade(s, 2)).toEqual([]);
  });
});

describe("stepsDone", () => {
  it("clamps to the six steps", () => {
    expect(stepsDone(1)).toBe(0);
    expect(stepsDone(4)).toBe(3);
    expect(stepsDone(7)).toBe(6);
    expect(stepsDone(0)).toBe(0);
  });
});
