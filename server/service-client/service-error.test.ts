/**
 * The kind of every error answer, including the wordings the reference documents beside the
 * sandbox's (e.g. the docs' bare "Company limit exceeded"), and the scrubbing of secrets.
 */
import { describe, expect, it } from "vitest";
import { classifyHttpError, redact, ServiceError, type ServiceErrorKind } from "./service-error";

const expired = { errors: [{ itemId: null, message: "Account expired. Learn more at https://docs.codat.io/using-the-api/errors", validatorName: null }], warnings: [] };

describe("classifyHttpError", () => {
  it.each([
    [400, "Error processing request - not valid.", "bad_request"],
    [401, "Unauthorized", "unauthorized"],
    [402, "CompanyValidationException: Company limit exceeded", "company_limit"],
    [402, "Company limit exceeded", "company_limit"],
    [402, "SyncSettingsValidationException: Sync schedule not allowed", "sync_schedule_not_allowed"],
    [402, "Payment Required", "account_expired"],
    [402, "Something else entirely", "unexpected"],
    [403, "You are using an outdated API key or a key not associated with that resource.", "forbidden"],
    [404, "No company was found with ID 1", "not_found"],
    [404, "No data available for accounts for ID 1", "not_found"],
    [404, "Datatype invoices not supported by platform(s) Shopify", "data_type_not_supported"],
    [405, "Method Not Allowed", "method_not_allowed"],
    [409, "The data set has not been requested.", "not_ready"],
    [409, "DatasetAlreadyInProgressException: Cannot queue invoices sync for c as previous sync d is still in progress", "not_ready"],
    [409, "Maximum number of API keys reached. To create a new API key, delete an unused key and try again.", "too_many_values"],
    [409, "DataConnectionValidationException: Company c already has an active accounting connection (d, Xero, Linked).", "active_connection_exists"],
    [429, "You have made too many requests in a given amount of time; please retry later.", "rate_limited"],
    [500, "There is a problem with our server. Please try again later.", "server_error"],
    [503, "The Codat API is temporarily offline for maintenance. Please try again later.", "maintenance"],
    [451, "Platform 'qudb' is not currently available for compliance purposes.", "unexpected"],
    [502, "Bad Gateway", "unexpected"],
  ] as const)("%i %s → %s", (status, error, kind) => {
    expect(classifyHttpError({ status, error, validation: null })).toBe(kind satisfies ServiceErrorKind);
  });

  it("tells an expired account by its validation message when the text is not the usual one", () => {
    expect(classifyHttpError({ status: 402, error: "PaymentRequiredException", validation: expired })).toBe("account_expired");
  });
});

describe("redact and the error's text", () => {
  it("replaces every occurrence of each secret and ignores fragments too short to matter", () => {
    expect(redact("key abcdef and abcdef again, a b", ["abcdef", "a"])).toBe("key [redacted] and [redacted] again, a b");
  });

  it("describes the failure in one line with the correlationId to quote", () => {
    const error = new ServiceError({
      kind: "company_limit",
      operation: "createCompany",
      method: "POST",
      path: "/companies",
      status: 402,
      service: "PublicApi",
      error: "CompanyValidationException: Company limit exceeded",
      correlationId: "c0ffee00-0000-4000-8000-000000000000",
      validation: null,
      retryAfterMs: null,
      rateLimit: null,
      attempts: 1,
      durationMs: 12,
    });
    expect(error.message).toBe(
      "createCompany failed: 402 PublicApi: CompanyValidationException: Company limit exceeded (correlationId c0ffee00-0000-4000-8000-000000000000)",
    );
    expect(error.retryable).toBe(false);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ name: "ServiceError", kind: "company_limit", status: 402, attempts: 1 });
  });
});
