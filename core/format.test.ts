import { describe, expect, it } from "vitest";
import { formatDuration } from "./format";

describe("formatDuration", () => {
  it.each([
    [0, "0 s"],
    [59.4, "59 s"],
    [60, "1 min"],
    [1_495, "24 min 55 s"],
    [3_600, "1 h"],
    [12_000, "3 h 20 min"],
    [172_800, "2 d"],
    [190_800, "2 d 5 h"],
    // A remainder that rounds to a whole larger unit carries into it.
    [7_199, "2 h"],
    [86_399, "1 d"],
    [604_799, "7 d"],
    [86_400 + 23 * 3_600 + 1_799, "1 d 23 h"],
    [86_400 + 23 * 3_600 + 1_800, "2 d"],
  ])("%d s → %s", (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });

  it("keeps milliseconds and tenths below ten seconds when asked (a call, a test)", () => {
    expect(formatDuration(0.85, { fine: true })).toBe("850 ms");
    expect(formatDuration(4.24, { fine: true })).toBe("4.2 s");
    expect(formatDuration(0.08)).toBe("0 s");
    expect(formatDuration(75, { fine: true })).toBe("1 min 15 s");
  });
});
