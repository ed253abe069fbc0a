import { describe, expect, it } from "vitest";
import { homeFor } from "./home";

describe("homeFor", () => {
  it("sends each role to its home", () => {
    expect(homeFor("admin")).toBe("/portfolio");
    expect(homeFor("support")).toBe("/portfolio");
    expect(homeFor("customer")).toBe("/portal");
    expect(homeFor(null)).toBe("/login");
  });
});
