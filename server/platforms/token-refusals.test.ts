/** The family of a platform's refusal, read from its words. */
import { describe, expect, it } from "vitest";
import { tokenRefusalFamily } from "./token-refusals";

describe("tokenRefusalFamily", () => {
  it.each([
    ["QuickBooks Online rejected the credentials: invalid_grant: the refresh token is not one this platform issued. Reauthorization is required.", "never_valid"],
    ["Wave rejected the credentials: invalid_grant: the refresh token is malformed: it is an access token, not a refresh token.", "never_valid"],
    ["Zoho Books rejected the credentials: invalid_grant: the refresh token was issued to another OAuth app (client id mismatch).", "never_valid"],
    ["QuickBooks Online rejected the credentials: the tokens belong to another realm id (company id) than realmId 9130111122223333.", "never_valid"],
    ["QuickBooks Online rejected the credentials: invalid_grant: the refresh token was already used. The customer's own application refreshed the tokens after they were handed over, which retired every earlier token.", "rotated"],
    ["FreshBooks rejected the credentials: invalid_grant: the refresh token was already exchanged for new tokens and cannot be used again.", "rotated"],
    ["Shopify rejected the credentials: [API] Invalid API key or access token (unrecognized login or wrong password). The access token was rotated: the customer's own app obtained a newer token.", "rotated"],
    ["FreeAgent rejected the credentials: invalid_grant: the refresh token was revoked: the end customer disconnected the app from their FreeAgent account.", "revoked"],
    ["Shopify rejected the credentials: [API] Invalid API key or access token (unrecognized login or wrong password). The access token was revoked: the end customer uninstalled the app from their shop.", "revoked"],
    ["Zoho Books rejected the credentials: invalid_grant: the refresh token expired: it was not used within its lifetime.", "revoked"],
  ] as const)("%s → %s", (text, family) => {
    expect(tokenRefusalFamily(text)).toBe(family);
  });

  it("names no family for words that tell none", () => {
    expect(tokenRefusalFamily("The QuickBooks Online connection is Deauthorized: reauthorization is required before data can be fetched.")).toBeNull();
    expect(tokenRefusalFamily("400 Bad Request: invalid_grant")).toBeNull();
  });
});
