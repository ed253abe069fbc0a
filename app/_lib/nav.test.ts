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

  it("gives a view with a query its own place, only on its path with its parameters", () => {
    const withQueue = ["/engagements", "/engagements?waiting=support", "/engagements/new"];
    expect(activeHref(withQueue, "/engagements", new URLSearchParams("waiting=support"))).toBe("/engagements?waiting=support");
    expect(activeHref(withQueue, "/engagements", new URLSearchParams("waiting=support&q=acme"))).toBe("/engagements?waiting=support");
    expect(activeHref(withQueue, "/engagements", new URLSearchParams("waiting=customer"))).toBe("/engagements");
    expect(activeHref(withQueue, "/engagements")).toBe("/engagements");
    expect(activeHref(withQueue, "/engagements/abc123", new URLSearchParams("waiting=support"))).toBe("/engagements");
    expect(activeHref(withQueue, "/engagements/new")).toBe("/engagements/new");
  });
});
