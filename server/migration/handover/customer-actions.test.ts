import { describe, expect, it } from "vitest";
import { customerOutcome, type OutcomeInput } from "./customer-actions";
import { describeChecks, readChecks } from "./item-results";
import type { Failure } from "@/core/migration/failure";

const base: OutcomeInput = { state: "failed", outcomeReason: null, lastError: null, checks: null, attempts: 1 };
const error = (e: Partial<Failure>): Failure => ({ operation: null, kind: null, status: null, service: null, error: "", correlationId: null, validation: [], at: null, ...e });
const RECONNECT = "reconnect through the service's link flow";

describe("what the customer must do", () => {
  it("nothing for a verified company", () => {
    expect(customerOutcome({ ...base, state: "verified" })).toEqual({ reason: null, action: null });
  });

  it.each([
    [
      "400 Bad Request: Xero-like rejected the credentials: invalid_grant: the refresh token is not one this platform issued. Reauthorization is required.",
      "The platform never accepted the tokens in your file for this company (not issued by the platform): send its tokens from the right OAuth app and account in a supplementary file, or send the end customer the company's reconnect link.",
    ],
    [
      "403 Forbidden: QuickBooks Online rejected the credentials: the tokens belong to another company than realmId 123. Reauthorization is required.",
      "The platform never accepted the tokens in your file for this company (of another account than the row names): send its tokens from the right OAuth app and account in a supplementary file, or send the end customer the company's reconnect link.",
    ],
    [
      "400 Bad Request: QuickBooks Online rejected the credentials: invalid_grant: the refresh token was already used. Reauthorization is required.",
      "The platform says the tokens in your file were replaced (already used: the old app refreshed them after the export): check that syncing in your old app is off, then send the end customer the company's reconnect link, or send fresh tokens for it in a supplementary file.",
    ],
    [
      "401 Unauthorized: Shopify rejected the credentials: [API] Invalid API key or access token (unrecognized login or wrong password). The access token was revoked: the end customer uninstalled the app from their shop. Reauthorization is required.",
      "The platform no longer grants access to this company (the end customer uninstalled the app): only the end customer can grant it again. Send them the company's reconnect link.",
    ],
    ["Deauthorized", "Send the end customer the company's reconnect link, or send fresh tokens for it in a supplementary file."],
  ])("reauthorization required (%s): what the customer does, by the family of the platform's words", (outcomeReason, action) => {
    for (const state of ["reauth_required", "reconnect_pending"] as const) {
      const out = customerOutcome({ ...base, state, outcomeReason });
      expect(out.reason).toBe(outcomeReason.endsWith(".") ? outcomeReason : `${outcomeReason}.`);
      expect(out.action).toBe(action);
      // Never the token file: once the migration has started the portal no longer replaces it.
      expect(out.action).not.toMatch(/token file|new file/);
    }
  });

  it("reauthorization required after an AuthError during the sync: the old app, so syncing off first", () => {
    const out = customerOutcome({
      ...base,
      state: "reauth_required",
      outcomeReason: "The platform refused the tokens during the sync (AuthError on invoices): the connection needs reauthorization.",
      lastError: error({ kind: "auth_error_during_sync", error: "The platform refused the tokens during the sync (AuthError on invoices): the connection needs reauthorization." }),
    });
    expect(out.action).toBe(
      "The platform says the tokens in your file were replaced (refused during the sync, probably refreshed by your old app): check that syncing in your old app is off, then send the end customer the company's reconnect link, or send fresh tokens for it in a supplementary file.",
    );
  });

  it("reauthorization required with the error the engine stored: the reason says it in words, the error keeps the platform's", () => {
    const words = "400 Bad Request: QuickBooks Online rejected the credentials: invalid_grant: the refresh token was already used. Reauthorization is required.";
    const out = customerOutcome({ ...base, state: "reauth_required", outcomeReason: words, lastError: error({ kind: "reauthorization_required", error: words, correlationId: "corr-1" }) });
    expect(out.reason).toBe("The platform refused the migrated tokens when the connection was authorized, so it needs authorizing again.");
    expect(out.reason).not.toContain("invalid_grant");
    // What to do still reads the platform's words for the family.
    expect(out.action).toMatch(/^The platform says the tokens in your file were replaced \(already used/);
    const duringSync = customerOutcome({ ...base, state: "reauth_required", lastError: error({ kind: "auth_error_during_sync", error: "The platform refused the tokens during the sync (AuthError on invoices)." }) });
    expect(duringSync.reason).toBe("The platform refused the migrated tokens during the sync, so the connection needs authorizing again.");
  });

  it.each([
    ["company_limit", 402, "Company limit exceeded", "The service account reached its company limit.", /^Upgrade the service account/],
    ["account_expired", 402, "Account expired", "The service account's free period has expired.", /^Renew the service account/],
    ["sync_schedule_not_allowed", 402, "Sync schedule not allowed", "The service account's plan does not allow the requested sync schedule.", /hourly sync schedule/],
    ["unauthorized", 401, "Unauthorized", "The service refused the API key Ferry migrated with.", /Nothing was wrong with this company's tokens/],
    ["forbidden", 403, "Forbidden", "The service refused the API key Ferry migrated with.", /API key is sorted out/],
    ["active_connection_exists", 409, "Company X already has an active accounting connection", "The company already had an active connection on the service.", /remove it and ask the end customer/],
    ["server_error", 500, "Internal server error", "The service did not complete the migration after 5 failed attempts in a row.", /quote the correlationId/],
    ["timeout", null, "No answer within 30 s", "The service did not answer after 5 failed attempts in a row.", new RegExp(RECONNECT)],
  ])("failed with %s: the reason in Ferry's words beside the service's error, and a way forward", (kind, status, text, reason, action) => {
    const out = customerOutcome({ ...base, attempts: 5, lastError: error({ kind, status, error: text, correlationId: "corr-1" }) });
    expect(out.reason).toBe(reason);
    // The report shows the error beside the reason: neither repeats the other.
    expect(out.reason).not.toContain(text);
    expect(text).not.toContain(out.reason!);
    expect(out.action).toMatch(action);
  });

  it("failed on a refused row: the reason says so, the error keeps the fields", () => {
    const out = customerOutcome({ ...base, lastError: error({ kind: "bad_request", status: 400, error: "Bad request", validation: [{ itemId: "realmId", message: "must be digits" }] }) });
    expect(out.reason).toBe("The service refused the company's details.");
    expect(out.action).toMatch(/^Correct this company's row in your token file/);
  });

  it("failed on the sync, with the engine's error: in words, without repeating the data types it names", () => {
    const text = "2 data types did not sync: bills FetchError, invoices FetchError.";
    const out = customerOutcome({
      ...base,
      outcomeReason: text,
      lastError: error({ kind: "sync_failed", error: text }),
      checks: { connection: "Linked", dataTypes: [{ dataType: "bills", status: "FetchError", records: null }, { dataType: "invoices", status: "FetchError", records: null }] },
    });
    expect(out.reason).toBe("The company is connected, but the platform failed to return some of its data.");
    expect(out.action).toMatch(/^Ask the service to sync these data types again/);
  });

  it("failed data checks: AuthError means reconnecting, FetchError syncing again", () => {
    const auth = customerOutcome({ ...base, checks: { connection: "Linked", dataTypes: [{ dataType: "invoices", status: "AuthError", records: null }] } });
    expect(auth).toEqual({
      reason: "The platform refused the migrated tokens when syncing invoices.",
      action:
        "The platform says the tokens in your file were replaced (refused during the sync, probably refreshed by your old app): check that syncing in your old app is off, then send the end customer the company's reconnect link, or send fresh tokens for it in a supplementary file.",
    });
    const fetch = customerOutcome({
      ...base,
      checks: {
        connection: "Linked",
        dataTypes: [
          { dataType: "bills", status: "FetchError", records: null },
          { dataType: "invoices", status: "FetchError", records: null },
          { dataType: "accounts", status: "Complete", records: 3 },
        ],
      },
    });
    expect(fetch.reason).toBe("The company is connected, but the platform failed to return bills, invoices.");
    expect(fetch.action).toMatch(/^Ask the service to sync these data types again/);
  });

  it("set aside: support's reason, and how to bring the company back", () => {
    const out = customerOutcome({ ...base, state: "set_aside", outcomeReason: "Duplicate of row 12" });
    expect(out.reason).toBe("Set aside by support: Duplicate of row 12.");
    expect(out.action).toMatch(/^Not migrated\. If the company should still move, ask the end customer to reconnect/);
    expect(customerOutcome({ ...base, state: "set_aside" }).reason).toBe("Set aside by support.");
  });

  it("nothing for a company still on its way (no report holds one)", () => {
    for (const state of ["pending", "company_created", "connection_created", "authorized", "sync_requested"] as const) {
      expect(customerOutcome({ ...base, state })).toEqual({ reason: null, action: null });
    }
  });
});

describe("reading the checks the engine stored", () => {
  it("reads the checks the engine stores, data types by name (jsonb keeps no key order), and says them in one line", () => {
    const at = "2026-11-24T10:00:00.000Z";
    const checks = readChecks({
      connection: { status: "Linked", at },
      sync: { requestedAt: at, polls: 4, dataTypes: { chartOfAccounts: "Complete", bills: "FetchError", journals: "NotSupported" } },
      read: { dataType: "chartOfAccounts", records: 1200, at },
      extra: true,
    });
    expect(checks).toEqual({
      connection: "Linked",
      dataTypes: [
        { dataType: "bills", status: "FetchError", records: null },
        { dataType: "chartOfAccounts", status: "Complete", records: 1200 },
        { dataType: "journals", status: "NotSupported", records: null },
      ],
    });
    expect(describeChecks(checks)).toBe("Linked; 1 of 3 data types complete, 1 not supported; FetchError: bills; 1,200 records");
    expect(describeChecks(readChecks({ connection: { status: "Deauthorized", at } }))).toBe("Deauthorized");
  });

  it("says one data type and one record in the singular", () => {
    const at = "2026-11-24T10:00:00.000Z";
    const checks = readChecks({ connection: { status: "Linked", at }, sync: { requestedAt: at, polls: 1, dataTypes: { chartOfAccounts: "Complete" } }, read: { dataType: "chartOfAccounts", records: 1, at } });
    expect(describeChecks(checks)).toBe("Linked; 1 of 1 data type complete; 1 record");
  });

  it("reads a malformed or empty value as absent, never failing the report", () => {
    for (const raw of [null, undefined, "Linked", 42, { sync: { dataTypes: "all" } }, { connection: "Linked" }, {}]) expect(readChecks(raw)).toBeNull();
    expect(describeChecks(null)).toBe("Not checked");
  });
});
