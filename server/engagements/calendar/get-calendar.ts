/**
 * The window calendar (issue 30, item 3): a week or month of windows, the viewer's or everyone's,
 * each with its engagement, target and estimated requests, flagged where windows on one target
 * cannot all fit its limits (window-overlap.ts, with the limits the estimate uses:
 * server/targets/limits.ts and, for the built-in sandbox, its configured limit). Overlaps are
 * worked out over every engagement's windows, whoever's calendar is shown, and over each shown
 * window's neighbours (every window meeting one shown, and so on), so a flag does not depend on the view.
 */
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import type { Actor } from "@/core/accounts/actor";
import { formatDuration } from "@/core/format";
import { MAX_WINDOW_DAYS } from "@/core/engagements/window-schemas";
import { calendarRange, type Calendar, type CalendarQuery, type CalendarWindow, type Overlap } from "@/core/engagements/calendar-schemas";
import type { ServiceLimits } from "@/server/intake";
import { getManagedPlatform } from "@/server/platforms";
import { limitsOfTarget } from "@/server/targets/limits";
import { targetLimits, type SandboxAccess } from "../window/target-limits";
import { windowsMeeting, type CalendarRow } from "./calendar-repository";
import { findOverlaps, type OverlapFlag } from "./window-overlap";

const DAY = 86_400_000;
const MARGIN = MAX_WINDOW_DAYS * DAY;
const nf = new Intl.NumberFormat("en-GB");

/** The key windows meet on: the target's id, or "sandbox" for the built-in sandbox (also assumed when none is chosen). */
export const targetKeyOf = (row: { targetId: string | null; targetBuiltIn: boolean | null }) => (!row.targetId || row.targetBuiltIn ? "sandbox" : row.targetId);

export type KeyedLimits = { limits: ServiceLimits; source: string; name: string };

/** Each target's limits, by key (the sandbox's controls are asked once, if this process may). */
export async function limitsByTarget(rows: CalendarRow[], sandbox?: SandboxAccess): Promise<Map<string, KeyedLimits>> {
  const out = new Map<string, KeyedLimits>();
  for (const row of rows) {
    const key = targetKeyOf(row);
    if (out.has(key)) continue;
    if (key === "sandbox") {
      const t = await targetLimits(null, sandbox);
      out.set(key, { limits: t.limits, source: t.source, name: row.targetId && row.targetName ? row.targetName : "Ferry's sandbox" });
      continue;
    }
    const rule = limitsOfTarget({ builtIn: false, requestsPerMinute: row.targetRequestsPerMinute, dailyQuota: row.targetDailyQuota });
    if (rule.kind !== "service") continue;
    out.set(key, { limits: rule.limits, source: rule.source, name: row.targetName ?? key });
  }
  return out;
}

/**
 * Windows meeting [from, to) and every window that meets those, and so on (read again over the
 * wider span while some window sticks out of it, at most a few times): every window that could
 * share a span with one shown is read, usually in one query.
 */
export function* windowsAround(tx: Tx, range: { from: Date; to: Date }): Steps<CalendarRow[]> {
  let from = range.from.getTime();
  let to = range.to.getTime();
  let rows = yield* windowsMeeting(tx, range);
  for (let round = 0; round < 4 && rows.length; round++) {
    const lo = Math.min(from, ...rows.map((r) => r.startsAt.getTime()));
    const hi = Math.max(to, ...rows.map((r) => r.endsAt.getTime()));
    if (lo >= from && hi <= to) break;
    // A window's length is bounded, so each round widens by at most MARGIN either side.
    from = Math.max(lo, from - MARGIN);
    to = Math.min(hi, to + MARGIN);
    rows = yield* windowsMeeting(tx, { from: new Date(from), to: new Date(to) });
  }
  return rows;
}

/** Windows meeting [from, to) with their overlap flags, worked out over every window that meets them. */
export async function windowsWithOverlaps(database: Database, deps: { sandbox?: SandboxAccess }, range: { from: Date; to: Date }) {
  const rows = await readSteps(database, (tx) => windowsAround(tx, range));
  const limits = await limitsByTarget(rows, deps.sandbox);
  const flags = findOverlaps(
    rows.map((r) => ({ id: r.id, engagementId: r.engagementId, targetKey: targetKeyOf(r), startsAt: r.startsAt, endsAt: r.endsAt, requests: r.estimateRequests, companies: r.estimateCompanies })),
    (key) => limits.get(key)!.limits,
  );
  return { rows, limits, flags };
}

const dayWords = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short", day: "numeric", month: "short" });
const timeWords = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", hour: "2-digit", minute: "2-digit" });

/** "Mon 7 Dec, 09:00–10:00 UTC", or both days when the span crosses midnight. */
export function spanText(from: Date, to: Date): string {
  const sameDay = from.toISOString().slice(0, 10) === new Date(to.getTime() - 1).toISOString().slice(0, 10);
  const day = (d: Date) => dayWords.format(d).replace(",", "");
  return sameDay ? `${day(from)}, ${timeWords.format(from)}–${timeWords.format(to)} UTC` : `${day(from)} ${timeWords.format(from)} – ${day(to)} ${timeWords.format(to)} UTC`;
}

/** A flag in words, with its numbers. */
export function overlapText(flag: OverlapFlag, references: string[], target: KeyedLimits): string {
  const others = references.length ? `With ${references.join(", ")}` : "With other windows";
  const span = spanText(flag.from, flag.to);
  if (flag.limit === "rate") {
    return `${others} on ${target.name}: ${nf.format(flag.needed)} requests are needed in ${span}; the per-address limit allows ${nf.format(flag.allowed)} in that time (${formatDuration((flag.to.getTime() - flag.from.getTime()) / 1000)}).`;
  }
  return `${others} on ${target.name}: the companies need ${flag.quotaDaysNeeded} days of the daily quota (${nf.format(flag.needed)} requests) in ${span}, which touches ${flag.daysSpanned} UTC ${flag.daysSpanned === 1 ? "day" : "days"} (${nf.format(flag.allowed)} requests allowed).`;
}

/** A flag as the calendar and the proposal form show it. */
export function overlapView(flag: OverlapFlag, byId: Map<string, CalendarRow>, target: KeyedLimits): Overlap {
  const withRows = flag.withWindowIds.map((id) => byId.get(id)).filter((r): r is CalendarRow => !!r);
  const references = [...new Set(withRows.map((r) => `${r.reference} (${r.organizationName})`))];
  return {
    limit: flag.limit,
    from: flag.from,
    to: flag.to,
    needed: flag.needed,
    allowed: flag.allowed,
    quotaDaysNeeded: flag.quotaDaysNeeded,
    daysSpanned: flag.daysSpanned,
    with: withRows.map((r) => ({ windowId: r.id, engagementId: r.engagementId, reference: r.reference })),
    text: overlapText(flag, references, target),
  };
}

function windowOf(row: CalendarRow, flag: OverlapFlag | undefined, byId: Map<string, CalendarRow>, target: KeyedLimits): CalendarWindow {
  return {
    id: row.id,
    engagementId: row.engagementId,
    reference: row.reference,
    organizationName: row.organizationName,
    platformName: getManagedPlatform(row.platformKey)?.name ?? row.platformKey,
    ownerId: row.ownerId,
    ownerName: row.ownerName,
    status: row.status === "accepted" ? "accepted" : "proposed",
    startsAt: row.startsAt,
    endsAt: row.endsAt,
    target: { key: targetKeyOf(row), name: target.name, limits: target.source },
    estimateRequests: row.estimateRequests,
    estimateCompanies: row.estimateCompanies,
    estimate: formatDuration(row.estimateSeconds),
    overlap: flag ? overlapView(flag, byId, target) : null,
  };
}

/** The calendar of a week or month, the viewer's windows or everyone's. */
export async function getCalendar(database: Database, deps: { sandbox?: SandboxAccess }, actor: Actor, query: CalendarQuery, now = new Date()): Promise<Calendar> {
  const { from, to, anchor } = calendarRange(query.view, query.day, now);
  const { rows, limits, flags } = await windowsWithOverlaps(database, deps, { from, to });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const shown = rows.filter((r) => r.startsAt < to && r.endsAt > from && (query.scope === "everyone" || r.ownerId === actor.id));
  const windows = shown.map((r) => windowOf(r, flags.get(r.id), byId, limits.get(targetKeyOf(r))!));
  return { view: query.view, scope: query.scope, day: anchor, from, to, windows, flagged: windows.filter((w) => w.overlap).length };
}

/** Windows of one owner's engagements from `from` to `to`, with their flags (for the .ics feed). */
export async function ownerWindows(database: Database, deps: { sandbox?: SandboxAccess }, ownerId: string, range: { from: Date; to: Date }): Promise<CalendarWindow[]> {
  const { rows, limits, flags } = await windowsWithOverlaps(database, deps, range);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return rows
    .filter((r) => r.ownerId === ownerId && r.startsAt < range.to && r.endsAt > range.from)
    .map((r) => windowOf(r, flags.get(r.id), byId, limits.get(targetKeyOf(r))!));
}
