/** The pacer's decisions alone: the server's clock from answers' dates, the window from their headers, the concurrency from their statuses. */
import { describe, expect, it } from "vitest";
import { concurrencyAfter, tightenOffset, windowAfter, type PacerWindow } from "./pacer";

describe("tightenOffset", () => {
  const unknown = { lo: Number.NEGATIVE_INFINITY, hi: Number.POSITIVE_INFINITY };

  it("bounds the server's clock between an answer's send and its receipt, a Date being whole seconds, and tightens with every answer", () => {
    const first = tightenOffset(unknown, { sentAt: 100, receivedAt: 200, date: 10_000 });
    expect(first).toEqual({ lo: 9_800, hi: 10_900 });
    expect(tightenOffset(first, { sentAt: 300, receivedAt: 350, date: 10_000 })).toEqual({ lo: 9_800, hi: 10_700 });
  });

  it("starts again from an answer that cannot fit the bounds (the server's clock jumped), and keeps them without a Date", () => {
    const bounds = { lo: 9_800, hi: 10_700 };
    expect(tightenOffset(bounds, { sentAt: 400, receivedAt: 450, date: 100_000 })).toEqual({ lo: 99_550, hi: 100_600 });
    expect(tightenOffset(bounds, { sentAt: 400, receivedAt: 450, date: null })).toBe(bounds);
  });
});

describe("windowAfter", () => {
  const answer = { seq: 3, limit: 40, remaining: 30, resetServer: 5_000, resetAt: 1_200, receivedAt: 1_000, inFlight: 4 };
  const window: PacerWindow = { limit: 40, budget: 27, resetAt: 1_200, resetServer: 5_000, lowestRemaining: 30, seq: 3, long: false };

  it("opens a window from the first answer, taking off every other request still unanswered", () => {
    expect(windowAfter(null, answer)).toEqual({ window, moved: true });
  });

  it("ignores an answer from a window that has ended", () => {
    expect(windowAfter(null, { ...answer, resetAt: 1_000 })).toBeNull();
    expect(windowAfter(window, { ...answer, seq: 9, resetServer: 9_000, resetAt: 900 })).toBeNull();
  });

  it("within a window, keeps the lowest remaining (the latest the server counted), whatever order answers come in", () => {
    expect(windowAfter(window, { ...answer, seq: 2, remaining: 25, resetServer: 5_050, inFlight: 2 })).toEqual({
      window: { ...window, lowestRemaining: 25, budget: 24, seq: 3 },
      moved: false,
    });
    expect(windowAfter(window, { ...answer, seq: 5, remaining: 31 })).toBeNull();
  });

  it("moves to a new window on a later answer, never on one sent before the window's own; a reset a day ahead is a quota period", () => {
    expect(windowAfter(window, { ...answer, seq: 2, resetServer: 6_000 })).toBeNull();
    expect(windowAfter(window, { ...answer, seq: 4, remaining: 39, resetServer: 6_000, resetAt: 2_200, inFlight: 1 })).toEqual({
      window: { limit: 40, budget: 39, resetAt: 2_200, resetServer: 6_000, lowestRemaining: 39, seq: 4, long: false },
      moved: true,
    });
    const day = 86_400_000;
    expect(windowAfter(null, { ...answer, resetAt: answer.receivedAt + day })?.window.long).toBe(true);
  });
});

describe("concurrencyAfter", () => {
  const at = { concurrency: 8, max: 64, cutAtSeq: 0, lastSeq: 20 };

  it("halves on a 429 or a 503 once per burst: answers to requests sent before the cut cut no more", () => {
    const cut = concurrencyAfter({ ...at, status: 429, answerSeq: 10 });
    expect(cut).toEqual({ concurrency: 4, cutAtSeq: 20 });
    expect(concurrencyAfter({ ...at, ...cut, status: 429, answerSeq: 15 })).toEqual(cut);
    expect(concurrencyAfter({ ...at, ...cut, status: 503, answerSeq: 21, lastSeq: 30 })).toEqual({ concurrency: 2, cutAtSeq: 30 });
    expect(concurrencyAfter({ ...at, concurrency: 1, status: 429, answerSeq: 10 }).concurrency).toBe(1);
  });

  it("grows by one per window of clean answers, up to the most allowed; other server errors leave it", () => {
    expect(concurrencyAfter({ ...at, concurrency: 4, status: 200, answerSeq: 10 })).toEqual({ concurrency: 4.25, cutAtSeq: 0 });
    expect(concurrencyAfter({ ...at, concurrency: 4, status: 404, answerSeq: 10 }).concurrency).toBe(4.25);
    expect(concurrencyAfter({ ...at, concurrency: 64, status: 200, answerSeq: 10 }).concurrency).toBe(64);
    expect(concurrencyAfter({ ...at, status: 500, answerSeq: 10 })).toEqual({ concurrency: 8, cutAtSeq: 0 });
  });
});
