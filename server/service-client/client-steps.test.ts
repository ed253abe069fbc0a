/** The client's steps that read an answer, alone: an error answer into words, a success into checked data, a redirect's target. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkAnswer, readErrorAnswer, redirectTarget } from "./client";
import { CompanySchema } from "./schemas";

describe("readErrorAnswer", () => {
  it("reads the service's JSON error body: its text, service, correlationId and scrubbed validation, and the kind they make", () => {
    const text = JSON.stringify({
      statusCode: 402,
      service: "PublicApi",
      error: "Company limit exceeded",
      correlationId: "c-1",
      validation: { errors: [{ itemId: "name", message: "too long for key-1234", validatorName: null }], warnings: [] },
    });
    expect(readErrorAnswer({ status: 402, statusText: "Payment Required", text, secrets: ["key-1234"] })).toEqual({
      kind: "company_limit",
      error: "Company limit exceeded",
      service: "PublicApi",
      correlationId: "c-1",
      validation: { errors: [{ itemId: "name", message: "too long for [redacted]", validatorName: null }], warnings: [] },
    });
  });

  it("says the status in words when the body is not the service's (a proxy's HTML page), leaving the correlationId to the header", () => {
    expect(readErrorAnswer({ status: 502, statusText: "Bad Gateway", text: "<html>bad gateway</html>", secrets: [] })).toEqual({
      kind: "unexpected",
      error: "HTTP 502 Bad Gateway",
      service: null,
      correlationId: null,
      validation: null,
    });
    expect(readErrorAnswer({ status: 500, statusText: "", text: "", secrets: [] })).toMatchObject({ kind: "server_error", error: "HTTP 500" });
  });
});

describe("checkAnswer", () => {
  const call = { status: 200, operation: "getCompany" };

  it("checks the JSON body with the call's schema, and an empty body as undefined (a 204)", () => {
    expect(checkAnswer({ ...call, schema: CompanySchema, text: JSON.stringify({ id: "c1", name: "Acme" }) })).toMatchObject({ data: { id: "c1", name: "Acme", tags: {} } });
    expect(checkAnswer({ ...call, schema: z.undefined(), text: "  " })).toEqual({ data: undefined });
  });

  it("words a missing or unreadable body, and one the schema refuses by its paths (never its values)", () => {
    expect(checkAnswer({ ...call, schema: CompanySchema, text: "" })).toEqual({ problem: "The service answered 200 without the JSON body getCompany expects." });
    expect(checkAnswer({ ...call, schema: CompanySchema, text: "not json" })).toEqual({ problem: "The service answered 200 without the JSON body getCompany expects." });
    const refused = checkAnswer({ ...call, schema: CompanySchema, text: JSON.stringify({ id: "", name: "secret-name-value", tags: 5 }) });
    expect(refused).toMatchObject({ problem: expect.stringMatching(/^The service answered 200 with a body getCompany does not recognise: id: .*; tags: .*\.$/) });
    expect(JSON.stringify(refused)).not.toContain("secret-name-value");
  });
});

describe("redirectTarget", () => {
  const url = new URL("https://api.example.com/companies?page=1");

  it("resolves a Location against the request's URL; keeps one that is no URL as written; says when there is none", () => {
    expect(redirectTarget("/elsewhere", url)).toBe("https://api.example.com/elsewhere");
    expect(redirectTarget("http://other.example/x", url)).toBe("http://other.example/x");
    expect(redirectTarget("http://[bad", url)).toBe("http://[bad");
    expect(redirectTarget(null, url)).toBe("no location");
  });
});
