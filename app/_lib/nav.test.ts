import { describe, expect, it } from "vitest";
import { activeHref } from "./nav";

const hrefs = ["/engagements", "/engagements/new", "/admin/users", "/portal"];

describe("activeHref", () => {
  it("picks the most specific item", () => {
    expect(activeHref(hrefs, "/engagements/new")).toBe("/engagements/new");
    expect(activeHref(hrefs, "/engagements/abc123")).toBe("/engagements");
    expect(activeHref(hrefs, "/engagements")).toBe("/engagements");
  });

  it("matches whole segments only", () => {
    expect(activeHref(hrefs, "/engagementsx")).toBeNull();
    expect(activeHref(hrefs, "/portal/engagements/1")).toBe("/portal");
    expect(activeHref(hrefs, "/login")).toBeNull();
  });
});
