/** The seat's decision before each request, alone: send, report first, or take a block of the daily quota first. */
import { describe, expect, it } from "vitest";
import { quotaStep } from "./shared-budget";

describe("quotaStep", () => {
  it("sends while it holds quota within what its last report allows", () => {
    expect(quotaStep({ taken: 100, used: 40, bound: 60, pendingBound: null })).toBe("send");
  });

  it("reports first (an early heartbeat) once past that bound with quota still in hand, a report on its way counting too", () => {
    expect(quotaStep({ taken: 100, used: 60, bound: 60, pendingBound: null })).toBe("report");
    expect(quotaStep({ taken: 100, used: 50, bound: 60, pendingBound: 50 })).toBe("report");
  });

  it("takes a block first when none is in hand, whatever the bound", () => {
    expect(quotaStep({ taken: 40, used: 40, bound: 80, pendingBound: null })).toBe("take_block");
    expect(quotaStep({ taken: 0, used: 0, bound: 0, pendingBound: null })).toBe("take_block");
  });
});
