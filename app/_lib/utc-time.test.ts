import { describe, expect, it } from "vitest";
import { describeUtc, formatUtcDay, formatUtcField, parseUtcDay, parseUtcField, UTC_FIELD_EXAMPLE } from "./utc-time";

const at = (iso: string) => new Date(iso).getTime();

describe("UTC times as people type them", () => {
  it("writes Ferry's one format, day first and 24-hour, whatever the machine's time zone", () => {
    expect(formatUtcField(new Date("2026-11-28T22:00:00Z"))).toBe("28 Nov 2026, 22:00");
    expect(formatUtcField(new Date("2026-03-05T07:14:00Z"))).toBe("5 Mar 2026, 07:14");
    expect(describeUtc(new Date("2026-11-28T22:00:00Z"))).toBe("Saturday 28 Nov 2026, 22:00 UTC");
  });

  it.each([
    [UTC_FIELD_EXAMPLE, "2026-11-28T22:00:00Z"],
    ["28 Nov 2026 22:00", "2026-11-28T22:00:00Z"],
    ["28 November 2026, 22:00", "2026-11-28T22:00:00Z"],
    ["  28   Nov 2026,   7:05 UTC ", "2026-11-28T07:05:00Z"],
    ["Sat 28 Nov 2026, 22:00", "2026-11-28T22:00:00Z"],
    ["2026-11-28 22:00", "2026-11-28T22:00:00Z"],
    ["2026-11-28T22:00", "2026-11-28T22:00:00Z"],
    ["28/11/2026 22:00", "2026-11-28T22:00:00Z"],
  ])("reads %j as UTC", (typed, iso) => {
    expect(parseUtcField(typed)?.getTime()).toBe(at(iso));
  });

  it("reads back what it writes", () => {
    const d = new Date("2027-01-02T03:04:00Z");
    expect(parseUtcField(formatUtcField(d))?.getTime()).toBe(d.getTime());
  });

  it.each(["", "   ", "abc", "31 Feb 2026, 10:00", "28 Nov 2026, 25:00", "11/28/2026, 09:00 AM", "28 Nov 2026"])("refuses %j", (typed) => {
    expect(parseUtcField(typed)).toBeNull();
  });
});

describe("days as people type them", () => {
  it.each([
    ["1 Dec 2026", "2026-12-01T00:00:00Z"],
    ["1 December 2026", "2026-12-01T00:00:00Z"],
    ["2026-12-01", "2026-12-01T00:00:00Z"],
    ["01/12/2026", "2026-12-01T00:00:00Z"],
    ["Tue 1 Dec 2026", "2026-12-01T00:00:00Z"],
  ])("reads %j as that day, at midnight UTC", (typed, iso) => {
    expect(parseUtcDay(typed)?.getTime()).toBe(new Date(iso).getTime());
  });

  it.each(["", "soon", "31 Feb 2026", "12/31/2026"])("refuses %j", (typed) => {
    expect(parseUtcDay(typed)).toBeNull();
  });

  it("writes the day the Ferry way", () => {
    expect(formatUtcDay(new Date("2026-12-01T00:00:00Z"))).toBe("1 Dec 2026");
  });
});
