/**
 * Support sends a supplementary file back with a note the customer sees and is mailed. Its fresh
 * tokens are deleted at once (they will never be used); the customer sends a new file.
 */
import { runSync } from "@/db/database";
import type { Db } from "@/db/client";
import { fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { recordAudit } from "@/server/security/audit";
import { refreshWaiting, type WaitingChange } from "@/server/engagements/waiting/refresh-waiting";
import type { FlowNotice } from "@/server/engagements/waiting/notify";
import { reviewedFile } from "./accept-supplementary-file";
import { sendBackRule } from "./rules";
import { purgeRows, updateFile } from "./supplementary-repository";

/** Sends the current file back with a note. */
export function sendBackSupplementaryFile(
  db: Db,
  actor: Actor,
  input: { engagementId: string; fileId: string; note: string },
): { waiting: WaitingChange | null; notice: FlowNotice } {
  const note = input.note.trim();
  reviewedFile(db, actor, input, sendBackRule);
  if (!note) throw fieldError("note", "Say what the customer should fix; they see this note and are mailed it.");
  return db.transaction((tx) => {
    const { eng, current } = reviewedFile(tx, actor, input, sendBackRule);
    const now = new Date();
    runSync(updateFile(tx, current.id, { status: "returned", note, decidedById: actor.id, decidedAt: now }));
    runSync(purgeRows(tx, current.id, now));
    recordAudit(tx, {
      actor,
      action: "supplementary.sent_back",
      targetId: current.id,
      engagementId: eng.id,
      organizationId: eng.organizationId,
      after: { fileName: current.fileName, note },
      at: now,
    });
    return {
      waiting: runSync(refreshWaiting(tx, eng.id, now, eng)),
      notice: {
        to: "customer",
        subject: "Your fresh tokens were sent back",
        text: `${actor.name} sent back the fresh tokens of ${current.fileName} with this note:\n\n${note}\n\nThe tokens in it were deleted. Fix what the note says and send a new file in the portal.`,
      },
    };
  });
}
