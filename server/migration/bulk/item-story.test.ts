import { describe, expect, it } from "vitest";
import type { Failure } from "@/core/migration/failure";
import { itemStory, platformErrorsOf } from "./item-story";

const refused: Failure = {
  operation: "authorizeConnection",
  kind: "reauthorization_required",
  status: null,
  service: null,
  error: "invalid_grant: the refresh token was already used",
  correlationId: "c-1",
  validation: [],
  at: null,
};

describe("a company's whole story", () => {
  it("a company waiting for its end customer says why, the refusal's family and what to do (never a bare dash)", () => {
    const story = itemStory({ state: "reconnect_pending", outcomeReason: refused.error, lastError: refused, checks: null, platformErrors: [], attempts: 0, viewer: "staff" });
    expect(story.why).toBe("The platform refused the migrated tokens when the connection was authorized, so it needs authorizing again.");
    expect(story.refusal).toEqual({ family: "rotated", words: "replaced by newer tokens", case: "already used: the old app refreshed them after the export" });
    expect(story.whatToDo).toMatch(/confirm syncing is off.*reconnect link or by fresh tokens/);
  });

  it("tells the customer their own next step, not support's", () => {
    const story = itemStory({ state: "reconnect_pending", outcomeReason: refused.error, lastError: refused, checks: null, platformErrors: [], attempts: 0, viewer: "customer" });
    expect(story.whatToDo).toMatch(/check that syncing in your old app is off, then send the end customer the company's reconnect link/);
  });

  it("reads the family from the platform's own words when the error does not name it", () => {
    const vague = { ...refused, error: "Deauthorized" };
    const platformErrors = platformErrorsOf({ connection: { status: "Deauthorized", errors: [{ statusCode: "400", statusText: "Bad Request", errorMessage: "the token was revoked: the end customer disconnected the app" }] } });
    const story = itemStory({ state: "reauth_required", outcomeReason: null, lastError: vague, checks: null, platformErrors, attempts: 0, viewer: "staff" });
    expect(story.refusal).toMatchObject({ family: "revoked", case: "the end customer disconnected the app" });
  });

  it("keeps the engine's own account when it says more than the error; a set-aside's reason is support's", () => {
    const setAside = itemStory({ state: "set_aside", outcomeReason: "The customer will reconnect it themselves", lastError: null, checks: null, platformErrors: [], attempts: 0, viewer: "staff" });
    expect(setAside).toMatchObject({ why: "The customer will reconnect it themselves", refusal: null });
    expect(setAside.whatToDo).toMatch(/^Not migrated\./);
  });

  it("a verified company has nothing to tell", () => {
    expect(itemStory({ state: "verified", outcomeReason: null, lastError: null, checks: null, platformErrors: [], attempts: 0, viewer: "staff" })).toEqual({ why: null, refusal: null, whatToDo: null });
  });

  it("reads odd stored checks leniently", () => {
    expect(platformErrorsOf(null)).toEqual([]);
    expect(platformErrorsOf({ connection: { errors: "nope" } })).toEqual([]);
    expect(platformErrorsOf({ connection: { errors: [null, { errorMessage: 3 }] } })).toEqual([{ statusCode: null, statusText: null, errorMessage: null }]);
  });
});
