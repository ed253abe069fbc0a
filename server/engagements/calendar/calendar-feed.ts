/**
 * Each staff member's window calendar as an .ics feed behind a secret URL, for a calendar program
 * to subscribe to: the windows of the engagements they own from 30 days back to a year ahead,
 * proposed ones tentative, agreed ones confirmed, each with its target, estimated requests and any
 * overlap flag. The secret is stored twice: its SHA-256 to find whose feed a URL opens, and
 * encrypted so its owner can copy the URL again. Resetting makes a new one; the old URL stops
 * working at once. A URL opens nothing for a deactivated or non-staff account.
 */
import { companiesText } from "@/core/words";
import { createEvents, type EventAttributes } from "ics";
import { readSteps, type Database } from "@/db/database";
import type { Actor } from "@/core/accounts/actor";
import { isStaff, type Role } from "@/core/accounts/roles";
import type { CalendarFeed, CalendarWindow } from "@/core/engagements/calendar-schemas";
import { AppError } from "@/server/errors";
import { decryptSecret, encryptSecret, type KeyRing } from "@/server/security/secrets";
import { hashToken, newToken } from "@/server/security/tokens";
import { writeAudit } from "@/server/security/audit";
import type { SandboxAccess } from "../window/target-limits";
import { icsText } from "../window/window-invite";
import { feedOwner, feedTokenOf, setFeedToken } from "./calendar-repository";
import { ownerWindows } from "./get-calendar";

const DAY = 86_400_000;
const nf = new Intl.NumberFormat("en-GB");
const aad = (userId: string) => `calendar-feed:${userId}`;
const base = (appUrl: string) => appUrl.replace(/\/$/, "");

/** The feed's URL for a secret. */
export const feedUrlOf = (appUrl: string, token: string) => `${base(appUrl)}/api/calendar/${token}.ics`;

function requireStaff(actor: Actor) {
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "The window calendar is for Ferry staff.");
}

/** The viewer's feed URL, or null before they make one. */
export async function calendarFeed(database: Database, deps: { keyRing: KeyRing; appUrl: string }, actor: Actor): Promise<CalendarFeed> {
  requireStaff(actor);
  const cipher = await readSteps(database, (tx) => feedTokenOf(tx, actor.id));
  return { url: cipher ? feedUrlOf(deps.appUrl, decryptSecret(deps.keyRing, cipher, aad(actor.id))) : null };
}

/** Makes the viewer a new feed secret (the old URL stops working); returns the new URL. */
export async function resetCalendarFeed(database: Database, deps: { keyRing: KeyRing; appUrl: string }, actor: Actor): Promise<{ url: string }> {
  requireStaff(actor);
  const token = newToken();
  const cipher = encryptSecret(deps.keyRing, token, aad(actor.id));
  await database.transaction(
    function* (tx) {
      const had = (yield* feedTokenOf(tx, actor.id)) !== null;
      yield* setFeedToken(tx, actor.id, { hash: hashToken(token), cipher });
      yield* writeAudit(tx, { actor, action: "user.calendar_feed_reset", targetId: actor.id, organizationId: actor.organizationId, before: { hadFeed: had } });
    },
    { isolation: "read committed" },
  );
  return { url: feedUrlOf(deps.appUrl, token) };
}

function eventOf(w: CalendarWindow, appUrl: string): EventAttributes {
  const link = `${base(appUrl)}/engagements/${w.engagementId}`;
  const requests = w.estimateRequests === null ? "not recorded" : `${nf.format(w.estimateRequests)} for ${companiesText(w.estimateCompanies ?? 0)}`;
  const description = [
    `${w.reference}: ${w.platformName} token migration for ${w.organizationName}.`,
    `Target: ${w.target.name} (${w.target.limits}).`,
    `Estimated: ${w.estimate}; requests ${requests}.`,
    w.status === "proposed" ? "Proposed: waiting for the customer to accept one." : "Agreed with the customer.",
    w.overlap ? `Overlap: ${w.overlap.text}` : null,
    `Ferry: ${link}`,
  ]
    .filter(Boolean)
    .join("\n");
  return {
    uid: `${w.id}@ferry`,
    start: w.startsAt.getTime(),
    startInputType: "utc",
    startOutputType: "utc",
    end: w.endsAt.getTime(),
    endInputType: "utc",
    endOutputType: "utc",
    title: `${w.overlap ? "⚠ Overlap · " : ""}${w.reference} ${w.status === "proposed" ? "proposed window" : "migration window"} (${w.organizationName}, ${w.platformName})`,
    description: icsText(description),
    status: w.status === "accepted" ? "CONFIRMED" : "TENTATIVE",
    busyStatus: w.status === "accepted" ? "BUSY" : "TENTATIVE",
    url: link,
    productId: "ferry/window-calendar",
  };
}

/** The feed a secret opens, as .ics text; null when it opens nothing. */
export async function calendarFeedText(database: Database, deps: { sandbox?: SandboxAccess; appUrl: string }, token: string, now = new Date()): Promise<string | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const owner = await readSteps(database, (tx) => feedOwner(tx, hashToken(token)));
  if (!owner || !owner.active || !isStaff(owner.role as Role)) return null;
  const windows = await ownerWindows(database, deps, owner.id, { from: new Date(now.getTime() - 30 * DAY), to: new Date(now.getTime() + 365 * DAY) });
  const { error, value } = createEvents(
    windows.map((w) => eventOf(w, deps.appUrl)),
    { productId: "ferry/window-calendar", calName: `Ferry migration windows (${owner.name})`, method: "PUBLISH" },
  );
  if (error || value === undefined) throw error ?? new Error("The calendar feed could not be written.");
  return value;
}
