import { describe, expect, it } from "vitest";
import { checkBaseUrl, isLoopbackHost } from "./base-url";

describe("a target's base URL", () => {
  it.each([
    ["https://api.codat.io", "https://api.codat.io"],
    ["https://api.codat.io/", "https://api.codat.io"],
    ["  https://proxy.example.test/codat/  ", "https://proxy.example.test/codat"],
    ["http://127.0.0.1:4010", "http://127.0.0.1:4010"],
    ["http://127.255.0.9:80/x", "http://127.255.0.9/x"],
    ["http://localhost:4010", "http://localhost:4010"],
    ["http://LOCALHOST:4010", "http://localhost:4010"],
    ["http://[::1]:4010", "http://[::1]:4010"],
    ["http://[::ffff:127.0.0.1]:4010", "http://[::ffff:7f00:1]:4010"],
    // The WHATWG parser reads these as 127.0.0.1 too.
    ["http://2130706433:4010", "http://127.0.0.1:4010"],
    ["http://0x7f.1:4010", "http://127.0.0.1:4010"],
  ])("takes %s as %s", (raw, stored) => {
    expect(checkBaseUrl(raw)).toEqual({ ok: true, url: stored });
  });

  it.each([
    ["http://api.codat.io", "must use https"],
    ["http://10.1.2.3", "must use https"],
    ["http://192.168.0.10:4010", "must use https"],
    ["http://[::2]:4010", "must use https"],
    ["http://[fe80::1]:4010", "must use https"],
    ["http://128.0.0.1", "must use https"],
    ["http://localhost.evil.test", "must use https"],
    ["http://127.0.0.1.nip.io", "must use https"],
    ["http://0.0.0.0:4010", "must use https"],
    ["ftp://api.codat.io", "must start with https://"],
    ["file:///etc/passwd", "must start with https://"],
    ["https://key:x@api.codat.io", "not in the URL"],
    ["https://api.codat.io/?apiKey=1", "leave out any ? or # part"],
    ["https://api.codat.io/#x", "leave out any ? or # part"],
    ["api.codat.io", "Enter the service's base URL"],
  ])("refuses %s (%s)", (raw, words) => {
    const result = checkBaseUrl(raw);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.problem).toContain(words);
  });

  it("counts only this machine's own addresses as loopback", () => {
    expect(["localhost", "127.0.0.1", "127.1.2.3", "[::1]", "::1", "[::ffff:7f00:1]"].map(isLoopbackHost)).toEqual([true, true, true, true, true, true]);
    expect(["localhost.", "example.test", "10.0.0.1", "[::]", "0.0.0.0", "[::ffff:a00:1]"].map(isLoopbackHost)).toEqual([false, false, false, false, false, false]);
  });
});
