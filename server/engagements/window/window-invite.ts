/**
 * A migration window as a calendar invite (.ics, written by the `ics` package): the engagement's
 * reference, the estimate, and the support contact as organiser; the customer's contacts as
 * attendees. A proposed window is tentative, an accepted one confirmed.
 */
import { createEvent } from "ics";
import type { Db } from "@/db/client";
import { AppError } from "@/server/errors";
import { formatDuration } from "@/server/intake";
import type { Actor } from "@/server/security/actor";
import { findRecipients } from "../waiting/recipients-repository";
import { loadWindowState } from "./load-window-state";
import { findWindow } from "./window-repository";

/** The invite of one proposed or accepted window. */
export function windowInvite(db: Db, actor: Actor, input: { engagementId: string; windowId: string; appUrl: string }): { fileName: string; text: string } {
  const { eng, platform } = loadWindowState(db, actor, input.engagementId);
  const window = findWindow(db, eng.id, input.windowId);
  if (!window) throw new AppError("NOT_FOUND", "No such window on this engagement.");
  if (window.status !== "proposed" && window.status !== "accepted") {
    throw new AppError("PRECONDITION_FAILED", `That window was ${window.status}; there is no invite for it.`);
  }
  const r = findRecipients(db, eng.id);
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
    description,
    status: window.status === "accepted" ? "CONFIRMED" : "TENTATIVE",
    busyStatus: "BUSY",
    url: portal,
    organizer: contact ? { name: contact.name, email: contact.email } : undefined,
    attendees: (r?.customers ?? []).map((c) => ({ name: c.name, email: c.email, rsvp: true, role: "REQ-PARTICIPANT", partstat: "NEEDS-ACTION" })),
    productId: "ferry/migration-window",
  });
  if (error || !value) throw error ?? new Error("The calendar invite could not be written.");
  return { fileName: `${eng.reference}-window-${window.startsAt.toISOString().slice(0, 10)}.ics`, text: value };
}
