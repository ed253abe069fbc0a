import { describe, expect, it } from "vitest";
import { digestsWith, digestWeek, LATE_REMINDER_CAP, reminderDue, remindsWith } from "./reminders";

const H = 3_600_000;
const D = 24 * H;
const since = new Date("2026-11-20T09:00:00Z");
const move = { since, dueAt: new Date(since.getTime() + 5 * D) };
const at = (ms: number) => new Date(move.dueAt.getTime() + ms);

describe("reminders of a move", () => {
  it("none while more than a day is left", () => {
    expect(reminderDue(move, [], at(-D - 1))).toBeNull();
  });

  it("one a day before it is due, once", () => {
    expect(reminderDue(move, [], at(-D))).toEqual({ kind: "due_soon", seq: 0 });
    expect(reminderDue(move, [{ kind: "due_soon", seq: 0 }], at(-H))).toBeNull();
  });

  it("none before due for a move of a day or less (its start already said it)", () => {
    const short = { since, dueAt: new Date(since.getTime() + D) };
    expect(reminderDue(short, [], new Date(since.getTime() + 20 * H))).toBeNull();
  });

  it("daily while late, each day once, capped", () => {
    expect(reminderDue(move, [{ kind: "due_soon", seq: 0 }], at(1))).toEqual({ kind: "late", seq: 0 });
    expect(reminderDue(move, [{ kind: "late", seq: 0 }], at(D - 1))).toBeNull();
    expect(reminderDue(move, [{ kind: "late", seq: 0 }], at(D))).toEqual({ kind: "late", seq: 1 });
    const all = Array.from({ length: LATE_REMINDER_CAP }, (_, seq) => ({ kind: "late" as const, seq }));
    expect(reminderDue(move, all.slice(0, -1), at((LATE_REMINDER_CAP - 1) * D))).toEqual({ kind: "late", seq: LATE_REMINDER_CAP - 1 });
    expect(reminderDue(move, all, at(LATE_REMINDER_CAP * D + H))).toBeNull();
  });

  it("after downtime, only the latest that fell due, not every one missed", () => {
    expect(reminderDue(move, [], at(3 * D + H))).toEqual({ kind: "late", seq: 3 });
    expect(reminderDue(move, [{ kind: "late", seq: 3 }], at(3 * D + 2 * H))).toBeNull();
  });
});

describe("the customers' weekly digest", () => {
  it("is due for the week that began on the last Monday at 07:00 UTC, named by that Monday", () => {
    expect(digestWeek(new Date("2026-11-30T07:00:00Z"))).toBe("2026-11-30"); // Monday 07:00
    expect(digestWeek(new Date("2026-12-03T15:00:00Z"))).toBe("2026-11-30"); // later that week: caught up
    expect(digestWeek(new Date("2026-12-06T23:59:00Z"))).toBe("2026-11-30"); // Sunday night
    expect(digestWeek(new Date("2026-12-07T06:59:00Z"))).toBe("2026-11-30"); // Monday before 07:00: still last week's
    expect(digestWeek(new Date("2026-12-07T07:00:00Z"))).toBe("2026-12-07");
  });

  it("goes to everyone but those who switched mail off; reminders only to those who want every mail", () => {
    expect([digestsWith("every"), digestsWith("digest"), digestsWith("off")]).toEqual([true, true, false]);
    expect([remindsWith("every"), remindsWith("digest"), remindsWith("off")]).toEqual([true, false, false]);
  });
});
