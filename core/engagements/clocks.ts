/**
 * The engagement's clocks: how long each party has for its move in each step, when the move now
 * under way is due, whether the engagement is on pace, at risk or late, whether it has gone stale,
 * and when it should finish. Pure: the portfolio (server/engagements/portfolio) reads the rows and
 * the organisation's targets, and these rules say what they mean at `now`.
 *
 * A move's clock runs only while it is that party's move: waiting on the other party stops it (the
 * other party's clock runs instead), and putting the engagement on hold pauses it — the time
 * already spent is kept and counted again when the same party's move resumes (see
 * `engagements.move_credit_ms` and `paused_move`).
 */
import { STEP_NUMBERS, type StepNumber } from "./states";
import type { WaitingParty } from "./flow-states";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Hours each party has for its move in a step. */
export type StepTargets = Record<WaitingParty, number>;
/** The targets for every step, and after how many days without a change an engagement is stale. */
export type ClockTargets = { steps: Record<StepNumber, StepTargets>; staleAfterDays: number };
/** An organisation's changes to the defaults: only what differs. */
export type ClockTargetOverrides = { steps?: Partial<Record<StepNumber, Partial<StepTargets>>>; staleAfterDays?: number };

/**
 * The defaults, in hours per move (a support team's service levels for a managed migration; each
 * organisation may change them):
 *
 * | step | customer | support |
 * |---|---|---|
 * | 1 Details gathered: the customer submits details and the token file; support reviews | 5 days | 1 day |
 * | 2 Time agreed: support proposes windows; the customer accepts one | 3 days | 1 day |
 * | 3 Callback URL added: the customer adds it; support checks | 2 days | 1 day |
 * | 4 Syncing disabled: the customer turns the old syncing off; support checks | 2 days | 1 day |
 * | 5 Single-company test: support runs it; the customer checks the company | 2 days | 1 day |
 * | 6 Bulk migration and handover: support runs it and reports; the customer acknowledges | 5 days | 2 days |
 *
 * Stale after 5 days without any change.
 */
export const DEFAULT_CLOCK_TARGETS: ClockTargets = {
  steps: {
    1: { customer: 5 * 24, support: 24 },
    2: { customer: 3 * 24, support: 24 },
    3: { customer: 2 * 24, support: 24 },
    4: { customer: 2 * 24, support: 24 },
    5: { customer: 2 * 24, support: 24 },
    6: { customer: 5 * 24, support: 2 * 24 },
  },
  staleAfterDays: 5,
};

/** The most hours a move's target may be set to (a quarter), and the most days before stale. */
export const MAX_TARGET_HOURS = 90 * 24;
export const MAX_STALE_DAYS = 90;

/** The defaults with an organisation's changes laid over them. */
export function clockTargetsFor(overrides: ClockTargetOverrides | null | undefined): ClockTargets {
  if (!overrides) return DEFAULT_CLOCK_TARGETS;
  const steps = { ...DEFAULT_CLOCK_TARGETS.steps };
  for (const step of STEP_NUMBERS) {
    const o = overrides.steps?.[step];
    if (o) steps[step] = { ...steps[step], ...o };
  }
  return { steps, staleAfterDays: overrides.staleAfterDays ?? DEFAULT_CLOCK_TARGETS.staleAfterDays };
}

export const RISKS = ["late", "at_risk", "on_pace"] as const;
export type Risk = (typeof RISKS)[number];

/** A move is at risk once less than this share of its target is left. */
const AT_RISK_SHARE = 0.25;

/** What the clock rules read of an engagement. */
export type ClockInput = {
  status: "active" | "on_hold" | "completed" | "cancelled";
  /** The first step not done (7 when all are). */
  currentStep: number;
  waitingOn: WaitingParty | null;
  waitingSince: Date | null;
  /** Time the current move had already run before a hold. */
  moveCreditMs: number;
  /** While on hold: whose move was paused, and how long it had run. */
  pausedMove: { party: WaitingParty; elapsedMs: number } | null;
  windowStartsAt: Date | null;
  windowEndsAt: Date | null;
  updatedAt: Date;
};

export type Clock = {
  /** Whose move the clock is about (the paused one while on hold); null when nobody's. */
  party: WaitingParty | null;
  paused: boolean;
  /** How long the move has run (its clock, pauses left out). */
  elapsedMs: number;
  /** The move's target. */
  targetMs: number;
  /** When the move is due (while paused: if it resumed now). */
  dueAt: Date | null;
  risk: Risk | null;
  stale: boolean;
  /** Days since the last change. */
  idleDays: number;
  /** When the engagement should finish at the targets from here (null when it is over). */
  projectedFinish: Date | null;
};

const isStep = (n: number): n is StepNumber => (STEP_NUMBERS as readonly number[]).includes(n);

/** The risk of a move that has run `elapsedMs` of `targetMs`. */
export function riskOf(elapsedMs: number, targetMs: number): Risk {
  if (elapsedMs > targetMs) return "late";
  return targetMs - elapsedMs < targetMs * AT_RISK_SHARE ? "at_risk" : "on_pace";
}

/** The engagement's clock at `now`, under `targets`. */
export function clockOf(e: ClockInput, targets: ClockTargets, now: Date): Clock {
  const idleMs = Math.max(0, now.getTime() - e.updatedAt.getTime());
  const idleDays = Math.floor(idleMs / DAY);
  const open = e.status === "active" || e.status === "on_hold";
  const stale = open && idleMs >= targets.staleAfterDays * DAY;
  const none: Clock = { party: null, paused: false, elapsedMs: 0, targetMs: 0, dueAt: null, risk: null, stale, idleDays, projectedFinish: null };
  if (!open || !isStep(e.currentStep)) return none;
  const step = e.currentStep;
  const paused = e.status === "on_hold";
  const party = paused ? (e.pausedMove?.party ?? null) : e.waitingOn;
  const elapsedMs = paused
    ? (e.pausedMove?.elapsedMs ?? 0)
    : e.waitingSince
      ? e.moveCreditMs + Math.max(0, now.getTime() - e.waitingSince.getTime())
      : 0;
  if (!party) return { ...none, paused, projectedFinish: projectFinish({ step, party: null, elapsedMs: 0 }, e, targets, now) };
  const targetMs = targets.steps[step][party] * HOUR;
  const dueAt = new Date(now.getTime() + targetMs - elapsedMs);
  return {
    party,
    paused,
    elapsedMs,
    targetMs,
    dueAt,
    risk: riskOf(elapsedMs, targetMs),
    stale,
    idleDays,
    projectedFinish: projectFinish({ step, party, elapsedMs }, e, targets, now),
  };
}

/**
 * When the engagement should finish if every move from here takes its target: what is left of
 * the current move, the other party's move in this step, and both parties' moves in every later
 * step. An agreed window is when the bulk run happens, so the finish is at least the window's end
 * and the customer's acknowledgement after it.
 */
function projectFinish(move: { step: StepNumber; party: WaitingParty | null; elapsedMs: number }, e: ClockInput, targets: ClockTargets, now: Date): Date {
  const { step, party, elapsedMs } = move;
  const t = targets.steps;
  const moveMs = (s: StepNumber) => (t[s].customer + t[s].support) * HOUR;
  let leftMs = party ? Math.max(0, t[step][party] * HOUR - elapsedMs) + t[step][party === "customer" ? "support" : "customer"] * HOUR : moveMs(step);
  for (const later of STEP_NUMBERS) if (later > step) leftMs += moveMs(later);
  let finish = now.getTime() + leftMs;
  if (e.windowEndsAt && e.windowEndsAt.getTime() > now.getTime()) {
    finish = Math.max(finish, e.windowEndsAt.getTime() + t[6].customer * HOUR);
  }
  return new Date(finish);
}

/**
 * When the move under way is due and when it turns at risk: fixed while the move runs (its start,
 * the time credited from before a hold, the target), so they are stored with the engagement and the
 * portfolio finds the late and the at risk in the database (`due_at < now`, `at_risk_at < now`),
 * exactly as `riskOf` decides. Null while nobody's move it is, on hold, or closed.
 */
export function moveDeadlines(e: Pick<ClockInput, "status" | "currentStep" | "waitingOn" | "waitingSince" | "moveCreditMs">, targets: ClockTargets): { dueAt: Date; atRiskAt: Date } | null {
  if (e.status !== "active" || !e.waitingOn || !e.waitingSince || !isStep(e.currentStep)) return null;
  const targetMs = targets.steps[e.currentStep][e.waitingOn] * HOUR;
  const due = e.waitingSince.getTime() - e.moveCreditMs + targetMs;
  return { dueAt: new Date(due), atRiskAt: new Date(due - targetMs * AT_RISK_SHARE) };
}

/** Words for a risk, as the portfolio shows it. */
export const RISK_LABELS: Record<Risk, string> = { late: "Late", at_risk: "At risk", on_pace: "On pace" };

/**
 * What differs from the defaults in `targets` (null when nothing does): what an organisation's
 * row keeps, so a later change of a default reaches every organisation that did not change it.
 */
export function overridesOf(targets: ClockTargets): ClockTargetOverrides | null {
  const steps: NonNullable<ClockTargetOverrides["steps"]> = {};
  for (const step of STEP_NUMBERS) {
    const d = DEFAULT_CLOCK_TARGETS.steps[step];
    const t = targets.steps[step];
    const diff: Partial<StepTargets> = {};
    if (t.customer !== d.customer) diff.customer = t.customer;
    if (t.support !== d.support) diff.support = t.support;
    if (Object.keys(diff).length) steps[step] = diff;
  }
  const out: ClockTargetOverrides = {};
  if (Object.keys(steps).length) out.steps = steps;
  if (targets.staleAfterDays !== DEFAULT_CLOCK_TARGETS.staleAfterDays) out.staleAfterDays = targets.staleAfterDays;
  return Object.keys(out).length ? out : null;
}
