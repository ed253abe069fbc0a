import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { isFinal } from "./query-client";

describe("isFinal", () => {
  it("knows browser-side tRPC errors that a retry cannot fix", () => {
    expect(isFinal({ message: "x", data: { code: "FORBIDDEN" } })).toBe(true);
    expect(isFinal({ message: "x", data: { code: "INTERNAL_SERVER_ERROR" } })).toBe(false);
  });

  it("knows server-side TRPCErrors from an RSC prefetch", () => {
    expect(isFinal(new TRPCError({ code: "NOT_FOUND" }))).toBe(true);
    expect(isFinal(new TRPCError({ code: "TIMEOUT" }))).toBe(false);
  });

  it("retries anything else, such as a network failure", () => {
    expect(isFinal(new TypeError("Failed to fetch"))).toBe(false);
    expect(isFinal(null)).toBe(false);
  });
});
