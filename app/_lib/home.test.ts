import { describe, expect, it } from "vitest";
import { homeFor, safeNextPath } from "./home";

describe("homeFor", () => {
  it("sends each role to its home", () => {
    expect(homeFor("admin")).toBe("/engagements");
    expect(homeFor("support")).toBe("/engagements");
    expect(homeFor("customer")).toBe("/portal");
    expect(homeFor(null)).toBe("/login");
  });
});

describe("safeNextPath", () => {
  it("accepts paths on this site", () => {
    expect(safeNextPath("/engagements/abc?x=1")).toBe("/engagements/abc?x=1");
  });

  it("refuses other sites, protocol-relative URLs and loops", () => {
    for (const bad of ["https://evil.test", "//evil.test", "/\\evil.test", "/login", "/api/auth/signout", "", null, undefined]) {
      expect(safeNextPath(bad)).toBeNull();
    }
  });
});
