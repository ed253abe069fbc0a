/**
 * The shapes the engagement operations return, defined once as zod schemas; their types are
 * `z.infer`s. Routers declare them as `.output()`, so no database row reaches a client.
 */
import { z } from "zod";
import { PLATFORM_CATEGORIES } from "../platforms/categories";
import { SERVICE_TARGET_KINDS } from "../targets/kinds";
import { ZStepEvidence } from "./evidence";
import { NEXT_MOVE_ACTIONS, WAITING_PARTIES } from "./flow-states";
import { ZAllowed } from "./intake-schemas";
import { DISPLAY_STATES, ENGAGEMENT_STATUSES, RESPONSIBLE_PARTIES, STEP_ACTIONS, STEP_NUMBERS, STEP_STATES } from "./states";

export const ZEngagementStatus = z.enum(ENGAGEMENT_STATUSES);
export const ZStepNumber = z.literal(STEP_NUMBERS);
export const ZStepAction = z.enum(STEP_ACTIONS);
export const ZStepState = z.enum(STEP_STATES);

const ZPerson = z.object({ id: z.string(), name: z.string() });

/** One action the viewer may take on a step now (the checklist's rules decide; refused ones are not sent). */
export const ZStepActionView = z.object({
  action: ZStepAction,
  /** Completing needs a note saying how the customer confirmed (staff on the customer's behalf). */
  needsNote: z.boolean(),
  /** For a reopen: the other steps it would reset (the cascade). */
  cascade: z.array(ZStepNumber),
});
export type StepActionView = z.infer<typeof ZStepActionView>;

export const ZStepView = z.object({
  number: ZStepNumber,
  title: z.string(),
  responsible: z.enum(RESPONSIBLE_PARTIES),
  doneWhen: z.string(),
  gates: z.array(ZStepNumber),
  /** The gates not done yet: what a locked step waits for. */
  openGates: z.array(ZStepNumber),
  /** A locked step's wait in words, naming only the open gates: "Waits for step 2 (Time agreed) and step 4 (Syncing disabled)." */
  waitsFor: z.string().nullable(),
  state: ZStepState,
  displayState: z.enum(DISPLAY_STATES),
  completedBy: ZPerson.nullable(),
  completedAt: z.date().nullable(),
  evidence: ZStepEvidence.nullable(),
  reopenedReason: z.string().nullable(),
  reopenedBy: ZPerson.nullable(),
  reopenedAt: z.date().nullable(),
  /**
   * What the viewer may do to this step by hand now — Start, Complete, Reopen — as the checklist
   * allows it in the step's state, the gates, the engagement's status and the viewer's role.
   * Actions a step's flow owns (accepting a submission, a window, a test) are its panel's.
   */
  actions: z.array(ZStepActionView),
});
export type StepView = z.infer<typeof ZStepView>;

/** A status change the viewer may offer, and whether it needs a reason. */
export const ZStatusChangeView = z.object({ to: ZEngagementStatus, reasonRequired: z.boolean() });

export const ZPlatformSummary = z.object({
  key: z.string(),
  name: z.string(),
  category: z.enum(PLATFORM_CATEGORIES).nullable(),
  callbackUrl: z.string().nullable(),
});

export const ZWaitingParty = z.enum(WAITING_PARTIES);

/** Whose move it is (null: nobody's), since when, and what they are to do. */
/** One side's next move: what to do, where (a step) and which action the screens offer for it. */
export const ZMove = z.object({ action: z.enum(NEXT_MOVE_ACTIONS), text: z.string(), step: z.literal(STEP_NUMBERS) });
export type MoveView = z.infer<typeof ZMove>;

export const ZWaitingView = z.object({
  party: ZWaitingParty.nullable(),
  since: z.date().nullable(),
  next: z.string(),
  /** Each side's own next move, whether or not it is the one the engagement waits on. */
  moves: z.object({ customer: ZMove.nullable(), support: ZMove.nullable() }),
});

export const ZServiceTargetRef = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(SERVICE_TARGET_KINDS),
  baseUrl: z.string(),
  /** The built-in sandbox, which serves every organisation. */
  builtIn: z.boolean(),
  /** Why this engagement may not use it (another organisation's, unassigned, archived), or null. */
  problem: z.string().nullable(),
});

export const ZEngagementDetail = z.object({
  id: z.string(),
  reference: z.string(),
  organization: z.object({ id: z.string(), name: z.string() }),
  platform: ZPlatformSummary,
  owner: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  serviceTarget: ZServiceTargetRef.nullable(),
  /** Whether the viewer may point the engagement at another service target now, and if not why. */
  targetChange: ZAllowed,
  status: ZEngagementStatus,
  /** The first step not done (7 when all are done). */
  currentStep: z.number().int(),
  /** How many of the six steps are done. */
  stepsDone: z.number().int(),
  windowStartsAt: z.date().nullable(),
  windowEndsAt: z.date().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
  steps: z.array(ZStepView),
  waiting: ZWaitingView,
  /** The status changes the viewer may make now (none for customers). */
  statusChanges: z.array(ZStatusChangeView),
});
export type EngagementDetail = z.infer<typeof ZEngagementDetail>;

export const ZEngagementListItem = z.object({
  id: z.string(),
  reference: z.string(),
  organizationId: z.string(),
  organizationName: z.string(),
  platformKey: z.string(),
  platformName: z.string(),
  ownerId: z.string(),
  ownerName: z.string(),
  status: ZEngagementStatus,
  currentStep: z.number().int(),
  stepsDone: z.number().int(),
  waitingOn: ZWaitingParty.nullable(),
  waitingSince: z.date().nullable(),
  updatedAt: z.date(),
  createdAt: z.date(),
});
export type EngagementListItem = z.infer<typeof ZEngagementListItem>;

export const ZEngagementList = z.object({
  items: z.array(ZEngagementListItem),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  /** Engagements per current step (1–6; 7 = all done) under every filter except the step. */
  countsByStep: z.record(z.string(), z.number().int()),
});
export type EngagementList = z.infer<typeof ZEngagementList>;

export const ZEngagementListFilter = z.object({
  status: z.array(ZEngagementStatus).max(ENGAGEMENT_STATUSES.length).optional(),
  /** 1–6, or 7 for "all steps done". */
  step: z.number().int().min(1).max(7).optional(),
  ownerId: z.string().min(1).optional(),
  platformKey: z.string().min(1).max(16).optional(),
  organizationId: z.string().min(1).optional(),
  /** Whose move it is. */
  waitingOn: ZWaitingParty.optional(),
  search: z.string().max(100).optional(),
  page: z.number().int().min(1),
  pageSize: z.number().int().min(1).max(100),
});
export type EngagementListFilter = z.infer<typeof ZEngagementListFilter>;

export const ZTimelineEntry = z.object({
  id: z.number().int(),
  at: z.date(),
  actor: z.string(),
  action: z.string(),
  summary: z.string(),
  /** Events the entry stands for: more than one for a run of per-company events a customer reads as one line. */
  count: z.number().int().min(1),
  /** For such a run, when its first event happened (`at` is its last); null for one event. */
  since: z.date().nullable(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
});
export type TimelineEntry = z.infer<typeof ZTimelineEntry>;

/** Whose events a timeline shows: everyone's, the people's (someone signed in did it), or the system's (the worker, the watch). */
export const TIMELINE_WHO = ["everyone", "people", "system"] as const;
export type TimelineWho = (typeof TIMELINE_WHO)[number];

export const ZTimelineOptions = z.object({
  who: z.enum(TIMELINE_WHO).default("everyone"),
  /** Staff only: every event on a line of its own, as the audit log holds it (a customer's runs stay grouped). */
  every: z.boolean().default(false),
});
export type TimelineOptions = z.infer<typeof ZTimelineOptions>;
