import { describe, expect, it } from "vitest";
import { callsText } from "./state-words";

describe("a company's calls to the service in words", () => {
  it("says calls (a migration that passed at once makes a dozen), and the failures in a row where there are any", () => {
    expect(callsText(12, 0)).toBe("12 calls");
    expect(callsText(1, 0)).toBe("1 call");
    expect(callsText(9, 1)).toBe("9 calls, the last one failed");
    expect(callsText(9, 5)).toBe("9 calls, the last 5 failed");
    expect(callsText(1_204, 2)).toBe("1,204 calls, the last 2 failed");
  });
});
