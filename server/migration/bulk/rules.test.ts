/** The agreed window's rules for starting the bulk run, at an injected time. */
import { describe, expect, it } from "vitest";
import { outsideWindowWords, startReasonRefusal, windowPosition } from "./rules";

const window = { startsAt: new Date("2031-03-01T22:00:00Z"), endsAt: new Date("2031-03-02T04:00:00Z") };
const at = (iso: string) => new Date(iso);

describe("where now stands against the agreed window", () => {
  it("before its start, inside from its start, after from its end", () => {
    expect(windowPosition(window, at("2031-03-01T21:59:59Z"))).toBe("before");
    expect(windowPosition(window, at("2031-03-01T22:00:00Z"))).toBe("inside");
    expect(windowPosition(window, at("2031-03-02T03:59:59Z"))).toBe("inside");
    expect(windowPosition(window, at("2031-03-02T04:00:00Z"))).toBe("after");
  });
});

describe("starting the bulk run outside the agreed window", () => {
  it("before it: a reason is asked, in words saying when the window starts", () => {
    const now = at("2031-02-26T20:00:00Z");
    const words = "The agreed window (Sat, 1 Mar 2031, 22:00 – Sun, 2 Mar 2031, 04:00 UTC) starts in 3 d 2 h: say why the bulk migration starts before it. The reason is recorded and the customer is told.";
    expect(outsideWindowWords(window, now)).toBe(words);
    expect(startReasonRefusal({ window, now }, undefined)).toEqual({
      ok: false,
      code: "BAD_INPUT",
      field: "reason",
      reason: "Say why the bulk migration starts 3 d 2 h before the agreed window: the reason is recorded and the customer is told.",
    });
    expect(startReasonRefusal({ window, now }, " \n ")).toMatchObject({ field: "reason" });
    expect(startReasonRefusal({ window, now }, "The customer asked to start early")).toBeNull();
  });

  it("inside it: no reason asked", () => {
    for (const now of [at("2031-03-01T22:00:00Z"), at("2031-03-02T01:30:00Z")]) {
      expect(outsideWindowWords(window, now)).toBeNull();
      expect(startReasonRefusal({ window, now }, undefined)).toBeNull();
    }
  });

  it("after it: a reason is asked, in words saying how long ago it ended", () => {
    const now = at("2031-03-02T06:30:00Z");
    expect(outsideWindowWords(window, now)).toBe(
      "The agreed window (Sat, 1 Mar 2031, 22:00 – Sun, 2 Mar 2031, 04:00 UTC) ended 2 h 30 min ago: say why the bulk migration starts after it. The reason is recorded and the customer is told.",
    );
    expect(startReasonRefusal({ window, now }, undefined)).toMatchObject({ code: "BAD_INPUT", field: "reason", reason: expect.stringMatching(/^Say why the bulk migration starts 2 h 30 min after the agreed window:/) as string });
  });

  it("no window agreed: nothing to hold, so no reason", () => {
    expect(outsideWindowWords(null, at("2031-03-02T06:30:00Z"))).toBeNull();
    expect(startReasonRefusal({ window: null, now: at("2031-03-02T06:30:00Z") }, undefined)).toBeNull();
  });
});
