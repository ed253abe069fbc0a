import { describe, expect, it } from "vitest";
import { clockOf, clockTargetsFor, DEFAULT_CLOCK_TARGETS, riskOf, type ClockInput } from "./clocks";

const H = 3_600_000;
const D = 24 * H;
const now = new Date("2026-11-28T12:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms);

function engagement(over: Partial<ClockInput> = {}): ClockInput {
  return {
    status: "active",
    currentStep: 1,
    waitingOn: "customer",
    waitingSince: ago(D),
    moveCreditMs: 0,
    pausedMove: null,
    windowStartsAt: null,
    windowEndsAt: null,
    updatedAt: ago(H),
    ...over,
  };
}

describe("the move's clock", () => {
  it("runs from when the move became the party's, against that party's target in that step", () => {
    const c = clockOf(engagement(), DEFAULT_CLOCK_TARGETS, now);
    expect(c).toMatchObject({ party: "customer", paused: false, elapsedMs: D, targetMs: 5 * D, risk: "on_pace" });
    expect(c.dueAt).toEqual(new Date(now.getTime() + 4 * D));
  });

  it("is at risk with less than a quarter of the target left, and late past it", () => {
    expect(riskOf(0, 4 * D)).toBe("on_pace");
    expect(riskOf(3 * D, 4 * D)).toBe("on_pace");
    expect(riskOf(3 * D + 1, 4 * D)).toBe("at_risk");
    expect(riskOf(4 * D, 4 * D)).toBe("at_risk");
    expect(riskOf(4 * D + 1, 4 * D)).toBe("late");
    // Support has a day in step 1: 19 hours in is at risk, 25 hours late.
    expect(clockOf(engagement({ waitingOn: "support", waitingSince: ago(19 * H) }), DEFAULT_CLOCK_TARGETS, now).risk).toBe("at_risk");
    const late = clockOf(engagement({ waitingOn: "support", waitingSince: ago(25 * H) }), DEFAULT_CLOCK_TARGETS, now);
    expect(late).toMatchObject({ risk: "late", dueAt: ago(H) });
  });

  it("counts the time a move ran before a hold when the same move resumes", () => {
    const c = clockOf(engagement({ waitingOn: "support", waitingSince: ago(5 * H), moveCreditMs: 20 * H }), DEFAULT_CLOCK_TARGETS, now);
    expect(c).toMatchObject({ elapsedMs: 25 * H, risk: "late" });
    // Without the credit the same five hours are on pace.
    expect(clockOf(engagement({ waitingOn: "support", waitingSince: ago(5 * H) }), DEFAULT_CLOCK_TARGETS, now).risk).toBe("on_pace");
  });

  it("stops while on hold: the paused move keeps the time it had run, whatever the date", () => {
    const held = engagement({ status: "on_hold", waitingOn: null, waitingSince: null, pausedMove: { party: "customer", elapsedMs: 2 * D } });
    const a = clockOf(held, DEFAULT_CLOCK_TARGETS, now);
    const b = clockOf(held, DEFAULT_CLOCK_TARGETS, new Date(now.getTime() + 30 * D));
    expect(a).toMatchObject({ party: "customer", paused: true, elapsedMs: 2 * D, risk: "on_pace" });
    expect(b).toMatchObject({ paused: true, elapsedMs: 2 * D, risk: "on_pace" });
  });

  it("has no move, due date or risk when nobody's move it is or the engagement is over", () => {
    expect(clockOf(engagement({ waitingOn: null, waitingSince: null }), DEFAULT_CLOCK_TARGETS, now)).toMatchObject({ party: null, dueAt: null, risk: null });
    for (const status of ["completed", "cancelled"] as const) {
      expect(clockOf(engagement({ status, currentStep: 7 }), DEFAULT_CLOCK_TARGETS, now)).toMatchObject({ party: null, risk: null, projectedFinish: null, stale: false });
    }
  });
});

describe("stale", () => {
  it("after the organisation's number of days without a change, on hold too", () => {
    expect(clockOf(engagement({ updatedAt: ago(5 * D - 1) }), DEFAULT_CLOCK_TARGETS, now)).toMatchObject({ stale: false, idleDays: 4 });
    expect(clockOf(engagement({ updatedAt: ago(5 * D) }), DEFAULT_CLOCK_TARGETS, now)).toMatchObject({ stale: true, idleDays: 5 });
    const held = engagement({ status: "on_hold", updatedAt: ago(6 * D), pausedMove: null });
    expect(clockOf(held, DEFAULT_CLOCK_TARGETS, now).stale).toBe(true);
    expect(clockOf(engagement({ updatedAt: ago(5 * D) }), clockTargetsFor({ staleAfterDays: 10 }), now).stale).toBe(false);
  });
});

describe("an organisation's targets", () => {
  it("change only what they name", () => {
    const t = clockTargetsFor({ steps: { 1: { customer: 48 } } });
    expect(t.steps[1]).toEqual({ customer: 48, support: 24 });
    expect(t.steps[2]).toEqual(DEFAULT_CLOCK_TARGETS.steps[2]);
    expect(t.staleAfterDays).toBe(5);
    expect(clockOf(engagement({ waitingSince: ago(3 * D) }), t, now).risk).toBe("late");
    expect(clockTargetsFor(null)).toBe(DEFAULT_CLOCK_TARGETS);
  });
});

describe("the projected finish", () => {
  const total = (from: number) =>
    Object.entries(DEFAULT_CLOCK_TARGETS.steps)
      .filter(([s]) => Number(s) > from)
      .reduce((sum, [, t]) => sum + (t.customer + t.support) * H, 0);

  it("is what is left of this move, the other party's move in this step and every later step at their targets", () => {
    const c = clockOf(engagement(), DEFAULT_CLOCK_TARGETS, now);
    expect(c.projectedFinish).toEqual(new Date(now.getTime() + 4 * D + 1 * D + total(1)));
  });

  it("a late move adds nothing more for itself: the finish slips with the clock", () => {
    const c = clockOf(engagement({ currentStep: 6, waitingOn: "support", waitingSince: ago(3 * D) }), DEFAULT_CLOCK_TARGETS, now);
    expect(c.projectedFinish).toEqual(new Date(now.getTime() + 5 * D));
  });

  it("is no earlier than the agreed window's end and the customer's acknowledgement after it", () => {
    const windowEndsAt = new Date(now.getTime() + 40 * D);
    const c = clockOf(engagement({ currentStep: 3, windowStartsAt: new Date(now.getTime() + 39 * D), windowEndsAt }), DEFAULT_CLOCK_TARGETS, now);
    expect(c.projectedFinish).toEqual(new Date(windowEndsAt.getTime() + 5 * D));
  });

  it("while on hold, is from now at the paused move's remaining time", () => {
    const held = engagement({ status: "on_hold", waitingOn: null, waitingSince: null, pausedMove: { party: "customer", elapsedMs: 4 * D } });
    const later = new Date(now.getTime() + 10 * D);
    expect(clockOf(held, DEFAULT_CLOCK_TARGETS, later).projectedFinish).toEqual(new Date(later.getTime() + D + D + total(1)));
  });
});

describe("the stored deadlines", () => {
  it("say what riskOf says at every moment: at risk after at_risk_at, late after due_at", async () => {
    const { moveDeadlines } = await import("./clocks");
    const e = engagement({ waitingOn: "support", waitingSince: ago(5 * H), moveCreditMs: 2 * H });
    const d = moveDeadlines(e, DEFAULT_CLOCK_TARGETS)!;
    expect(d.dueAt).toEqual(new Date(now.getTime() - 7 * H + 24 * H));
    expect(d.atRiskAt).toEqual(new Date(d.dueAt.getTime() - 6 * H));
    for (const offset of [-30 * H, -6 * H - 1, -6 * H, -6 * H + 1, -1, 0, 1, 5 * H]) {
      const at = new Date(d.dueAt.getTime() + offset);
      const expected = at > d.dueAt ? "late" : at > d.atRiskAt ? "at_risk" : "on_pace";
      expect(clockOf(e, DEFAULT_CLOCK_TARGETS, at).risk, `at ${offset / H} h from due`).toBe(expected);
    }
    expect(moveDeadlines({ ...e, status: "on_hold" }, DEFAULT_CLOCK_TARGETS)).toBeNull();
    expect(moveDeadlines({ ...e, waitingOn: null }, DEFAULT_CLOCK_TARGETS)).toBeNull();
  });
});
