/**
 * Support accepts the customer's submission, which completes step 1 with its evidence (which
 * submission, how many companies and warnings, who submitted it when). The submission named must
 * still be the current one awaiting review: support accepts exactly what they reviewed.
 */
import { readSteps, type Tx } from "@/db/database";
import type { Database, Steps } from "@/db/database";
import { isStaff } from "@/core/accounts/roles";
import { findUser } from "@/server/accounts/users";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { applyStepAction } from "../act-on-step";
import { assertOrganization } from "../access";
import { loadForChange, type EngagementRow } from "../engagement-repository";
import { refreshWaiting, type WaitingChange } from "../waiting/refresh-waiting";
import { companiesText } from "@/core/words";
import { withNotice, type FlowNotice, type NotifyDeps } from "../waiting/notify";
import { findCurrentSubmission, migrationHasStarted, updateSubmission, type SubmissionRow } from "./intake-repository";
import { acceptRule } from "./review-rules";

/** The submission named, checked to be the current one and acceptable now. */
export function* reviewedSubmission(
  tx: Tx,
  actor: Actor,
  input: { engagementId: string; submissionId: string },
  rule: typeof acceptRule,
): Steps<{ eng: EngagementRow; current: SubmissionRow }> {
  const { eng } = yield* loadForChange(tx, input.engagementId);
  assertOrganization(actor, eng.organizationId);
  if (!isStaff(actor.role)) throw new AppError("FORBIDDEN", "Support reviews submissions.");
  const current = yield* findCurrentSubmission(tx, eng.id);
  if (!current || current.id !== input.submissionId) {
    throw new AppError("PRECONDITION_FAILED", "That submission is no longer the current one: the customer has submitted a newer file. Review that one.");
  }
  const allowed = rule({ role: actor.role, status: eng.status, submission: current.status, started: yield* migrationHasStarted(tx, eng.id) });
  if (!allowed.allowed) throw new AppError("PRECONDITION_FAILED", allowed.reason ?? "Not allowed now.");
  return { eng, current };
}

/** Accepts the current submission and completes step 1. */
export async function acceptSubmission(
  database: Database,
  deps: NotifyDeps,
  actor: Actor,
  input: { engagementId: string; submissionId: string },
): Promise<{ waiting: WaitingChange | null; notice: FlowNotice }> {
  await readSteps(database, (tx) => reviewedSubmission(tx, actor, input, acceptRule));
  // Read committed: reviewedSubmission locks the engagement row before it reads the submission,
  // and a new submission locks it too, so the review decides on the current one.
  return database.transaction(
    function* (tx) {
      const { eng, current } = yield* reviewedSubmission(tx, actor, input, acceptRule);
      const now = new Date();
      yield* updateSubmission(tx, current.id, { status: "accepted", reviewedById: actor.id, reviewedAt: now });
      const submittedBy = (current.submittedById && (yield* findUser(tx, current.submittedById))?.name) || "the customer";
      yield* applyStepAction(tx, actor, {
        engagementId: eng.id,
        step: 1,
        action: "complete",
        via: "flow",
        at: now,
        evidence: {
          kind: "intake_accepted",
          submissionId: current.id,
          rowCount: current.rowCount,
          warningCount: current.warningCount,
          submittedAt: current.submittedAt,
          submittedBy,
        },
      });
      yield* writeAudit(tx, {
        actor,
        action: "intake.accepted",
        targetId: current.id,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        after: { fileName: current.fileName, companies: current.rowCount, warnings: current.warningCount },
        at: now,
      });
      return yield* withNotice(tx, deps.notify, eng.id, {
        waiting: yield* refreshWaiting(tx, eng.id, now, eng),
        notice: {
          to: "customer",
          subject: "Your details and token file were accepted",
          text: `${actor.name} accepted the token file ${current.fileName} (${companiesText(current.rowCount)}). Step 1 is done. Next: add the callback URL to your OAuth app and turn off syncing in your old app (steps 3 and 4); support proposes the migration window (step 2).`,
        },
      });
    },
    { isolation: "read committed" },
  );
}
