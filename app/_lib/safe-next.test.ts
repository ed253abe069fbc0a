import { describe, expect, it } from "vitest";
import { safeNextPath, signInHref } from "./safe-next";

describe("safeNextPath", () => {
  it("accepts paths on this site, with their query and fragment", () => {
    expect(safeNextPath("/engagements/abc?x=1#step-3")).toBe("/engagements/abc?x=1#step-3");
    expect(safeNextPath("/portal")).toBe("/portal");
    expect(safeNextPath("/%2F%2Fevil.test")).toBe("/%2F%2Fevil.test");
  });

  it("refuses other sites, protocol-relative and disguised ones", () => {
    for (const bad of [
      "https://evil.test",
      "//evil.test",
      "/\\evil.test",
      "/\t/evil.test",
      "/\n/evil.test",
      "/./\t/evil.test",
      "/.//evil.test",
      "/..//evil.test",
      "javascript:alert(1)",
      "evil.test",
      " /engagements",
    ]) {
      expect([bad, safeNextPath(bad)]).toEqual([bad, null]);
    }
  });

  it("refuses loops through sign-in and API routes, and nothing at all", () => {
    for (const bad of ["/login", "/login?next=/x", "/api/auth/signout", "/api/trpc/me.get", "", null, undefined, `/${"x".repeat(3000)}`]) {
      expect(safeNextPath(bad)).toBeNull();
    }
  });
});

describe("signInHref", () => {
  it("carries a safe page along, and nothing else", () => {
    expect(signInHref("/engagements/abc?tab=1")).toBe("/login?next=%2Fengagements%2Fabc%3Ftab%3D1");
    expect(signInHref("/")).toBe("/login");
    expect(signInHref("//evil.test")).toBe("/login");
    expect(signInHref(null)).toBe("/login");
  });
});
