/**
 * Support sends the customer's submission back with a note the customer sees and is mailed. An
 * accepted submission can be sent back too until the migration starts: that reopens step 1 with
 * the note as the reason, and the cascade applies (steps 2–4 open again with it).
 */
import { readSteps } from "@/db/database";
import type { Database } from "@/db/database";
import { fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { applyStepAction } from "../act-on-step";
import { refreshWaiting, type WaitingChange } from "../waiting/refresh-waiting";
import { withNotice, type FlowNotice, type NotifyDeps } from "../waiting/notify";
import { reviewedSubmission } from "./accept-submission";
import { updateSubmission } from "./intake-repository";
import { returnRule } from "./review-rules";

/** Sends the current submission back with a note. */
export async function returnSubmission(
  database: Database,
  deps: NotifyDeps,
  actor: Actor,
  input: { engagementId: string; submissionId: string; note: string },
): Promise<{ waiting: WaitingChange | null; notice: FlowNotice }> {
  const note = input.note.trim();
  await readSteps(database, (tx) => reviewedSubmission(tx, actor, input, returnRule));
  if (!note) throw fieldError("note", "Say what the customer should fix; they see this note and are mailed it.");
  // Read committed: reviewedSubmission locks the engagement row first (see acceptSubmission).
  return database.transaction(
    function* (tx) {
      const { eng, current } = yield* reviewedSubmission(tx, actor, input, returnRule);
      const now = new Date();
      yield* updateSubmission(tx, current.id, { status: "returned", returnNote: note, reviewedById: actor.id, reviewedAt: now });
      if (current.status === "accepted") {
        yield* applyStepAction(tx, actor, { engagementId: eng.id, step: 1, action: "reopen", via: "flow", reason: `Submission sent back: ${note}`, at: now });
      }
      yield* writeAudit(tx, {
        actor,
        action: "intake.returned",
        targetId: current.id,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        before: { status: current.status === "accepted" ? "accepted" : "submitted" },
        after: { note },
        at: now,
      });
      return yield* withNotice(tx, deps.notify, eng.id, {
        waiting: yield* refreshWaiting(tx, eng.id, now, eng),
        notice: {
          to: "customer",
          subject: "Your token file was sent back",
          text: `${actor.name} sent back the submission of ${current.fileName} with this note:\n\n${note}\n\nFix what it says and submit the details and token file again in the portal.`,
        },
      });
    },
    { isolation: "read committed" },
  );
}
