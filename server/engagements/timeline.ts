/** Audit events in words, for the engagement timeline: one exhaustive switch over the typed events. */
import { parseAuditEvent, type AuditEvent } from "@/server/security/audit-events";
import { formatDuration } from "@/server/intake/estimate";
import { getManagedPlatform } from "@/server/platforms";
import { stepDefinition, statusWords } from "./checklist";
import type { StepNumber } from "./states";
import { companiesText, warningsText } from "./words";

const stepTitle = (n: StepNumber) => `step ${n} (${stepDefinition(n).title})`;

const utc = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
/** A migration window in words (UTC, as windows are agreed). */
const windowWords = (w: { startsAt: string; endsAt: string }) => `${utc.format(new Date(w.startsAt))} – ${utc.format(new Date(w.endsAt))} UTC`;
const companies = companiesText;
const warnings = warningsText;

/** Free text that other words follow: without its closing punctuation, so "…app.; also" cannot happen. */
const clause = (v: string) => v.trim().replace(/[.;:,!]+$/, "");

/** One line describing what an audit event changed (stored rows are read through their action's schema). */
export function describeAuditEvent(row: { action: string; before: unknown; after: unknown }): string {
  const event = parseAuditEvent(row);
  // An action Ferry no longer knows, or a payload that does not fit: its name in words.
  return event ? describe(event) : row.action.replace(/[._]/g, " ");
}

function describe(ev: AuditEvent): string {
  switch (ev.action) {
    case "engagement.created": {
      const platform = (ev.after.platformKey && getManagedPlatform(ev.after.platformKey)?.name) ?? ev.after.platform ?? "an unknown platform";
      return `Created the engagement for ${ev.after.organization} on ${platform}, owned by ${ev.after.owner}`;
    }
    case "engagement.status_changed":
      return `Changed status from ${statusWords(ev.before.status)} to ${statusWords(ev.after.status)}${ev.after.reason ? `: ${clause(ev.after.reason)}` : ""}`;
    case "engagement.owner_changed":
      return `Handed the engagement from ${ev.before.owner ?? "nobody"} to ${ev.after.owner}`;
    case "engagement.target_changed":
      return `Pointed the engagement at ${ev.after.serviceTarget} (${ev.after.baseUrl})`;
    case "step.started":
      return `Started ${stepTitle(ev.after.step)}`;
    case "step.completed":
      return `Completed ${stepTitle(ev.after.step)}${ev.after.note ? `: ${clause(ev.after.note)}` : ""}`;
    case "step.reopened": {
      const also = ev.after.cascade.length ? `; also reopened ${ev.after.cascade.map(stepTitle).join(", ")}` : "";
      return `Reopened ${stepTitle(ev.after.step)}: ${clause(ev.after.reason)}${also}`;
    }
    case "service_target.created":
      return `Added the service target ${ev.after.name} (${ev.after.baseUrl})`;
    case "secret.decrypted":
      return `Decrypted a secret to ${clause(ev.after.purpose)}`;
    case "organization.created":
      return `Created the organisation ${ev.after.name}`;
    case "user.deactivated":
      return "Deactivated the user";
    case "user.reactivated":
      return "Reactivated the user";
    case "invitation.created":
      return `Invited ${ev.after.name} (${ev.after.email}) as ${ev.after.role}`;
    case "invitation.revoked":
      return "Revoked the invitation";
    case "user.sessions_ended":
      return ev.after.by === "self" ? "Signed out everywhere" : "Signed the user out everywhere";
    case "user.password_changed":
      return "Changed their password";
    case "outbox.link_revealed":
      return `Showed the invitation link mailed to ${ev.after.to}`;
    case "invitation.accepted":
      return `${ev.after.name} accepted the invitation`;
    case "intake.submitted": {
      const replaced = ev.before.submission ? `, replacing the previous file (${companies(ev.before.companies)})` : "";
      return `Submitted the details and the token file ${ev.after.fileName} (${companies(ev.after.companies)}, ${warnings(ev.after.warnings)})${replaced}`;
    }
    case "intake.accepted":
      return `Accepted the token file ${ev.after.fileName} (${companies(ev.after.companies)}, ${warnings(ev.after.warnings)})`;
    case "intake.returned":
      return `Sent the ${ev.before.status === "accepted" ? "accepted " : ""}submission back: ${clause(ev.after.note)}`;
    case "window.proposed":
      return `Proposed the migration window ${windowWords(ev.after)} (estimated ${formatDuration(ev.after.estimateSeconds)}${ev.after.shorterThanEstimate ? ", longer than the window" : ""})`;
    case "window.withdrawn":
      return `Withdrew the proposed window ${windowWords(ev.after)}`;
    case "window.accepted":
      return `Accepted the migration window ${windowWords(ev.after)}`;
    case "window.rescheduled":
      return `Rescheduled the migration window ${windowWords(ev.after)}: ${clause(ev.after.reason)}`;
    default: {
      const never: never = ev;
      return never;
    }
  }
}
