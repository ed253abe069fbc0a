/**
 * When each control of the bulk run is offered: the rules as one pure module, so the operations
 * (before their transaction and again inside it) and the screens (what is offered, and why not)
 * decide the same way.
 */
import type { Role } from "@/core/accounts/roles";
import { isStaff, statusWords, type Refusal, type StepStates } from "@/server/engagements/checklist";
import type { EngagementStatus } from "@/core/engagements/states";
import type { MigrationItemState, RunStatus } from "@/core/migration/states";
import { formatDuration } from "@/core/format";
import { windowText } from "@/server/engagements/window/propose-window";

const refused = (reason: string, code: Refusal["code"] = "PRECONDITION_FAILED"): Refusal => ({ ok: false, code, reason });

/** Run statuses in which a bulk run still has something to follow (and blocks a new one). */
export const OPEN_BULK_STATUSES = ["queued", "running", "paused", "stopped"] as const satisfies readonly RunStatus[];

export const isOpenBulkStatus = (status: RunStatus) => (OPEN_BULK_STATUSES as readonly RunStatus[]).includes(status);

export type BulkContext = {
  role: Role;
  engagementStatus: EngagementStatus;
  states: StepStates;
  /** Why the engagement may not migrate into its service target (none chosen, another organisation's, archived…), or null. */
  targetRefusal: string | null;
  /** The same for the target the latest run copied when it started (resuming or retrying sends it back to work there), or null. */
  runTargetRefusal: string | null;
  /** The latest bulk run's status, or null before the first. */
  run: { status: RunStatus } | null;
  /** Real companies not yet in a final state, and those failed. */
  unfinished: number;
  failed: number;
  handoverProduced: boolean;
  /** The window the customer accepted in step 2, or null when none is agreed. */
  window: AgreedWindow | null;
  /** The time the rules decide at (injected, so tests do not depend on the clock). */
  now: Date;
};

/** The migration window agreed in step 2. */
export type AgreedWindow = { startsAt: Date; endsAt: Date };
export type WindowPosition = "before" | "inside" | "after";

/** Where `now` stands against the window: its start belongs to it, its end does not. */
export function windowPosition(window: AgreedWindow, now: Date): WindowPosition {
  if (now.getTime() < window.startsAt.getTime()) return "before";
  if (now.getTime() >= window.endsAt.getTime()) return "after";
  return "inside";
}

/**
 * Why starting the bulk migration now needs a reason, in words (the start dialog says it), or
 * null: inside the agreed window, or when none is agreed. The customer agreed to the window, so
 * starting outside it is support's decision to explain; without an agreed window (step 2 is done
 * only by accepting one, so only data from before windows lacks it) there is nothing to hold.
 */
export function outsideWindowWords(window: AgreedWindow | null, now: Date): string | null {
  if (!window) return null;
  const position = windowPosition(window, now);
  switch (position) {
    case "inside":
      return null;
    case "before":
      return `The agreed window (${windowText(window)}) starts in ${formatDuration((window.startsAt.getTime() - now.getTime()) / 1000)}: say why the bulk migration starts before it. The reason is recorded and the customer is told.`;
    case "after":
      return `The agreed window (${windowText(window)}) ended ${formatDuration((now.getTime() - window.endsAt.getTime()) / 1000)} ago: say why the bulk migration starts after it. The reason is recorded and the customer is told.`;
    default: {
      const never: never = position;
      return never;
    }
  }
}

/** Starting outside the agreed window without a reason: refused on the reason field, saying by how much. */
export function startReasonRefusal(c: Pick<BulkContext, "window" | "now">, reason: string | undefined): Refusal | null {
  if (!c.window || reason?.trim()) return null;
  const position = windowPosition(c.window, c.now);
  if (position === "inside") return null;
  const bySeconds = Math.abs((position === "before" ? c.window.startsAt : c.window.endsAt).getTime() - c.now.getTime()) / 1000;
  return {
    ok: false,
    code: "BAD_INPUT",
    field: "reason",
    reason: `Say why the bulk migration starts ${formatDuration(bySeconds)} ${position} the agreed window: the reason is recorded and the customer is told.`,
  };
}

/** Why the run's controls are closed once the handover report exists, saying how companies still come back. */
export const HANDOVER_PRODUCED =
  "The handover report has been produced, so the bulk run takes no more controls. Companies that failed still come back by themselves: through their reconnect links (Reconnections) or fresh tokens (Fresh tokens).";

/** What every control's refusal and the companies' own actions are decided on. */
export type CommonContext = Pick<BulkContext, "role" | "engagementStatus" | "states" | "handoverProduced">;

function common(c: CommonContext): Refusal | null {
  if (!isStaff(c.role)) return refused("Only support staff control the bulk migration.", "FORBIDDEN");
  // After the report the run's own controls close, but companies still move: a reconnection or a
  // supplementary file of fresh tokens puts one back into the run by itself (the last mile).
  if (c.handoverProduced) return refused(HANDOVER_PRODUCED);
  if (c.engagementStatus !== "active") return refused(`The engagement is ${statusWords(c.engagementStatus)}; the bulk migration runs only while it is active.`);
  return null;
}

export function startRefusal(c: BulkContext): Refusal | null {
  const r = common(c);
  if (r) return r;
  if (c.states[5] !== "done") return refused("The bulk migration starts once the single-company test (step 5) has passed.");
  if (c.states[6] === "done") return refused("Step 6 is already done.");
  if (c.targetRefusal) return refused(c.targetRefusal);
  if (c.run && isOpenBulkStatus(c.run.status)) return refused(`A bulk run is already ${runStatusWords(c.run.status)}.`);
  if (c.unfinished === 0) {
    return refused(c.failed ? "Every company has been tried: retry the failed ones instead." : "Every company is already in a final state: produce the handover report.");
  }
  return null;
}

export function pauseRefusal(c: BulkContext): Refusal | null {
  const r = common(c);
  if (r) return r;
  if (!c.run || (c.run.status !== "queued" && c.run.status !== "running")) return refused("There is no bulk run going to pause.");
  return null;
}

export function resumeRefusal(c: BulkContext): Refusal | null {
  const r = common(c);
  if (r) return r;
  if (!c.run || (c.run.status !== "paused" && c.run.status !== "stopped")) return refused("There is no paused or stopped bulk run to resume.");
  if (c.runTargetRefusal) return refused(c.runTargetRefusal);
  return null;
}

export function cancelRefusal(c: BulkContext): Refusal | null {
  const r = common(c);
  if (r) return r;
  if (!c.run || !isOpenBulkStatus(c.run.status)) return refused("There is no bulk run to cancel.");
  return null;
}

export function retryFailedRefusal(c: BulkContext): Refusal | null {
  const r = common(c);
  if (r) return r;
  if (!c.run) return refused("Start the bulk migration first.");
  if (c.run.status === "stopped" || c.run.status === "paused") return refused(`The bulk run is ${c.run.status}: resume it first.`);
  if (c.failed === 0) return refused("No company has failed.");
  if (c.runTargetRefusal) return refused(c.runTargetRefusal);
  return null;
}

/** Setting one company aside, or retrying it. */
export function itemActionsRefusal(c: CommonContext): Refusal | null {
  const r = common(c);
  if (r) return r;
  if (c.states[5] !== "done") return refused("Companies are set aside or retried in the bulk migration, after step 5.");
  return null;
}

export const SET_ASIDE_FROM: readonly MigrationItemState[] = ["pending", "company_created", "connection_created", "authorized", "sync_requested", "reauth_required", "failed"];
export const RETRY_FROM: readonly MigrationItemState[] = ["reauth_required", "failed", "set_aside"];

export function setAsideItemRefusal(state: MigrationItemState, name: string): Refusal | null {
  if (state === "verified") return refused(`${name} is migrated and verified; there is nothing to set aside.`);
  if (state === "set_aside") return refused(`${name} is already set aside.`);
  return null;
}

export function retryItemRefusal(state: MigrationItemState, name: string, runStatus: RunStatus | null, runTargetRefusal: string | null = null): Refusal | null {
  if (state === "reconnect_pending") {
    return refused(`${name} waits for its end customer to reconnect it (its reconnect link), or for fresh tokens in a supplementary file: its migrated tokens would be refused again.`);
  }
  if (!RETRY_FROM.includes(state)) return refused(`${name} is ${state === "verified" ? "migrated and verified" : "still being migrated"}; only a company that failed, needs reauthorization or was set aside can be retried.`);
  if (!runStatus) return refused("Start the bulk migration first.");
  if (runStatus === "stopped" || runStatus === "paused") return refused(`The bulk run is ${runStatus}: resume it first.`);
  if (runTargetRefusal) return refused(runTargetRefusal);
  return null;
}

/** A run status in words, for refusals ("running", "waiting for the worker"). */
export function runStatusWords(status: RunStatus): string {
  switch (status) {
    case "queued":
      return "waiting for the worker";
    case "running":
      return "running";
    case "paused":
      return "paused";
    case "stopped":
      return "stopped";
    default:
      return status;
  }
}
