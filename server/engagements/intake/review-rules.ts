/**
 * Support's review of a submission as rules, pure: whether the current submission can be accepted
 * or sent back now, with the reason when not. The screens show the same answers the operations
 * enforce.
 */
import { isStaff, type Role } from "@/core/accounts/roles";
import type { EngagementStatus } from "@/core/engagements/states";
import type { SubmissionStatus } from "@/core/engagements/flow-states";
import type { Allowed } from "@/core/engagements/intake-schemas";

type ReviewState = { role: Role; status: EngagementStatus; submission: SubmissionStatus | null; started: boolean };

const yes: Allowed = { allowed: true, reason: null };
const no = (reason: string): Allowed => ({ allowed: false, reason });

function common(s: ReviewState): Allowed | null {
  if (!isStaff(s.role)) return no("Support reviews submissions.");
  if (s.status !== "active") return no(`The engagement is ${s.status.replace("_", " ")}; submissions can be reviewed only while it is active.`);
  if (!s.submission || s.submission === "replaced") return no("Nothing has been submitted yet.");
  return null;
}

/** Accepting: the current submission must await review. */
export function acceptRule(s: ReviewState): Allowed {
  const refused = common(s);
  if (refused) return refused;
  switch (s.submission) {
    case "submitted":
      return yes;
    case "accepted":
      return no("The submission is already accepted.");
    case "returned":
      return no("The submission was sent back; the customer submits a new one.");
    default:
      return no("Nothing has been submitted yet.");
  }
}

/** Sending back: a submission awaiting review, or an accepted one until the migration has started. */
export function returnRule(s: ReviewState): Allowed {
  const refused = common(s);
  if (refused) return refused;
  switch (s.submission) {
    case "submitted":
      return yes;
    case "accepted":
      return s.started ? no("The migration has started: the accepted token file can no longer be sent back.") : yes;
    case "returned":
      return no("The submission was already sent back.");
    default:
      return no("Nothing has been submitted yet.");
  }
}
