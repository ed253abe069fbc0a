/**
 * Support proposes one or more migration windows (step 2), each stored with the duration
 * estimate as it stood (inputs and formula) and flagged when shorter than it. The first proposal
 * starts step 2; the customer is mailed to accept one. The target's limits are read first (the
 * sandbox's controls may be asked over HTTP), then everything is written in one transaction.
 */
import { readSteps } from "@/db/database";
import type { Database } from "@/db/database";
import { isStaff } from "@/core/accounts/roles";
import { AppError, fieldError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { applyStepAction } from "../act-on-step";
import { refreshWaiting, type WaitingChange } from "../waiting/refresh-waiting";
import { withNotice, type FlowNotice, type NotifyConfig } from "../waiting/notify";
import { estimateForEngagement } from "./estimate-for-engagement";
import { enforce, loadWindowState } from "./load-window-state";
import { windowTimesProblem } from "@/core/engagements/window-schemas";
import { targetLimits, type SandboxAccess } from "./target-limits";
import { insertWindows } from "./window-repository";
import { proposeRule } from "./window-rules";
import { plural } from "@/core/words";

const utc = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" });
/** A window in words, in UTC. */
export const windowText = (w: { startsAt: Date; endsAt: Date }) => `${utc.format(w.startsAt)} – ${utc.format(w.endsAt)} UTC`;

/** Proposes windows; returns their ids (in the order given). */
export async function proposeWindow(
  database: Database,
  deps: { sandbox?: SandboxAccess; notify: NotifyConfig },
  actor: Actor,
  input: { engagementId: string; windows: { startsAt: Date; endsAt: Date }[]; note?: string; now?: Date },
): Promise<{ windowIds: string[]; waiting: WaitingChange | null; notice: FlowNotice }> {
  const first = await readSteps(database, (tx) => loadWindowState(tx, actor, input.engagementId));
  enforce(proposeRule(first.rule), isStaff(actor.role));
  const now = input.now ?? new Date();
  if (!input.windows.length) throw fieldError("windows", "Propose at least one window.");
  input.windows.forEach((w, i) => {
    const problem = windowTimesProblem(w, now);
    if (problem) throw new AppError("BAD_INPUT", `Window ${i + 1}: ${problem.message}`, { fields: { [`windows.${i}.${problem.field}`]: problem.message } });
  });
  const limits = await targetLimits(first.target, deps.sandbox);

  // Made before the transaction, which may run more than once on PostgreSQL.
  const ids = input.windows.map(() => crypto.randomUUID());
  // Read committed: loadWindowState locks the engagement row before the rule is decided.
  return database.transaction(
    function* (tx) {
      const { eng, states, platform, rule } = yield* loadWindowState(tx, actor, input.engagementId);
      enforce(proposeRule(rule), true);
      const estimated = yield* estimateForEngagement(tx, { engagementId: eng.id, platform, target: limits });
      if (!estimated) throw new AppError("PRECONDITION_FAILED", "The engagement has no companies to estimate: the token file must be accepted first.");
      const at = new Date();
      const note = input.note?.trim() || null;
      const rows = input.windows.map((w, i) => ({
        id: ids[i]!,
        engagementId: eng.id,
        status: "proposed" as const,
        startsAt: w.startsAt,
        endsAt: w.endsAt,
        estimateSeconds: Math.ceil(estimated.estimate.totalSeconds),
        estimate: { ...estimated.view },
        estimateRequests: estimated.estimate.totalCalls,
        estimateCompanies: estimated.view.companies,
        note,
        proposedById: actor.id,
        proposedAt: at,
      }));
      yield* insertWindows(tx, rows);
      for (const r of rows) {
        yield* writeAudit(tx, {
          actor,
          action: "window.proposed",
          targetId: r.id,
          engagementId: eng.id,
          organizationId: eng.organizationId,
          after: {
            startsAt: r.startsAt.toISOString(),
            endsAt: r.endsAt.toISOString(),
            estimateSeconds: r.estimateSeconds,
            shorterThanEstimate: r.endsAt.getTime() - r.startsAt.getTime() < r.estimateSeconds * 1000,
          },
          at,
        });
      }
      if (states[2] === "pending") yield* applyStepAction(tx, actor, { engagementId: eng.id, step: 2, action: "start", via: "flow", at });
      const list = rows.map((r) => `- ${windowText(r)}`).join("\n");
      return yield* withNotice(tx, deps.notify, eng.id, {
        windowIds: rows.map((r) => r.id),
        waiting: yield* refreshWaiting(tx, eng.id, at, eng),
        notice: {
          to: "customer",
          subject: plural(rows.length, { one: "A migration window proposed", other: "Migration windows proposed" }),
          text: `${actor.name} proposed ${plural(rows.length, { one: "this migration window", other: "these migration windows" })} (the migration is estimated to take ${estimated.view.total}):\n${list}${note ? `\n\nNote: ${note}` : ""}\n\nAccept one in the portal; each has a calendar invite to download.`,
        },
      });
    },
    { isolation: "read committed" },
  );
}
