import { describe, expect, it } from "vitest";
import { getManagedPlatform } from "@/server/platforms";
import { checkCompanyName, readCheckedConnection, refreshDue, refusalFix, statusAfter, tokenLimitCaveat } from "./callback-check-rules";

describe("what the round trip's connection says", () => {
  it("Linked proves it, whatever errors it carried before", () => {
    expect(readCheckedConnection({ status: "Linked", dataConnectionErrors: [{ errorMessage: "redirect_uri mismatch", status: "Resolved" }] })).toEqual({ kind: "linked" });
  });

  it.each([
    "redirect_uri_mismatch: The redirect URI in the request, https://quickbooksonline.codat.io/oauth2/callback, does not match",
    "Invalid Redirect Uri - Redirect URI passed does not match with the one configured",
    "The redirect_uri query parameter value is invalid.",
    "Oauth error invalid_request: The redirect_uri is not whitelisted",
    "The redirection URL is not allowed for this app",
  ])("an active refusal of the redirect, in any platform's words, is a refusal: %s", (words) => {
    expect(readCheckedConnection({ status: "PendingAuth", dataConnectionErrors: [{ errorMessage: words, status: "Active" }] })).toEqual({ kind: "refused", words });
  });

  it("a resolved refusal no longer counts; another error is shown but does not refuse", () => {
    expect(readCheckedConnection({ status: "PendingAuth", dataConnectionErrors: [{ errorMessage: "redirect_uri mismatch", status: "Resolved" }] })).toEqual({ kind: "waiting", words: null });
    expect(readCheckedConnection({ status: "PendingAuth", dataConnectionErrors: [{ statusText: "access_denied", status: null }] })).toEqual({ kind: "waiting", words: "access_denied" });
    expect(readCheckedConnection({ status: "PendingAuth" })).toEqual({ kind: "waiting", words: null });
  });
});

describe("the check's status", () => {
  it("moves from open to proven or refused; a refusal stays until it links; ended checks stay", () => {
    expect(statusAfter("waiting", { kind: "linked" })).toBe("proven");
    expect(statusAfter("refused", { kind: "linked" })).toBe("proven");
    expect(statusAfter("waiting", { kind: "refused", words: "x" })).toBe("refused");
    expect(statusAfter("refused", { kind: "waiting", words: null })).toBe("refused");
    expect(statusAfter("waiting", { kind: "waiting", words: null })).toBe("waiting");
    expect(statusAfter("cancelled", { kind: "linked" })).toBe("cancelled");
    expect(statusAfter("failed", { kind: "refused", words: "x" })).toBe("failed");
  });

  it("asks the service at most once per interval", () => {
    const now = new Date("2026-11-29T10:00:00Z");
    expect(refreshDue(null, now, 3000)).toBe(true);
    expect(refreshDue(new Date(now.getTime() - 2999), now, 3000)).toBe(false);
    expect(refreshDue(new Date(now.getTime() - 3000), now, 3000)).toBe(true);
  });
});

describe("words", () => {
  it("says to add the exact callback URL and try the same link again", () => {
    const fix = refusalFix("https://zohobooks.codat.io/oauth/callback");
    expect(fix).toContain("Add https://zohobooks.codat.io/oauth/callback to your app's redirect URIs exactly as written");
    expect(fix).toMatch(/open the test link again/);
  });

  it("names the test company in characters the service keeps", () => {
    expect(checkCompanyName("FER-1001")).toBe("Ferry callback check FER-1001");
    expect(checkCompanyName("A/B#1")).toBe("Ferry callback check A-B-1");
  });
});

describe("the platform's limit the authorization counts against", () => {
  it("Zoho Books: 20 refresh tokens per user, so authorize as a user none of the file's companies was exported with; others none", () => {
    expect(tokenLimitCaveat(getManagedPlatform("rwuv")!)).toMatch(/^Zoho Books keeps 20 refresh tokens per user for your app.*Authorize the round trip as a Zoho Books user that none of the file's companies was exported with/);
    for (const key of ["qhyg", "fbrh", "vxvy", "pbtz", "fztf"] as const) expect(tokenLimitCaveat(getManagedPlatform(key)!)).toBeNull();
  });
});
