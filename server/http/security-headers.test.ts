import { describe, expect, it } from "vitest";
import { contentSecurityPolicy } from "./security-headers";

describe("the pages' Content-Security-Policy", () => {
  it("lets only this request's nonce run scripts, forbids framing, and allows no eval in production", () => {
    const csp = contentSecurityPolicy({ nonce: "abc123", dev: false, https: false });
    expect(csp).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(csp).toContain("style-src 'self' 'nonce-abc123'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).not.toContain("upgrade-insecure-requests");
  });

  it("allows what Next's dev server needs only in development, and upgrades requests only over https", () => {
    expect(contentSecurityPolicy({ nonce: "n", dev: true, https: false })).toContain("'unsafe-eval'");
    expect(contentSecurityPolicy({ nonce: "n", dev: false, https: true })).toContain("upgrade-insecure-requests");
  });
});
