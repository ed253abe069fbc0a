import { describe, expect, it } from "vitest";
import type { Role } from "@/core/accounts/roles";
import type { EngagementStatus, StepState } from "@/core/engagements/states";
import { currentStep, decideStatusChange, isEligibleOwner, offeredActions, reopenCascade, stepActionAvailability, statusChangeInputRefusal, statusChangeOptions, stepInputRefusal, stepsDone, targetChangeRefusal, decideStepAction, dependents, displayState, initialStates, roleMayAct, statusAfterStepChange, STEP_ACTIONS, STEP_COMPLETION, STEP_NUMBERS, transitiveGates, waitsForWords, type StepAction, type StepActor, type StepNumber, type StepStates } from "./checklist";
import { STEPS } from "@/core/engagements/steps";

const ROLES: Role[] = ["admin", "support", "customer"];
const STATUSES: EngagementStatus[] = ["active", "on_hold", "completed", "cancelled"];

/** States with the given steps done and the rest pending. */
function doneUpTo(done: StepNumber[], overrides: Partial<Record<StepNumber, StepState>> = {}): StepStates {
  const s: Record<StepNumber, StepState> = { ...initialStates() };
  for (const n of done) s[n] = "done";
  return { ...s, ...overrides };
}

/** A step action as it arrives: a person's, or through the step's own flow where a flow owns it. */
const act = (p: {
  role?: Role;
  action: StepAction;
  step: StepNumber;
  states: StepStates;
  status?: EngagementStatus;
  note?: string;
  reason?: string;
  via?: StepActor;
}) =>
  decideStepAction({
    role: p.role ?? "support",
    action: p.action,
    step: p.step,
    states: p.states,
    engagementStatus: p.status ?? "active",
    note: p.note ?? "confirmed by email",
    reason: p.reason ?? "customer re-sent their file",
    // A step that only its flow completes is acted on as its flow (the rules of roles, states and
    // gates apply to it all the same); "completes only through its flow" has tests of its own.
    via: p.via ?? (STEP_COMPLETION[p.step].by === "flow" ? "flow" : "person"),
  });

describe("the step table", () => {
  it("has the six steps of the design, in order, with their responsible parties", () => {
    expect(STEPS.map((s) => [s.number, s.title, s.responsible])).toEqual([
      [1, "Details gathered", "customer"],
      [2, "Time agreed", "customer_and_support"],
      [3, "Callback URL added", "customer"],
      [4, "Syncing disabled", "customer"],
      [5, "Single-company test", "support"],
      [6, "Bulk migration and handover", "support"],
    ]);
  });

  it.each([
    [1, [], []],
    [2, [1], [1]],
    // The callback URL depends only on the platform: step 3 is open from the start.
    [3, [], []],
    [4, [1], [1]],
    [5, [1, 2, 3, 4], [1, 2, 3, 4]],
    [6, [5], [1, 2, 3, 4, 5]],
  ] as const)("step %i is gated directly on %j and transitively on %j", (step, direct, all) => {
    expect(STEPS[step - 1]!.gates).toEqual(direct);
    expect(transitiveGates(step)).toEqual(all);
  });

  it.each([
    [1, [2, 4, 5, 6]],
    [2, [5, 6]],
    [3, [5, 6]],
    [4, [5, 6]],
    [5, [6]],
    [6, []],
  ] as const)("reopening step %i cascades to %j", (step, expected) => {
    expect(dependents(step)).toEqual(expected);
  });
});

describe("who may act on which step", () => {
  const expected: Record<Role, Record<StepAction, StepNumber[]>> = {
    admin: { start: [1, 2, 3, 4, 5, 6], complete: [1, 2, 3, 4, 5, 6], reopen: [1, 2, 3, 4, 5, 6] },
    support: { start: [1, 2, 3, 4, 5, 6], complete: [1, 2, 3, 4, 5, 6], reopen: [1, 2, 3, 4, 5, 6] },
    customer: { start: [1], complete: [2, 3, 4, 6], reopen: [1] },
  };

  for (const role of ROLES) {
    for (const action of STEP_ACTIONS) {
      for (const step of STEP_NUMBERS) {
        const allowed = expected[role][action].includes(step);
        it(`${role} ${allowed ? "may" : "may not"} ${action} step ${step}`, () => {
          expect(roleMayAct(role, action, step)).toBe(allowed);
          // Put the step in a state where the action is otherwise valid, with its gates done.
          const gates = transitiveGates(step);
          const state: StepState =
            action === "reopen" ? "done" : action === "complete" && role === "customer" && step === 2 ? "in_progress" : "pending";
          const d = act({ role, action, step, states: doneUpTo(gates, { [step]: state }) });
          if (allowed) expect(d.ok).toBe(true);
          else expect(d).toMatchObject({ ok: false, code: "FORBIDDEN" });
        });
      }
    }
  }
});

describe("transitions of one step (staff)", () => {
  const cases: [StepState, StepAction, StepState | "refused"][] = [
    ["pending", "start", "in_progress"],
    ["in_progress", "start", "refused"],
    ["done", "start", "refused"],
    ["pending", "complete", "done"],
    ["in_progress", "complete", "done"],
    ["done", "complete", "refused"],
    ["pending", "reopen", "refused"],
    // A person has nothing to reopen on a step in progress; a step's flow may reset it (see below).
    ["in_progress", "reopen", "refused"],
    ["done", "reopen", "pending"],
  ];
  for (const step of STEP_NUMBERS) {
    for (const [from, action, expected] of cases) {
      const to = from === "in_progress" && action === "reopen" && STEP_COMPLETION[step].by === "flow" ? "pending" : expected;
      it(`step ${step}: ${from} --${action}--> ${to}`, () => {
        const states = doneUpTo(transitiveGates(step), { [step]: from });
        const d = act({ action, step, states });
        if (to === "refused") {
          expect(d).toMatchObject({ ok: false, code: "PRECONDITION_FAILED" });
        } else {
          expect(d.ok).toBe(true);
          if (d.ok) expect(d.next[step]).toBe(to);
        }
      });
    }
  }
});

describe("gates", () => {
  for (const step of STEP_NUMBERS) {
    for (const gate of transitiveGates(step)) {
      for (const action of ["start", "complete"] as const) {
        it(`step ${step} cannot ${action} while gate step ${gate} is not done`, () => {
          // Every other gate done, this one pending.
          const others = transitiveGates(step).filter((g) => g !== gate && !transitiveGates(g).includes(gate));
          const states = doneUpTo(others, { [gate]: "pending" });
          const d = act({ action, step, states });
          expect(d.ok).toBe(false);
          if (!d.ok) {
            expect(d.code).toBe("PRECONDITION_FAILED");
            expect(d.reason).toMatch(/step \d \(/);
          }
        });
      }
    }
    it(`step ${step} can complete once every gate is done`, () => {
      const d = act({ action: "complete", step, states: doneUpTo(transitiveGates(step)) });
      expect(d.ok).toBe(true);
    });
  }

  it("a step that completes through its flow cannot be clicked done by a person (step 5: a passed test)", () => {
    const states = doneUpTo([1, 2, 3, 4]);
    expect(act({ action: "complete", step: 5, states, via: "person" })).toMatchObject({
      ok: false,
      code: "PRECONDITION_FAILED",
      reason: expect.stringContaining("single-company test passes") as string,
    });
    expect(act({ action: "complete", step: 5, states, via: "flow" }).ok).toBe(true);
    // Its flow starts it too (the test being run); a person still reopens it.
    expect(act({ action: "start", step: 5, states, via: "person" })).toMatchObject({ ok: false, reason: expect.stringContaining("single-company test is run") as string });
    expect(act({ action: "start", step: 5, states, via: "flow" }).ok).toBe(true);
    expect(act({ action: "reopen", step: 5, states: doneUpTo([1, 2, 3, 4, 5]), via: "person" }).ok).toBe(true);
  });

  it("names the open gate in the refusal", () => {
    const d = act({ action: "complete", step: 5, states: doneUpTo([1, 2, 3]) });
    expect(d).toMatchObject({ ok: false, reason: expect.stringContaining("step 4 (Syncing disabled)") });
  });

  it("a gate that is only in progress still blocks", () => {
    const d = act({ action: "complete", step: 2, states: doneUpTo([], { 1: "in_progress" }) });
    expect(d.ok).toBe(false);
  });

  it("shows gated pending steps as locked", () => {
    const states = doneUpTo([1]);
    expect(displayState(states, 1)).toBe("done");
    expect(displayState(states, 2)).toBe("pending");
    expect(displayState(states, 5)).toBe("locked");
    expect(displayState(initialStates(), 1)).toBe("pending");
    expect(displayState(initialStates(), 6)).toBe("locked");
  });
});

describe("reopen cascade", () => {
  for (const step of STEP_NUMBERS) {
    it(`reopening step ${step} resets it and every step gated on it, and nothing else`, () => {
      const all = doneUpTo([1, 2, 3, 4, 5, 6]);
      const d = act({ action: "reopen", step, states: all });
      expect(d.ok).toBe(true);
      if (!d.ok) return;
      expect(d.changed).toEqual([step, ...dependents(step)]);
      for (const s of STEP_NUMBERS) {
        expect(d.next[s]).toBe(s === step || dependents(step).includes(s) ? "pending" : "done");
      }
    });
  }

  it("also resets dependents that were only in progress, and reports only what changed", () => {
    const d = act({ action: "reopen", step: 1, states: doneUpTo([1, 4], { 2: "in_progress" }) });
    expect(d.ok && d.changed).toEqual([1, 2, 4]);
  });

  it("requires a reason", () => {
    expect(act({ action: "reopen", step: 2, states: doneUpTo([1, 2]), reason: "  " })).toMatchObject({
      ok: false,
      code: "BAD_INPUT",
      field: "reason",
    });
  });
});

describe("engagement status", () => {
  for (const status of STATUSES.filter((s) => s !== "active")) {
    for (const action of STEP_ACTIONS) {
      it(`no step can ${action} while the engagement is ${status}`, () => {
        const states = doneUpTo([1], { 2: action === "reopen" ? "done" : "pending" });
        expect(act({ action, step: 2, states, status })).toMatchObject({ ok: false, code: "PRECONDITION_FAILED" });
      });
    }
  }

  const manual: [EngagementStatus, EngagementStatus, boolean][] = [];
  for (const from of STATUSES) for (const to of STATUSES) manual.push([from, to, false]);
  const allowed = new Set(["active>on_hold", "active>cancelled", "on_hold>active", "on_hold>cancelled"]);
  for (const [from, to] of manual) {
    const ok = allowed.has(`${from}>${to}`);
    it(`staff ${ok ? "may" : "may not"} change status ${from} → ${to}`, () => {
      expect(decideStatusChange({ role: "support", from, to }).ok).toBe(ok);
    });
  }

  it("customers cannot change status", () => {
    expect(decideStatusChange({ role: "customer", from: "active", to: "on_hold" })).toMatchObject({
      ok: false,
      code: "FORBIDDEN",
    });
  });

  it("completing step 6 completes the engagement", () => {
    expect(statusAfterStepChange("active", doneUpTo([1, 2, 3, 4, 5, 6]))).toBe("completed");
    expect(statusAfterStepChange("active", doneUpTo([1, 2, 3, 4, 5]))).toBe("active");
  });
});

describe("customer rules", () => {
  it("a customer accepts a window only once support has proposed one", () => {
    expect(act({ role: "customer", action: "complete", step: 2, states: doneUpTo([1]) })).toMatchObject({
      ok: false,
      code: "PRECONDITION_FAILED",
      reason: expect.stringContaining("no proposed migration window"),
    });
    expect(act({ role: "customer", action: "complete", step: 2, states: doneUpTo([1], { 2: "in_progress" }) }).ok).toBe(true);
  });

  it("a customer confirms steps 3 and 4 without a note", () => {
    for (const step of [3, 4] as const) {
      expect(act({ role: "customer", action: "complete", step, states: doneUpTo([1]), note: "" }).ok).toBe(true);
    }
  });

  it("staff completing a customer's step must say how the customer confirmed", () => {
    for (const step of [3, 4] as const) {
      expect(act({ action: "complete", step, states: doneUpTo([1]), note: "" })).toMatchObject({
        ok: false,
        code: "BAD_INPUT",
        field: "note",
      });
    }
    // Accepting the details (step 1) and support's own steps need no note.
    expect(act({ action: "complete", step: 1, states: initialStates(), note: "" }).ok).toBe(true);
    expect(act({ action: "complete", step: 5, states: doneUpTo([1, 2, 3, 4]), note: "" }).ok).toBe(true);
  });
});

describe("steps their flows own", () => {
  it("steps 1, 2, 5 and 6 complete only through their flows; 3 and 4 by a confirmation", () => {
    for (const step of [1, 2, 5, 6] as const) expect(STEP_COMPLETION[step].by).toBe("flow");
    for (const step of [3, 4] as const) expect(STEP_COMPLETION[step].by).toBe("confirmation");
  });

  it.each([
    [1, "start", "pending", /customer submits its details/],
    [1, "complete", "in_progress", /support accepts the customer's submitted details/],
    [1, "reopen", "done", /send the customer's submission back/],
    [2, "start", "pending", /support proposes a migration window/],
    [2, "complete", "in_progress", /customer accepts one of the migration windows/],
    [2, "reopen", "done", /reschedule the accepted window/],
    [5, "start", "pending", /single-company test is run/],
    [6, "start", "pending", /bulk migration is started/],
  ] as const)("a person cannot %s… step %i by hand (%s → %s): the refusal says which flow does", (step, action, from, reason) => {
    const states = doneUpTo(transitiveGates(step), { [step]: from });
    for (const role of ["support", "admin"] as const) {
      expect(act({ role, action, step, states, via: "person" })).toMatchObject({ ok: false, code: "PRECONDITION_FAILED", reason: expect.stringMatching(reason) });
      expect(act({ role, action, step, states, via: "flow" }).ok).toBe(true);
    }
  });

  it("the gates still come first for a flow", () => {
    expect(act({ action: "complete", step: 2, states: initialStates(), via: "flow" })).toMatchObject({ ok: false, reason: expect.stringContaining("step 1 (Details gathered)") });
  });

  it("a customer reopens step 1 only through a new token file (the flow)", () => {
    const states = doneUpTo([1, 2, 3]);
    // Step 3 stays done: the callback URL does not depend on the token file.
    expect(act({ role: "customer", action: "reopen", step: 1, states, via: "flow" })).toMatchObject({ ok: true, changed: [1, 2] });
    expect(act({ role: "customer", action: "reopen", step: 1, states, via: "person" }).ok).toBe(false);
    expect(act({ role: "customer", action: "reopen", step: 3, states, via: "person" })).toMatchObject({ ok: false, code: "FORBIDDEN" });
  });

  it("step 6 (handover) refuses a person's Complete, for staff and customers, and takes its flow's", () => {
    const states = doneUpTo([1, 2, 3, 4, 5]);
    for (const role of ROLES) {
      expect(act({ role, action: "complete", step: 6, states, via: "person" })).toMatchObject({
        ok: false,
        code: "PRECONDITION_FAILED",
        reason: expect.stringContaining("acknowledges the handover report"),
      });
      expect(act({ role, action: "complete", step: 6, states, via: "flow" }).ok).toBe(true);
    }
    // The flow still needs the gates.
    expect(act({ role: "customer", action: "complete", step: 6, states: doneUpTo([1, 2, 3, 4]), via: "flow" })).toMatchObject({ ok: false, code: "PRECONDITION_FAILED" });
  });
});

describe("every reachable checklist keeps its invariants", () => {
  it("explores every state staff can reach and checks gates and current step on each", () => {
    const key = (s: StepStates) => STEP_NUMBERS.map((n) => s[n][0]).join("");
    const seen = new Map<string, StepStates>([[key(initialStates()), initialStates()]]);
    const queue: StepStates[] = [initialStates()];
    let transitions = 0;
    while (queue.length) {
      const states = queue.shift()!;
      for (const action of STEP_ACTIONS) {
        for (const step of STEP_NUMBERS) {
          const d = act({ action, step, states });
          if (!d.ok) continue;
          transitions++;
          // Invariant: a step that has begun has every gate done.
          for (const s of STEP_NUMBERS) {
            if (d.next[s] !== "pending") {
              for (const g of transitiveGates(s)) expect(d.next[g], `${key(d.next)} step ${s} gate ${g}`).toBe("done");
            }
          }
          // Invariant: only the acted-on step and (for reopen) its dependents change.
          for (const s of STEP_NUMBERS) {
            if (d.next[s] !== states[s]) expect(d.changed).toContain(s);
          }
          const k = key(d.next);
          if (!seen.has(k)) {
            seen.set(k, d.next);
            queue.push(d.next);
          }
        }
      }
    }
    // Every state reached is consistent with the current-step rule.
    for (const states of seen.values()) {
      const cur = currentStep(states);
      for (const s of STEP_NUMBERS) if (s < cur) expect(states[s]).toBe("done");
    }
    expect(seen.has(key(doneUpTo([1, 2, 3, 4, 5, 6])))).toBe(true);
    expect(transitions).toBeGreaterThan(100);
  });
});

describe("rules the screens are given", () => {
  it("offers start and complete on a pending step, only complete in progress (nothing was done to reopen), reopen when done", () => {
    expect(offeredActions("pending")).toEqual(["start", "complete"]);
    expect(offeredActions("in_progress")).toEqual(["complete"]);
    expect(offeredActions("done")).toEqual(["reopen"]);
  });

  it("a person reopens only a done step; a step's flow still resets one in progress", () => {
    const testing = doneUpTo([1, 2, 3, 4], { 5: "in_progress" });
    expect(act({ action: "reopen", step: 5, states: testing, via: "person" })).toMatchObject({
      ok: false,
      code: "PRECONDITION_FAILED",
      reason: "Step 5 (Single-company test) is in progress, not done; there is nothing to reopen.",
    });
    expect(act({ action: "reopen", step: 3, states: doneUpTo([1], { 3: "in_progress" }), via: "person" }).ok).toBe(false);
    // A submission sent back while under review puts step 1 back to pending (its flow).
    expect(act({ action: "reopen", step: 1, states: doneUpTo([], { 1: "in_progress" }), via: "flow" })).toMatchObject({ ok: true, changed: [1] });
  });

  it("says what a locked step waits for, naming only the gates still open", () => {
    expect(waitsForWords(doneUpTo([1, 3]), 5)).toBe("Waits for step 2 (Time agreed) and step 4 (Syncing disabled).");
    expect(waitsForWords(doneUpTo([1, 2, 3]), 5)).toBe("Waits for step 4 (Syncing disabled).");
    expect(waitsForWords(initialStates(), 2)).toBe("Waits for step 1 (Details gathered).");
    expect(waitsForWords(doneUpTo([1, 2, 3, 4]), 5)).toBeNull();
    expect(waitsForWords(initialStates(), 1)).toBeNull();
  });

  it("a reopen's cascade is the dependents that are not pending", () => {
    expect(reopenCascade(doneUpTo([1, 2], { 4: "in_progress" }), 1)).toEqual([2, 4]);
    // A new token file does not undo the callback URL: step 3 does not depend on step 1.
    expect(reopenCascade(doneUpTo([1, 2, 3]), 1)).toEqual([2]);
    expect(reopenCascade(doneUpTo([1, 2, 3, 4, 5]), 2)).toEqual([5]);
    expect(reopenCascade(doneUpTo([1]), 1)).toEqual([]);
  });

  it("counts done steps, whatever their order", () => {
    expect(stepsDone(initialStates())).toBe(0);
    expect(stepsDone(doneUpTo([1, 3, 4]))).toBe(3);
    expect(currentStep(doneUpTo([1, 3, 4]))).toBe(2);
  });

  it("availability ignores the input; the input check alone asks for the note or reason", () => {
    const states = doneUpTo([1]);
    expect(stepActionAvailability({ role: "support", action: "complete", step: 3, states, engagementStatus: "active" })).toEqual({ ok: true });
    expect(stepInputRefusal({ role: "support", action: "complete", step: 3, note: "" })).toMatchObject({ code: "BAD_INPUT", field: "note" });
    expect(stepInputRefusal({ role: "customer", action: "complete", step: 3 })).toBeNull();
    expect(stepInputRefusal({ role: "support", action: "reopen", step: 1, reason: " " })).toMatchObject({ field: "reason" });
    expect(stepActionAvailability({ role: "support", action: "start", step: 5, states, engagementStatus: "active" })).toMatchObject({
      ok: false,
      code: "PRECONDITION_FAILED",
    });
  });

  it("offers staff the status changes of the current status with their reason rule, customers none", () => {
    expect(statusChangeOptions("support", "active")).toEqual([
      { to: "on_hold", reasonRequired: true },
      { to: "cancelled", reasonRequired: true },
    ]);
    expect(statusChangeOptions("customer", "active")).toEqual([]);
    expect(statusChangeOptions("admin", "cancelled")).toEqual([]);
    for (const from of STATUSES) {
      for (const { to } of statusChangeOptions("support", from)) expect(decideStatusChange({ role: "support", from, to }).ok).toBe(true);
    }
  });

  it("a hold and a cancellation each need a reason from their own list (Other with words); resuming needs none", () => {
    expect(statusChangeInputRefusal({ to: "cancelled" })).toMatchObject({ code: "BAD_INPUT", field: "reasonCode" });
    expect(statusChangeInputRefusal({ to: "cancelled", reason: "Customer withdrew" })).toMatchObject({ field: "reasonCode" });
    expect(statusChangeInputRefusal({ to: "cancelled", reasonCode: "customer_withdrew" })).toBeNull();
    expect(statusChangeInputRefusal({ to: "cancelled", reasonCode: "customer_unavailable" })).toMatchObject({ field: "reasonCode" });
    expect(statusChangeInputRefusal({ to: "on_hold" })).toMatchObject({ field: "reasonCode", reason: "Choose a reason for putting it on hold." });
    expect(statusChangeInputRefusal({ to: "on_hold", reasonCode: "platform_issue" })).toBeNull();
    expect(statusChangeInputRefusal({ to: "on_hold", reasonCode: "other" })).toMatchObject({ field: "reason" });
    expect(statusChangeInputRefusal({ to: "on_hold", reasonCode: "other", reason: "Office move" })).toBeNull();
    expect(statusChangeInputRefusal({ to: "active" })).toBeNull();
  });

  it("an owner must be an active staff member", () => {
    expect(isEligibleOwner({ role: "support", active: true })).toBe(true);
    expect(isEligibleOwner({ role: "admin", active: true })).toBe(true);
    expect(isEligibleOwner({ role: "support", active: false })).toBe(false);
    expect(isEligibleOwner({ role: "customer", active: true })).toBe(false);
    expect(isEligibleOwner(undefined)).toBe(false);
  });

  it("the service target is fixed once the engagement is completed or cancelled", () => {
    expect(targetChangeRefusal("active")).toBeNull();
    expect(targetChangeRefusal("on_hold")).toBeNull();
    expect(targetChangeRefusal("completed")).toMatchObject({ code: "PRECONDITION_FAILED" });
    expect(targetChangeRefusal("cancelled")).toMatchObject({ code: "PRECONDITION_FAILED" });
  });
});
