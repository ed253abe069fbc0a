import { describe, expect, it } from "vitest";
import { logSafe } from "./log-safe";

describe("logSafe", () => {
  it("writes every kind of line break as a visible escape, so a value cannot start a log line of its own", () => {
    const forged = 'Carol\n[next-auth][error][CREDENTIALS] forged\r\nDan\rEve\u2028Frank\u2029Gina\u0085Hal';
    const safe = logSafe(forged);
    expect(safe).toBe("Carol\\n[next-auth][error][CREDENTIALS] forged\\r\\nDan\\rEve\\u2028Frank\\u2029Gina\\u0085Hal");
    expect(safe).not.toMatch(/[\n\r\u2028\u2029\u0085]/);
  });

  it("escapes terminal control sequences and other control characters, and keeps everything else", () => {
    expect(logSafe("\u001b[2J\u0000\u0007\u007f\tend")).toBe("\\u001b[2J\\u0000\\u0007\\u007f\\tend");
    expect(logSafe('Zoë "Z" O\'Neil; Ünal, 山田 — café')).toBe('Zoë "Z" O\'Neil; Ünal, 山田 — café');
  });

  it("takes an Error's message, and anything else as text", () => {
    expect(logSafe(new Error("bad\nthing"))).toBe("bad\\nthing");
    expect(logSafe(42)).toBe("42");
    expect(logSafe(null)).toBe("null");
  });
});
