/**
 * Support sends a supplementary file back with a note the customer sees and is mailed. Its fresh
 * tokens are deleted at once (they will never be used); the customer sends a new file. Decided
 * with the engagement's row locked, as acceptance is (accept-supplementary-file.ts).
 */
import { readSteps, type Database } from "@/db/database";
import { fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { refreshWaiting, type WaitingChange } from "@/server/engagements/waiting/refresh-waiting";
import { withNotice, type FlowNotice, type NotifyDeps } from "@/server/engagements/waiting/notify";
import { reviewedFile } from "./accept-supplementary-file";
import { sendBackRule } from "./rules";
import { purgeRows, updateFile } from "./supplementary-repository";

/** Sends the current file back with a note. */
export async function sendBackSupplementaryFile(
  database: Database,
  deps: NotifyDeps,
  actor: Actor,
  input: { engagementId: string; fileId: string; note: string },
): Promise<{ waiting: WaitingChange | null; notice: FlowNotice }> {
  const note = input.note.trim();
  await readSteps(database, (tx) => reviewedFile(tx, actor, input, sendBackRule, { forChange: false }));
  if (!note) throw fieldError("note", "Say what the customer should fix; they see this note and are mailed it.");
  const now = new Date();
  return database.transaction(function* (tx) {
    const { eng, current } = yield* reviewedFile(tx, actor, input, sendBackRule, { forChange: true });
    yield* updateFile(tx, current.id, { status: "returned", note, decidedById: actor.id, decidedAt: now });
    yield* purgeRows(tx, current.id, now);
    yield* writeAudit(tx, {
      actor,
      action: "supplementary.sent_back",
      targetId: current.id,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      after: { fileName: current.fileName, note },
      at: now,
    });
    return yield* withNotice(tx, deps.notify, eng.id, {
      waiting: yield* refreshWaiting(tx, eng.id, now, eng),
      notice: {
        to: "customer",
        subject: "Your fresh tokens were sent back",
        text: `${actor.name} sent back the fresh tokens of ${current.fileName} with this note:\n\n${note}\n\nThe tokens in it were deleted. Fix what the note says and send a new file in the portal.`,
      },
    });
  }, { isolation: "read committed" });
}
