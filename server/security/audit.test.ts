import { describe, expect, it } from "vitest";
import { redact } from "./audit";

describe("audit redaction", () => {
  it("replaces values under secret-looking keys, at any depth", () => {
    expect(
      redact({ name: "x", clientSecret: "s", nested: { accessToken: "t", list: [{ apiKey: "k", ok: 1 }] }, password: "p" }),
    ).toEqual({ name: "x", clientSecret: "[redacted]", nested: { accessToken: "[redacted]", list: [{ apiKey: "[redacted]", ok: 1 }] }, password: "[redacted]" });
  });
});
