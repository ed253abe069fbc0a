import { describe, expect, it } from "vitest";
import { homeFor } from "./home";

describe("homeFor", () => {
  it("sends each role to its home", () => {
    expect(homeFor("admin")).toBe("/engagements");
    expect(homeFor("support")).toBe("/engagements");
    expect(homeFor("customer")).toBe("/portal");
    expect(homeFor(null)).toBe("/login");
  });
});
