/**
 * A migration window as a calendar invite (.ics, written by the `ics` package): the engagement's
 * reference, the estimate, and the support contact as organiser; the customer's contacts as
 * attendees. A proposed window is tentative, an accepted one confirmed.
 *
 * People's names are their own words and may hold a quote or a line break. The package writes a
 * name as `CN="…"` but lets a quote end the quoted value and a line break end the line (so a name
 * could add a line such as another attendee), and it lets a lone CR through in text; so names are
 * encoded before they reach it (RFC 5545 §3.1–3.3, RFC 6868).
 */
import { readSteps } from "@/db/database";
import { createEvent } from "ics";
import type { Database } from "@/db/database";
import { AppError } from "@/server/errors";
import { formatDuration } from "@/core/format";
import type { Actor } from "@/core/accounts/actor";
import { findRecipients } from "../waiting/recipients-repository";
import { loadWindowState } from "./load-window-state";
import { findWindow } from "./window-repository";

/**
 * A name as an iCalendar parameter value (CN). RFC 5545 puts it in DQUOTEs, inside which no DQUOTE
 * and no control character may appear; RFC 6868's caret encoding carries a quote (^'), a line break
 * (^n) and a caret (^^) through, and calendar programs that know it show the name as typed.
 * The package adds the DQUOTEs (and would only backslash a quote, which RFC 5545 does not know).
 */
export function icsParamValue(value: string): string {
  return (
    value
      .replace(/\^/g, "^^")
      .replace(/\r\n|\r|\n|\u2028|\u2029/g, "^n")
      .replace(/"/g, "^'")
      // Other control characters (a tab is allowed) have no encoding: they are dropped.
      .replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, "")
  );
}

/**
 * Text for a TEXT property (the description): every kind of line break as one \n, which the package
 * then escapes with backslashes, semicolons and commas (RFC 5545 §3.3.11); other control characters
 * dropped.
 */
export function icsText(value: string): string {
  return value.replace(/\r\n|\r|\u2028|\u2029/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "");
}

/** The invite of one proposed or accepted window. */
export async function windowInvite(
  database: Database,
  actor: Actor,
  input: { engagementId: string; windowId: string; appUrl: string },
): Promise<{ fileName: string; text: string }> {
  const { eng, platform, window, r } = await readSteps(database, function* (tx) {
    const { eng, platform } = yield* loadWindowState(tx, actor, input.engagementId);
    const window = yield* findWindow(tx, eng.id, input.windowId);
    if (!window) throw new AppError("NOT_FOUND", "No such window on this engagement.");
    if (window.status !== "proposed" && window.status !== "accepted") {
      throw new AppError("PRECONDITION_FAILED", `That window was ${window.status}; there is no invite for it.`);
    }
    return { eng, platform, window, r: yield* findRecipients(tx, eng.id) };
  });
  const contact = r?.owner;
  const portal = `${input.appUrl.replace(/\/$/, "")}/portal/engagements/${eng.id}`;
  const description = [
    `Ferry engagement ${eng.reference}: ${platform.name} token migration for ${r?.organizationName ?? "the customer"}.`,
    `Estimated duration: ${formatDuration(window.estimateSeconds)}.`,
    contact ? `Support contact: ${contact.name} <${contact.email}>.` : null,
    window.status === "proposed" ? "Proposed: accept it in the portal to agree it." : "Agreed.",
    `Portal: ${portal}`,
  ]
    .filter(Boolean)
    .join("\n");
  const { error, value } = createEvent({
    uid: `${window.id}@ferry`,
    start: window.startsAt.getTime(),
    startInputType: "utc",
    startOutputType: "utc",
    end: window.endsAt.getTime(),
    endInputType: "utc",
    endOutputType: "utc",
    title: `${eng.reference} migration window (${platform.name})`,
    description: icsText(description),
    status: window.status === "accepted" ? "CONFIRMED" : "TENTATIVE",
    busyStatus: "BUSY",
    url: portal,
    organizer: contact ? { name: icsParamValue(contact.name), email: contact.email } : undefined,
    attendees: (r?.customers ?? []).map((c) => ({ name: icsParamValue(c.name), email: c.email, rsvp: true, role: "REQ-PARTICIPANT", partstat: "NEEDS-ACTION" })),
    productId: "ferry/migration-window",
  });
  if (error || !value) throw error ?? new Error("The calendar invite could not be written.");
  return { fileName: `${eng.reference}-window-${window.startsAt.toISOString().slice(0, 10)}.ics`, text: value };
}
