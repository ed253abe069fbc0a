import { describe, expect, it } from "vitest";
import { attemptsText } from "./state-words";

describe("a company's attempts in words", () => {
  it("shows every attempt, and the failures in a row where there are any", () => {
    expect(attemptsText(12, 0)).toBe("12");
    expect(attemptsText(9, 5)).toBe("9 (5 failed in a row)");
    expect(attemptsText(1_204, 1)).toBe("1,204 (1 failed in a row)");
  });
});
