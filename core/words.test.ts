import { describe, expect, it } from "vitest";
import { companiesText, countOf, daysText, listText, plural, pollsText, recordsText, warningsText } from "./words";

describe("counts in words", () => {
  it.each([
    [0, "0 companies"],
    [1, "1 company"],
    [2, "2 companies"],
    [2_500, "2,500 companies"],
    [1.5, "1.5 companies"],
  ])("%d → %s", (n, text) => {
    expect(companiesText(n)).toBe(text);
  });

  it("says one of each in the singular", () => {
    expect(warningsText(1)).toBe("1 warning");
    expect(pollsText(1)).toBe("1 poll");
    expect(daysText(1)).toBe("1 day");
    expect(recordsText(1)).toBe("1 record");
    expect(pollsText(3)).toBe("3 polls");
    expect(countOf(1, "drop", "drops")).toBe("1 drop");
    expect(countOf(0, "drop", "drops")).toBe("0 drops");
  });

  it("picks the verb or pronoun that goes with a count", () => {
    expect(plural(1, { one: "was", other: "were" })).toBe("was");
    expect(plural(0, { one: "was", other: "were" })).toBe("were");
    expect(plural(24, { one: "its", other: "their" })).toBe("their");
  });
});

describe("lists in words", () => {
  it("joins items the British way", () => {
    expect(listText([])).toBe("");
    expect(listText(["step 2"])).toBe("step 2");
    expect(listText(["step 2", "step 4"])).toBe("step 2 and step 4");
    expect(listText(["a", "b", "c"])).toBe("a, b and c");
  });
});
