/** Reading the rate-limit headers in the forms the reference leaves open (§9: date or epoch; seconds or HTTP date). */
import { describe, expect, it } from "vitest";
import { parseRateLimit, parseRetryAfter } from "./rate-limit";

describe("parseRateLimit", () => {
  it("reads limit, remaining and an ISO reset, measured against the answer's Date header", () => {
    const headers = new Headers({
      "X-Rate-Limit-Limit": "101000",
      "X-Rate-Limit-Remaining": "42",
      "X-Rate-Limit-Reset": "2026-11-23T00:00:00.000Z",
      Date: "Sun, 22 Nov 2026 23:59:00 GMT",
    });
    // The local clock is far off (e.g. the sandbox clock was advanced): the Date header decides.
    expect(parseRateLimit(headers, Date.UTC(2020, 0, 1))).toEqual({
      limit: 101000,
      remaining: 42,
      reset: new Date("2026-11-23T00:00:00.000Z"),
      resetInMs: 60_000,
      retryAfterMs: null,
    });
  });

  it("accepts a reset in epoch seconds and falls back to the local clock without a Date header", () => {
    const received = Date.UTC(2026, 10, 22, 10, 0, 0);
    const info = parseRateLimit(new Headers({ "X-Rate-Limit-Reset": String(received / 1000 + 30) }), received);
    expect(info).toMatchObject({ limit: null, remaining: null, resetInMs: 30_000 });
  });

  it("is null when an answer carries none of the headers", () => {
    expect(parseRateLimit(new Headers({ "Content-Type": "application/json" }))).toBeNull();
  });
});

describe("parseRetryAfter", () => {
  it("reads whole seconds and HTTP dates", () => {
    const now = Date.UTC(2026, 10, 22, 10, 0, 0);
    expect(parseRetryAfter("30", now)).toBe(30_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 10:00:05 GMT", now)).toBe(5_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 09:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter("soon", now)).toBeNull();
  });
});
