import { describe, expect, it } from "vitest";
import { createRouter, MalformedPathError } from "./router";

const router = createRouter<null, string>([
  { method: "GET", pattern: "/companies", handler: () => "list" },
  { method: "POST", pattern: "/companies", handler: () => "create" },
  { method: "GET", pattern: "/companies/:companyId", handler: () => "get" },
  { method: "POST", pattern: "/companies/:companyId/data/all", handler: () => "all" },
  { method: "GET", pattern: "/companies/:companyId/data/:name", handler: () => "read" },
]);

describe("router", () => {
  it("finds a handler and decodes parameters", () => {
    const match = router.match("GET", "/companies/a%20b");
    expect(match).toMatchObject({ kind: "found", params: { companyId: "a b" } });
  });

  it("prefers literal segments over parameters", () => {
    expect(router.match("POST", "/companies/x/data/all")).toMatchObject({ kind: "found", pattern: "/companies/:companyId/data/all" });
    expect(router.match("GET", "/companies/x/data/all")).toEqual({ kind: "method-not-allowed", allowed: ["POST"] });
    expect(router.match("GET", "/companies/x/data/invoices")).toMatchObject({ kind: "found", pattern: "/companies/:companyId/data/:name" });
  });

  it("answers 405 with the allowed methods and 404 for unknown paths", () => {
    expect(router.match("DELETE", "/companies")).toEqual({ kind: "method-not-allowed", allowed: ["GET", "POST"] });
    expect(router.match("GET", "/nope")).toEqual({ kind: "not-found" });
    expect(router.match("GET", "/companies//data/all")).toEqual({ kind: "not-found" });
  });

  it("ignores one trailing slash and refuses bad percent-encoding", () => {
    expect(router.match("GET", "/companies/")).toMatchObject({ kind: "found" });
    expect(() => router.match("GET", "/companies/%E0%A4%A")).toThrow(MalformedPathError);
  });
});
