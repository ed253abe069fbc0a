/** The sandbox server's address steps alone: its base path and the public URL clients are given. */
import { describe, expect, it } from "vitest";
import { normalizeBasePath, publicUrlOf } from "./server";

describe("normalizeBasePath", () => {
  it("makes a prefix '' or '/segment…' without a trailing slash, and refuses one that is no path", () => {
    expect(normalizeBasePath(undefined)).toBe("");
    expect(normalizeBasePath(" / ")).toBe("");
    expect(normalizeBasePath("codat/")).toBe("/codat");
    expect(normalizeBasePath("/a/b")).toBe("/a/b");
    expect(() => normalizeBasePath("/a b")).toThrow("Not a valid base path");
  });
});

describe("publicUrlOf", () => {
  it("reaches a wildcard host on loopback, puts an IPv6 host in brackets, and ends with the base path", () => {
    expect(publicUrlOf({ host: undefined, port: 4010, basePath: "" })).toBe("http://127.0.0.1:4010");
    expect(publicUrlOf({ host: "0.0.0.0", port: 4010, basePath: "/codat" })).toBe("http://127.0.0.1:4010/codat");
    expect(publicUrlOf({ host: "::", port: 4010, basePath: "" })).toBe("http://127.0.0.1:4010");
    expect(publicUrlOf({ host: "::1", port: 4010, basePath: "" })).toBe("http://[::1]:4010");
    expect(publicUrlOf({ host: "sandbox.local", port: 80, basePath: "/x" })).toBe("http://sandbox.local:80/x");
  });
});
