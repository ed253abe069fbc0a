import { describe, expect, it } from "vitest";
import { failureWords, validationLines } from "@/core/migration/failure";
import type { StoredError } from "./pipeline";
import { readFailure } from "./stored-failure";

describe("reading a failure the engine stored", () => {
  it("keeps the service's status, text, correlationId and validation of an error", () => {
    const failure = readFailure({
      kind: "bad_request",
      status: 400,
      error: "Bad request",
      correlationId: "c-1",
      validation: { errors: [{ itemId: "realmId", message: "must be digits", validatorName: "x" }, { message: "general" }], warnings: [] },
      service: "PublicApi",
    });
    expect(failure).toMatchObject({ kind: "bad_request", status: 400, error: "Bad request", correlationId: "c-1", service: "PublicApi" });
    expect(validationLines(failure!)).toEqual(["realmId: must be digits", "general"]);
    expect(failureWords(failure!)).toBe("400 Bad request (realmId: must be digits; general)");
  });

  it("reads everything the engine writes, the call and the time included", () => {
    const stored: StoredError = {
      operation: "authorizeConnection",
      kind: "reauthorization_required",
      status: 200,
      service: "PublicApi",
      error: "Deauthorized: invalid_grant",
      correlationId: "corr-9",
      validation: null,
      at: "2026-11-24T10:00:00.000Z",
    };
    expect(readFailure(stored)).toEqual({
      operation: "authorizeConnection",
      kind: "reauthorization_required",
      status: 200,
      service: "PublicApi",
      error: "Deauthorized: invalid_grant",
      correlationId: "corr-9",
      validation: [],
      at: new Date("2026-11-24T10:00:00.000Z"),
    });
  });

  it("reads a malformed or empty value as absent, never failing the report", () => {
    for (const raw of [null, undefined, "boom", 42, { status: "500" }, {}]) expect(readFailure(raw)).toBeNull();
  });

  it("reads an odd call name, service or time as unknown, keeping the failure itself", () => {
    expect(readFailure({ kind: "timeout", status: null, error: "No answer within 30 s", correlationId: null, operation: 7, service: {}, at: "yesterday" })).toEqual({
      operation: null,
      kind: "timeout",
      status: null,
      service: null,
      error: "No answer within 30 s",
      correlationId: null,
      validation: [],
      at: null,
    });
  });
});
