import { describe, expect, it } from "vitest";
import { z } from "zod";
import "./zod-messages";
import { ZHypercareDays } from "./migration/last-mile-schemas";

const message = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? null : result.error.issues[0]!.message;
};

describe("field messages a person would write", () => {
  it("says what to type where zod would say what it expected", () => {
    expect(message(z.coerce.number(), "abc")).toBe("Enter a number, such as 7.");
    expect(message(z.number(), Number.NaN)).toBe("Enter a number, such as 7.");
    expect(message(z.string(), undefined)).toBe("Fill this in.");
    expect(message(z.string().min(1), "")).toBe("Fill this in.");
    expect(message(z.string().max(2000), "x".repeat(2001))).toBe("Keep it to 2,000 characters or fewer.");
    expect(message(z.number().max(90), 91)).toBe("Enter 90 or less.");
    expect(message(z.string().email(), "carol@")).toBe("Enter an email address, such as name@example.com.");
    expect(message(z.enum(["a", "b"]), "c")).toBe("Choose one of the options offered.");
  });

  it("never speaks zod's own words", () => {
    for (const [schema, value] of [
      [z.coerce.number().int(), "1.5"],
      [z.number().int(), 1.5],
      [z.date(), "tomorrow"],
      [z.array(z.string()).max(1), ["a", "b"]],
      [z.string().regex(/^\d+$/), "x"],
    ] as const) {
      expect(message(schema, value)).not.toMatch(/Invalid input|expected|received|Too (big|small)/);
    }
  });

  it("a message a schema names itself wins", () => {
    expect(message(z.string().min(1, "Enter the organisation's name."), "")).toBe("Enter the organisation's name.");
  });

  it("the hypercare days say what to type", () => {
    expect(message(ZHypercareDays, { days: "abc" })).toBe("Enter the number of days as a whole number from 1 to 90, such as 7.");
    expect(message(ZHypercareDays, { days: "7.5" })).toBe("Enter whole days, such as 7.");
    expect(message(ZHypercareDays, { days: "0" })).toBe("The watch lasts at least 1 day.");
    expect(message(ZHypercareDays, { days: "91" })).toBe("The watch lasts at most 90 days.");
    expect(ZHypercareDays.parse({ days: " 14 " })).toEqual({ days: 14 });
  });
});
