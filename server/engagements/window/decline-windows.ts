/**
 * The customer declines every window support proposed (step 2), saying why and, if they like,
 * suggesting up to three times that would suit. The windows are marked declined, the decline is
 * kept for support to read and answer, and the move passes to support, who is mailed the reason
 * and the times. Support answers by proposing new windows (which answers the decline).
 */
import { readSteps, type Tx } from "@/db/database";
import type { Database, Steps } from "@/db/database";
import type { Actor } from "@/core/accounts/actor";
import { AppError } from "@/server/errors";
import { writeAudit } from "@/server/security/audit";
import { windowTimesProblem } from "@/core/engagements/window-schemas";
import { refreshWaiting, type WaitingChange } from "../waiting/refresh-waiting";
import { withNotice, type FlowNotice, type NotifyDeps } from "../waiting/notify";
import { enforce, loadWindowState } from "./load-window-state";
import { windowText } from "./propose-window";
import { decideWindow, insertDecline, proposedWindows } from "./window-repository";
import { declineRule } from "./window-rules";

type DeclineInput = { engagementId: string; reason: string; suggested: { startsAt: Date; endsAt: Date }[] };

function* check(tx: Tx, actor: Actor, engagementId: string) {
  const state = yield* loadWindowState(tx, actor, engagementId);
  enforce(declineRule(state.rule), actor.role === "customer");
  return state;
}

/** Declines the engagement's proposed windows; returns the decline's id. */
export async function declineWindows(
  database: Database,
  deps: NotifyDeps,
  actor: Actor,
  input: DeclineInput,
  now: Date = new Date(),
): Promise<{ declineId: string; waiting: WaitingChange | null; notice: FlowNotice }> {
  await readSteps(database, (tx) => check(tx, actor, input.engagementId));
  const reason = input.reason.trim();
  if (!reason) throw new AppError("BAD_INPUT", "Say why these windows do not suit you.", { fields: { reason: "Say why these windows do not suit you; Ferry support reads it before proposing others." } });
  input.suggested.forEach((w, i) => {
    const problem = windowTimesProblem(w, now);
    if (problem) {
      const message = problem.message.replace("The window", "The suggested time").replace("the window's", "the suggested time's");
      throw new AppError("BAD_INPUT", `Suggested time ${i + 1}: ${message}`, { fields: { [`suggested.${i}.${problem.field}`]: message } });
    }
  });
  // Made before the transaction, which may run more than once on PostgreSQL.
  const declineId = crypto.randomUUID();
  // Read committed: check locks the engagement row (loadWindowState) before it reads the windows,
  // so a proposal, a withdrawal or an acceptance at the same time waits for this one.
  return database.transaction(
    function* (tx): Steps<{ declineId: string; waiting: WaitingChange | null; notice: FlowNotice }> {
      const { eng } = yield* check(tx, actor, input.engagementId);
      const at = new Date();
      const windows = yield* proposedWindows(tx, eng.id);
      for (const w of windows) yield* decideWindow(tx, w.id, { status: "declined", decidedById: actor.id, decidedAt: at });
      const suggested = input.suggested.map((w) => ({ startsAt: w.startsAt.toISOString(), endsAt: w.endsAt.toISOString() }));
      yield* insertDecline(tx, { id: declineId, engagementId: eng.id, reason, suggested, windowIds: windows.map((w) => w.id), declinedById: actor.id, declinedAt: at });
      yield* writeAudit(tx, {
        actor,
        action: "window.declined",
        targetId: declineId,
        engagementId: eng.id,
        organizationId: eng.organizationId,
        after: { reason, windows: windows.length, suggested },
        at,
      });
      const declined = windows.map((w) => `- ${windowText(w)}`).join("\n");
      const times = input.suggested.length ? `\n\nTimes that would suit them:\n${input.suggested.map((w) => `- ${windowText(w)}`).join("\n")}` : "\n\nThey suggested no times.";
      return yield* withNotice(tx, deps.notify, eng.id, {
        declineId,
        waiting: yield* refreshWaiting(tx, eng.id, at, eng),
        notice: {
          to: "support",
          subject: "The proposed windows were declined",
          text: `${actor.name} declined the proposed migration windows:\n${declined}\n\nWhy: ${reason}${times}\n\nPropose new windows in step 2.`,
        },
      });
    },
    { isolation: "read committed" },
  );
}
