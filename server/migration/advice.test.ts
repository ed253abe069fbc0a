/** The advice a failed test gives, keyed on the failure's kind, status and text. */
import { describe, expect, it } from "vitest";
import { adviceFor } from "./advice";

describe("adviceFor", () => {
  it("says the three main cases in the words of the issue", () => {
    expect(
      adviceFor({
        kind: "reauthorization_required",
        status: null,
        error: "400 Bad Request: QuickBooks Online rejected the credentials: invalid_grant: the refresh token was already used.",
        platformErrors: [{ statusCode: "400", statusText: "Bad Request", errorMessage: "… invalid_grant …" }],
      }),
    ).toEqual({
      code: "token_refreshed_after_export",
      text: "The old app probably refreshed this token after the file was exported: ask the customer to confirm syncing is off and export a new file.",
      reopenStep: 4,
    });
    expect(adviceFor({ kind: "company_limit", status: 402, error: "Company limit exceeded" })).toMatchObject({
      code: "company_limit",
      reopenStep: null,
      text: expect.stringContaining("The service account is on a free trial with 50 companies") as string,
    });
    for (const kind of ["unauthorized", "forbidden"] as const) {
      expect(adviceFor({ kind, status: kind === "unauthorized" ? 401 : 403, error: "Unauthorized" })).toMatchObject({
        code: "api_key_refused",
        text: expect.stringContaining("The service target's API key is wrong or not allowed") as string,
      });
    }
  });

  it("tells a refused authorization apart by the platform's status: revoked token, another account's tokens", () => {
    const refused = (statusCode: string) => adviceFor({ kind: "reauthorization_required", status: null, error: "refused", platformErrors: [{ statusCode, statusText: null, errorMessage: "refused" }] });
    expect(refused("401")).toMatchObject({ code: "token_revoked", reopenStep: null });
    expect(refused("403")).toMatchObject({ code: "tokens_of_another_account", reopenStep: null });
    expect(adviceFor({ kind: "auth_error_during_sync", status: null, error: "AuthError on invoices" })).toMatchObject({ code: "syncing_still_on", reopenStep: 4 });
  });

  it("keeps the failure's own words where they say more", () => {
    expect(adviceFor({ kind: "sync_failed", status: null, error: "1 data type did not sync: invoices FetchError." }).text).toMatch(/^1 data type did not sync: invoices FetchError\. Run the test again/);
    expect(adviceFor({ kind: "server_error", status: 500, error: "Internal Server Error" }).text).toContain("(500: Internal Server Error)");
    expect(adviceFor({ kind: "timeout", status: null, error: "No answer within 30000 ms." })).toMatchObject({ code: "service_unavailable" });
    expect(adviceFor({ kind: "unexpected", status: 418, error: "teapot" }).text).toContain("418: teapot");
  });
});
