/** Audit events in words, for the engagement timeline: an exhaustive table of the typed events' words, by family. */
import { parseAuditEvent, type AuditAction, type AuditEvent } from "@/server/security/audit-events";
import { formatDuration } from "@/core/format";
import { getManagedPlatform } from "@/server/platforms";
import { finalCountsInWords } from "@/core/migration/state-words";
import { reconciliationInWords } from "@/core/migration/reconciliation";
import { statusWords } from "./checklist";
import { STATUS_REASON_LABELS } from "@/core/engagements/status-reasons";
import { stepDefinition } from "@/core/engagements/steps";
import type { StepNumber } from "@/core/engagements/states";
import { companiesText, countOf, listText, plural, warningsText } from "@/core/words";

const stepTitle = (n: StepNumber) => `step ${n} (${stepDefinition(n).title})`;

const utc = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
/** A migration window in words (UTC, as windows are agreed). */
const windowWords = (w: { startsAt: string; endsAt: string }) => `${utc.format(new Date(w.startsAt))} – ${utc.format(new Date(w.endsAt))} UTC`;
const day = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", day: "numeric", month: "short", year: "numeric" });
/** A day in words ("28 Nov 2026"), from its ISO date. */
const dayWords = (iso: string) => day.format(new Date(iso));
const companies = companiesText;
const warnings = warningsText;

/** Free text that other words follow: without its closing punctuation, so "…app.; also" cannot happen. */
const clause = (v: string) => v.trim().replace(/[.;:,!]+$/, "");

/** A target's known limits in words (null: the service's published figure). */
const limitWords = (l: { requestsPerMinute: number | null; dailyQuota: number | null }) =>
  `${l.requestsPerMinute === null ? "the published requests per minute" : `${l.requestsPerMinute.toLocaleString("en-GB")} requests per minute`} and ${l.dailyQuota === null ? "the published daily quota" : `a daily quota of ${l.dailyQuota.toLocaleString("en-GB")}`}`;

/** Each action's event. */
type EventOf = { [A in AuditAction]: Extract<AuditEvent, { action: A }> };
/** Each action's words. */
type Describers = { [A in AuditAction]: (ev: EventOf[A]) => string };

/** One line describing what an audit event changed (stored rows are read through their action's schema). */
export function describeAuditEvent(row: { action: string; before: unknown; after: unknown }): string {
  const event = parseAuditEvent(row);
  // An action Ferry no longer knows, or a payload that does not fit: its name in words.
  return event ? describe(event) : row.action.replace(/[._]/g, " ");
}

/** The engagement, its owner, status and target, and its steps. */
const engagementWords = {
  "engagement.created": (ev) => {
    const platform = (ev.after.platformKey && getManagedPlatform(ev.after.platformKey)?.name) ?? ev.after.platform ?? "an unknown platform";
    return `Created the engagement for ${ev.after.organization} on ${platform}, owned by ${ev.after.owner}`;
  },
  "engagement.status_changed": (ev) => {
    const why = [ev.after.reasonCode && ev.after.reasonCode !== "other" ? STATUS_REASON_LABELS[ev.after.reasonCode] : null, ev.after.reason ? clause(ev.after.reason) : null].filter(Boolean);
    return `Changed status from ${statusWords(ev.before.status)} to ${statusWords(ev.after.status)}${why.length ? `: ${why.join(" — ")}` : ""}`;
  },
  "engagement.owner_changed": (ev) => `Handed the engagement from ${ev.before.owner ?? "nobody"} to ${ev.after.owner}`,
  "engagement.target_changed": (ev) => `Pointed the engagement at ${ev.after.serviceTarget} (${ev.after.baseUrl})${ev.after.startedOver ? `, starting ${companiesText(ev.after.startedOver)} over there` : ""}`,
  "step.started": (ev) => `Started ${stepTitle(ev.after.step)}`,
  "step.completed": (ev) => `Completed ${stepTitle(ev.after.step)}${ev.after.note ? `: ${clause(ev.after.note)}` : ""}`,
  "step.reopened": (ev) => {
    const also = ev.after.cascade.length ? `; also reopened ${ev.after.cascade.map(stepTitle).join(", ")}` : "";
    return `Reopened ${stepTitle(ev.after.step)}: ${clause(ev.after.reason)}${also}`;
  },
  "engagement.target_key_replaced": (ev) => `An admin replaced the API key of ${ev.after.serviceTarget} (now ${ev.after.keyMask}); tests and bulk runs use it from their next start or resume`,
} satisfies Partial<Describers>;

/** Service targets. */
const targetWords = {
  "service_target.created": (ev) => `Added the service target ${ev.after.name} (${ev.after.baseUrl})${ev.after.builtIn ? " as the built-in sandbox" : ev.after.organization ? ` for ${ev.after.organization}` : ""}`,
  "service_target.marked_built_in": (ev) => `Marked ${ev.after.name} (${ev.after.baseUrl}) as the built-in sandbox${ev.before.organization ? `, no longer ${ev.before.organization}'s only` : ""}`,
  "service_target.renamed": (ev) => `Renamed the service target ${ev.before.name} to ${ev.after.name}`,
  "service_target.limits_changed": (ev) => `Set the service target's known limits to ${limitWords(ev.after)}`,
  "service_target.key_replaced": (ev) => `Replaced the service target's API key (${ev.before.keyMask ?? "unmasked"} → ${ev.after.keyMask})`,
  "service_target.archived": (ev) => `Archived the service target ${ev.after.name}`,
  "service_target.organization_assigned": (ev) => `Assigned the service target to ${ev.after.organization}`,
} satisfies Partial<Describers>;

/** Organisations, users, invitations and the secrets they decrypt. */
const accountWords = {
  "secret.decrypted": (ev) => `Decrypted a secret to ${clause(ev.after.purpose)}`,
  "organization.created": (ev) => `Created the organisation ${ev.after.name}`,
  "organization.clock_targets_changed": (ev) => `Changed the move targets of ${ev.after.name}${ev.after.targets ? "" : " back to the defaults"}`,
  "user.deactivated": () => "Deactivated the user",
  "user.reactivated": () => "Reactivated the user",
  "invitation.created": (ev) => `Invited ${ev.after.name} (${ev.after.email}) as ${ev.after.role}`,
  "invitation.revoked": () => "Revoked the invitation",
  "user.sessions_ended": (ev) => ev.after.by === "self" ? "Signed out everywhere" : "Signed the user out everywhere",
  "user.password_changed": () => "Changed their password",
  "user.calendar_feed_reset": (ev) => (ev.before.hadFeed ? "Reset their calendar feed URL (the old one stopped working)" : "Made a calendar feed URL"),
  "outbox.link_revealed": (ev) => `Showed the invitation link mailed to ${ev.after.to}`,
  "invitation.accepted": (ev) => `${ev.after.name} accepted the invitation`,
} satisfies Partial<Describers>;

/** The intake and the migration window. */
const intakeWords = {
  "intake.submitted": (ev) => {
    const replaced = ev.before.submission ? `, replacing the previous file (${companies(ev.before.companies)})` : "";
    return `Submitted the details and the token file ${ev.after.fileName} (${companies(ev.after.companies)}, ${warnings(ev.after.warnings)})${replaced}`;
  },
  "intake.accepted": (ev) => `Accepted the token file ${ev.after.fileName} (${companies(ev.after.companies)}, ${warnings(ev.after.warnings)})`,
  "intake.returned": (ev) => `Sent the ${ev.before.status === "accepted" ? "accepted " : ""}submission back: ${clause(ev.after.note)}`,
  "window.proposed": (ev) => `Proposed the migration window ${windowWords(ev.after)} (estimated ${formatDuration(ev.after.estimateSeconds)}${ev.after.shorterThanEstimate ? ", longer than the window" : ""})`,
  "window.withdrawn": (ev) => `Withdrew the proposed window ${windowWords(ev.after)}`,
  "window.accepted": (ev) => `Accepted the migration window ${windowWords(ev.after)}`,
  "window.rescheduled": (ev) => `Rescheduled the migration window ${windowWords(ev.after)}: ${clause(ev.after.reason)}`,
  "window.declined": (ev) => {
    const suggested = ev.after.suggested.length ? ` and suggested ${listText(ev.after.suggested.map(windowWords))}` : "";
    return `Declined ${plural(ev.after.windows, { one: "the proposed window", other: `the ${ev.after.windows} proposed windows` })}: ${clause(ev.after.reason)}${suggested}`;
  },
  "engagement_request.created": (ev) => {
    const platform = getManagedPlatform(ev.after.platformKey)?.name ?? ev.after.platformKey;
    const until = ev.after.preferredTo ? ` to ${dayWords(ev.after.preferredTo)}` : " on";
    return `Asked for a ${platform} engagement for about ${companies(ev.after.companies)}, from ${dayWords(ev.after.preferredFrom)}${until}`;
  },
  "engagement_request.accepted": (ev) => `Accepted the request for an engagement as ${ev.after.reference}, owned by ${ev.after.owner}`,
  "engagement_request.declined": (ev) => `Declined the request for an engagement: ${clause(ev.after.reason)}`,
} satisfies Partial<Describers>;

/** Step 3's round trip. */
const callbackCheckWords = {
  "callback_check.started": (ev) => `Started a round trip to prove the callback URL ${ev.after.callbackUrl}: a test company (${ev.after.companyId}) for the customer to authorize on the platform`,
  "callback_check.refused": (ev) => `The platform refused the round trip's authorization: ${clause(ev.after.refusal)}`,
  "callback_check.proven": () => "The round trip's test connection linked: the platform sent the authorization to the callback URL, so it is on the customer's app",
  "callback_check.ended": (ev) =>
    ev.after.outcome === "cancelled"
      ? `Cancelled the callback URL round trip: ${clause(ev.after.reason)}`
      : `The callback URL round trip could not be made: ${clause(ev.after.reason)}${ev.after.status ? ` (${ev.after.status}${ev.after.correlationId ? `, correlationId ${ev.after.correlationId}` : ""})` : ""}`,
} satisfies Partial<Describers>;

/** The single-company test and its rehearsal. */
const testWords = {
  "migration.test_requested": (ev) =>
    ev.after.kind === "rehearsal"
      ? `Asked for a rehearsal on the sandbox (simulated companies, nothing real touched), testing a simulated ${ev.after.company}${ev.after.pickedBy === "smallest" ? " (the smallest company)" : ""}`
      : `Asked for the single-company test on ${ev.after.company}${ev.after.pickedBy === "smallest" ? " (the smallest company)" : ""}`,
  "migration.test_finished": (ev) => {
    const what = ev.after.kind === "rehearsal" ? `Rehearsal on the sandbox with a simulated ${ev.after.company}` : `Single-company test on ${ev.after.company}`;
    return ev.after.result === "passed" ? `${what} passed` : `${what} failed${ev.after.advice ? `: ${clause(ev.after.advice)}` : ""}`;
  },
  "migration.test_cancelled": (ev) => `Cancelled the ${ev.after.kind === "rehearsal" ? "rehearsal on the sandbox" : "single-company test"} on ${ev.after.company}: ${clause(ev.after.reason)}`,
} satisfies Partial<Describers>;

/** The bulk migration. */
const bulkWords = {
  "migration.bulk_started": (ev) => {
    const { supplied, pilot } = ev.after;
    const rest =
      supplied !== undefined && supplied > ev.after.companies
        ? ` (of ${companiesText(supplied)} supplied${pilot ? `; ${pilot} was migrated by the single-company test` : ""})`
        : "";
    const started = `Started the bulk migration of ${companiesText(ev.after.companies)} on ${ev.after.target}${rest}`;
    const o = ev.after.outsideWindow;
    return o ? `${started}, ${formatDuration(o.bySeconds)} ${o.position} the agreed window ${windowWords(o)}: ${clause(o.reason)}` : started;
  },
  "migration.bulk_paused": (ev) => `Paused the bulk migration${ev.after.reason ? `: ${clause(ev.after.reason)}` : ""}`,
  "migration.bulk_resumed": (ev) => ev.before.status === "stopped" ? `Resumed the bulk migration after it stopped${ev.before.reason ? ` (${clause(ev.before.reason)})` : ""}` : "Resumed the bulk migration",
  "migration.bulk_cancelled": (ev) => `Cancelled the bulk migration with ${companiesText(ev.after.unfinished)} unfinished: ${clause(ev.after.reason)}`,
  "migration.bulk_stopped": (ev) => `The bulk migration stopped: ${clause(ev.after.reason)}${ev.after.status ? ` (${ev.after.status}${ev.after.correlationId ? `, correlationId ${ev.after.correlationId}` : ""})` : ""}`,
  "migration.bulk_finished": (ev) => `The bulk migration finished: ${ev.after.reconciliation ? reconciliationInWords(ev.after.reconciliation) : finalCountsInWords(ev.after.counts)}`,
  "migration.bulk_retry_failed": (ev) => `Retrying the ${companiesText(ev.after.companies)} that failed`,
} satisfies Partial<Describers>;

/** One company of a migration, its reconnection and the secrets decrypted for it. */
const itemWords = {
  "migration_item.set_aside": (ev) => `Set ${ev.after.company} aside: ${clause(ev.after.reason)}`,
  "migration_item.started_over": (ev) => `Started ${ev.after.company} over on ${ev.after.serviceTarget} (on ${ev.before.serviceTarget} it was company ${ev.before.companyId ?? "none"}, connection ${ev.before.connectionId ?? "none"}, ${ev.before.state.replace(/_/g, " ")})`,
  "migration_item.retried": (ev) => `Retrying ${ev.after.company} (was ${ev.before.state.replace(/_/g, " ")})`,
  "migration.reconnect_pending": (ev) => `Handed ${companiesText(ev.after.companies)} that failed on their tokens to their end customers: each has a reconnect link, and Ferry watches for them to reconnect`,
  "migration_item.reconnected": (ev) => `${ev.after.company} was reconnected by its end customer: syncing and verifying it again`,
  "migration_item.wrong_company": (ev) => `${ev.after.company} was reconnected to a different company on the platform (${ev.after.found}, not the migrated ${ev.after.expected}): Ferry unlinked it, and its end customer is to reconnect signed in to the migrated company`,
  "migration_item.dropped": (ev) => `${ev.after.company}'s connection dropped after its migration: ${clause(ev.after.reason)}`,
  "migration_item.credentials_decrypted": (ev) => `Decrypted the credentials of ${ev.after.rehearsal ? "a simulated " : ""}${ev.after.company} to ${clause(ev.after.purpose)}${ev.after.rehearsal ? " (rehearsal)" : ""}`,
  "migration.sandbox_key_decrypted": (ev) => `Decrypted the rehearsal's sandbox API key to ${clause(ev.after.purpose)}`,
} satisfies Partial<Describers>;

/** The handover report, the purge of credentials and the hypercare watch. */
const handoverWords = {
  "handover.confirmed": (ev) =>
    ev.after.reconciliation
      ? `Produced the handover report: ${reconciliationInWords(ev.after.reconciliation)}`
      : `Produced the handover report for ${companies(ev.after.total)} (${finalCountsInWords(ev.after.counts)})`,
  "handover.acknowledged": (ev) =>
    ev.after.onBehalfOfCustomer
      ? `Recorded the customer's acknowledgement of the handover report${ev.after.note ? `: ${clause(ev.after.note)}` : ""}`
      : "Acknowledged the handover report",
  "credentials.purged": (ev) => {
    const why =
      ev.after.trigger === "handover_acknowledged"
        ? "the handover report was acknowledged"
        : `${ev.after.afterDays ?? "the set number of"} days after ${ev.after.trigger === "after_handover" ? "the handover report" : "the cancellation"}`;
    const parts = [
      `the credentials of ${companies(ev.after.items)}`,
      ...(ev.after.rehearsalItems ? [`the simulated credentials of ${companies(ev.after.rehearsalItems)} rehearsed`] : []),
      ...(ev.after.rehearsalKeys ? [plural(ev.after.rehearsalKeys, { one: "the rehearsal's sandbox API key", other: `${ev.after.rehearsalKeys} rehearsals' sandbox API keys` })] : []),
      ...(ev.after.supplementaryRows ? [`the unused fresh tokens of ${companies(ev.after.supplementaryRows)}`] : []),
      countOf(ev.after.submissions, "OAuth client secret", "OAuth client secrets"),
    ];
    return `Purged ${parts.slice(0, -1).join(", ")} and ${parts.at(-1)} (${why})`;
  },
  "watch.hypercare_started": (ev) => `The hypercare watch began: every migrated connection is checked daily for ${countOf(ev.after.days, "day", "days")}, until ${ev.after.endsAt.slice(0, 16).replace("T", " ")} UTC`,
  "watch.drops_seen": (ev) => `Marked ${plural(ev.after.drops, { one: "a dropped connection", other: `${ev.after.drops.toLocaleString("en-GB")} dropped connections` })} as seen`,
  "watch.hypercare_days_changed": (ev) => `Changed the hypercare watch from ${countOf(ev.before.days, "day", "days")} to ${countOf(ev.after.days, "day", "days")}`,
  "watch.ended": (ev) => `The watch ended: ${companiesText(ev.after.verified)} verified, ${countOf(ev.after.drops, "drop", "drops")} found, ${countOf(ev.after.reconnections, "reconnection", "reconnections")}, ${companiesText(ev.after.stillPending)} still waiting for their end customers (${countOf(ev.after.checks, "check", "checks")}, ${countOf(ev.after.requests, "request", "requests")})`,
} satisfies Partial<Describers>;

/** Fresh tokens sent after the run. */
const supplementaryWords = {
  "supplementary.submitted": (ev) => {
    const replaced = ev.before.replaced ? `, replacing the file awaiting review (${companies(ev.before.companies)})` : "";
    return `Sent fresh tokens for ${companies(ev.after.companies)} in ${ev.after.fileName} (${warnings(ev.after.warnings)})${replaced}`;
  },
  "supplementary.accepted": (ev) => {
    const skipped = ev.after.skipped ? `; ${companies(ev.after.skipped)} no longer waited for tokens and ${plural(ev.after.skipped, { one: "was", other: "were" })} skipped` : "";
    return `Accepted the fresh tokens of ${ev.after.fileName}: retrying ${companies(ev.after.companies)} in the bulk migration${skipped}`;
  },
  "supplementary.sent_back": (ev) => `Sent the fresh tokens of ${ev.after.fileName} back: ${clause(ev.after.note)}`,
  "supplementary.tokens_purged": (ev) => `Deleted the fresh tokens of ${ev.after.company} once used (${ev.after.state.replace(/_/g, " ")})`,
  "supplementary.expired": (ev) => `Deleted the fresh tokens of ${ev.after.fileName} unreviewed (${ev.after.companies.toLocaleString("en-GB")} ${ev.after.companies === 1 ? "company" : "companies"}): the hypercare watch ended before support reviewed it`,
} satisfies Partial<Describers>;

/** Every action's words: a missing action is a type error, as a missing case was. */
const DESCRIBERS: Describers = {
  ...engagementWords,
  ...targetWords,
  ...accountWords,
  ...intakeWords,
  ...callbackCheckWords,
  ...testWords,
  ...bulkWords,
  ...itemWords,
  ...handoverWords,
  ...supplementaryWords,
};

/** The words of one event, by its action (generic so that each action's words get that action's event). */
function describeAs<A extends AuditAction>(action: A, ev: EventOf[A]): string {
  return DESCRIBERS[action](ev);
}

/** The words of one typed event. */
function describe(ev: AuditEvent): string {
  return describeAs(ev.action, ev);
}

/**
 * Events the machine makes once per company — a credential decrypted to authorize each one, fresh
 * tokens deleted once used, a company its end customer reconnected — which a customer reads as
 * one line for a run of them ("Decrypted the credentials of 24 companies to authorize them").
 */
const PER_COMPANY_ACTIONS = new Set(["migration_item.credentials_decrypted", "supplementary.tokens_purged", "migration_item.reconnected"]);

/** Whether an action is one the machine records once per company, which a customer reads in runs. */
export function isPerCompanyAction(action: string): boolean {
  return PER_COMPANY_ACTIONS.has(action);
}

/** A purpose said of one company ("authorize its connection on the service"), said of many. */
function purposeOfMany(purpose: string): string {
  if (purpose === "authorize its connection on the service") return "authorize them";
  const fresh = /^give the company the fresh tokens of (.+) for its retry$/.exec(purpose);
  if (fresh) return `give them the fresh tokens of ${fresh[1]} for their retries`;
  return `${purpose} (for each)`;
}

/** The first names of a run, then how many more: "A, B and C", "A, B, C and 21 more". */
function someNames(names: readonly string[], count: number): string {
  const shown = names.slice(0, 3);
  return listText(count > shown.length ? [...shown, `${(count - shown.length).toLocaleString("en-GB")} more`] : shown);
}

/** A run of like per-company events: their kind, how many, and the companies of the oldest few (oldest first). */
export type EventRun = { action: string; purpose: string | null; rehearsal: boolean; count: number; names: readonly string[] };

/** One line for a run of two or more per-company events: how many companies, what was done to them and why. */
export function describeEventRun(run: EventRun): string {
  const n = run.count;
  switch (run.action) {
    case "migration_item.credentials_decrypted": {
      const purpose = purposeOfMany(clause(run.purpose ?? "use them"));
      return run.rehearsal ? `Decrypted the simulated credentials of ${companies(n)} to ${purpose} (rehearsal)` : `Decrypted the credentials of ${companies(n)} to ${purpose}`;
    }
    case "supplementary.tokens_purged":
      return `Deleted the fresh tokens of ${companies(n)} once used (${someNames(run.names, n)})`;
    case "migration_item.reconnected":
      return `${companies(n)} were reconnected by their end customers (${someNames(run.names, n)}): syncing and verifying them again`;
    default:
      return `${run.action.replace(/[._]/g, " ")} (${n.toLocaleString("en-GB")} times)`;
  }
}
