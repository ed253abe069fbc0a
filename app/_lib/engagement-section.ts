/**
 * Which part of an engagement's page is shown, as its URL says: one step (`?step=3`), one part of
 * step 6 (`?step=6&part=handover`), or the activity (`?tab=activity`). A link to a step is a link
 * people can share, and the back button walks back through the steps they looked at. Without
 * either, the page opens at the step the engagement is at.
 */
import type { NextMoveAction } from "@/core/engagements/flow-states";
import { STEP_NUMBERS, type StepNumber } from "@/core/engagements/states";

/**
 * Step 6 holds four things that each fill a screen: the bulk run, the companies waiting for their
 * end customers, fresh tokens for the companies that failed, and the handover report.
 */
export const STEP_6_PARTS = ["run", "reconnections", "fresh-tokens", "handover"] as const;
export type Step6Part = (typeof STEP_6_PARTS)[number];

export type EngagementSection = { kind: "step"; step: StepNumber; part?: Step6Part } | { kind: "activity" };

/** The search parameters that name a section (read only: URLSearchParams and Next's ReadonlyURLSearchParams both fit). */
type Params = { get(name: string): string | null };

/** The step an engagement's page opens at: its current step, or step 6 once all six are done. */
export function defaultStep(currentStep: number): EngagementSection & { kind: "step" } {
  const step = STEP_NUMBERS.find((n) => n === Math.min(6, Math.max(1, Math.trunc(currentStep)))) ?? 1;
  return { kind: "step", step };
}

const isPart = (value: string | null): value is Step6Part => (STEP_6_PARTS as readonly (string | null)[]).includes(value);

/**
 * The section the URL names, or `fallback` when it names none. A step that is not 1–6 (a mistyped
 * or stale link) falls back too rather than showing nothing; a part is read for step 6 only.
 */
export function sectionFromParams(params: Params, fallback: EngagementSection): EngagementSection {
  if (params.get("tab") === "activity") return { kind: "activity" };
  const raw = params.get("step")?.trim() ?? null;
  const step = raw !== null && /^[1-6]$/.test(raw) ? STEP_NUMBERS.find((n) => n === Number(raw)) : undefined;
  if (!step) return fallback;
  const part = params.get("part");
  return step === 6 && isPart(part) ? { kind: "step", step, part } : { kind: "step", step };
}

/** The link to a section, relative to the engagement's page (`?step=6`, `?step=6&part=handover`, `?tab=activity`). */
export function sectionHref(section: EngagementSection): string {
  if (section.kind === "activity") return "?tab=activity";
  return section.step === 6 && section.part ? `?step=6&part=${section.part}` : `?step=${section.step}`;
}

/** A key that changes whenever another view is shown. */
export function sectionKey(section: EngagementSection): string {
  return section.kind === "activity" ? "activity" : `step-${section.step}${section.part ? `-${section.part}` : ""}`;
}

/** The part of step 6 where each move is made; moves made elsewhere have none. */
export function partOfMove(action: NextMoveAction): Step6Part | null {
  switch (action) {
    case "run_bulk":
      return "run";
    case "send_reconnect_links":
    case "look_at_drops":
      return "reconnections";
    case "review_supplementary":
      return "fresh-tokens";
    case "produce_report":
    case "acknowledge_report":
      return "handover";
    case "submit_file":
    case "fix_file":
    case "review_submission":
    case "propose_window":
    case "accept_window":
    case "confirm_callback":
    case "confirm_syncing":
    case "run_test":
    case "follow_test":
      return null;
    default: {
      const never: never = action;
      return never;
    }
  }
}

/**
 * The part step 6 opens at when the URL names none: where the viewer's own move is made, else
 * where the other side's is (support follows the customer's acknowledgement on the report), else
 * the handover report once step 6 is done, else the bulk run.
 */
export function defaultStep6Part(input: { mine: NextMoveAction | null; theirs: NextMoveAction | null; step6Done: boolean }): Step6Part {
  const mine = input.mine ? partOfMove(input.mine) : null;
  if (mine) return mine;
  const theirs = input.theirs ? partOfMove(input.theirs) : null;
  if (theirs) return theirs;
  return input.step6Done ? "handover" : "run";
}
