/**
 * The portfolio's filter and answer: support's home page, every open engagement with its clock
 * (core/engagements/clocks.ts), grouped and filtered by what the URL says.
 */
import { z } from "zod";
import { RISKS } from "./clocks";
import { STATUS_REASONS } from "./status-reasons";
import { ENGAGEMENT_STATUSES } from "./states";
import { WAITING_PARTIES } from "./flow-states";

export const PORTFOLIO_GROUPS = ["none", "owner", "customer", "platform", "target", "risk"] as const;
export type PortfolioGroup = (typeof PORTFOLIO_GROUPS)[number];

/** What the risk filter may pick: a risk, or the engagements on hold, or the stale ones. */
export const PORTFOLIO_RISK_FILTERS = [...RISKS, "on_hold", "stale"] as const;
export type PortfolioRiskFilter = (typeof PORTFOLIO_RISK_FILTERS)[number];

export const ZPortfolioFilter = z.object({
  ownerId: z.string().max(100).optional(),
  organizationId: z.string().max(100).optional(),
  platformKey: z.string().max(100).optional(),
  /** A service target's id, or "none" for engagements without one yet. */
  targetId: z.string().max(100).optional(),
  risk: z.enum(PORTFOLIO_RISK_FILTERS).optional(),
  group: z.enum(PORTFOLIO_GROUPS).default("none"),
  page: z.number().int().min(1).max(10_000).default(1),
  pageSize: z.number().int().min(1).max(200).default(50),
});
export type PortfolioFilter = z.infer<typeof ZPortfolioFilter>;
export type PortfolioFilterInput = z.input<typeof ZPortfolioFilter>;

const ZRisk = z.enum(RISKS);

export const ZPortfolioRow = z.object({
  id: z.string(),
  reference: z.string(),
  organizationId: z.string(),
  organizationName: z.string(),
  platformKey: z.string(),
  platformName: z.string(),
  ownerId: z.string(),
  ownerName: z.string(),
  targetId: z.string().nullable(),
  targetName: z.string().nullable(),
  status: z.enum(ENGAGEMENT_STATUSES),
  statusReason: z.enum(STATUS_REASONS).nullable(),
  statusNote: z.string().nullable(),
  currentStep: z.number().int(),
  stepTitle: z.string(),
  /** Whose move the clock is about (the paused one while on hold). */
  party: z.enum(WAITING_PARTIES).nullable(),
  /** Since when it has been that party's move (null while on hold). */
  waitingSince: z.date().nullable(),
  paused: z.boolean(),
  dueAt: z.date().nullable(),
  risk: ZRisk.nullable(),
  stale: z.boolean(),
  idleDays: z.number().int(),
  updatedAt: z.date(),
  projectedFinish: z.date().nullable(),
  /** The agreed window, or else the earliest proposed one still to come. */
  nextWindow: z.object({ startsAt: z.date(), endsAt: z.date(), agreed: z.boolean() }).nullable(),
});
export type PortfolioRow = z.infer<typeof ZPortfolioRow>;

const ZCount = z.object({ key: z.string(), label: z.string(), count: z.number().int() });

export const ZPortfolio = z.object({
  /** When the clocks were read (the server's time). */
  at: z.date(),
  rows: z.array(ZPortfolioRow),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  /** Over every open engagement the filters other than risk let through. */
  counts: z.object({
    open: z.number().int(),
    late: z.number().int(),
    atRisk: z.number().int(),
    onPace: z.number().int(),
    onHold: z.number().int(),
    stale: z.number().int(),
    supportsMove: z.number().int(),
    customersMove: z.number().int(),
  }),
  /** Why the engagements the filters let through are on hold, and why those cancelled were. */
  holdReasons: z.array(ZCount),
  cancelReasons: z.array(ZCount),
  /** The groups in order, with how many of the filtered engagements each holds and how many are late. */
  groups: z.array(z.object({ key: z.string(), label: z.string(), count: z.number().int(), late: z.number().int(), atRisk: z.number().int() })),
  /** What each filter can pick. */
  options: z.object({
    owners: z.array(z.object({ id: z.string(), name: z.string() })),
    customers: z.array(z.object({ id: z.string(), name: z.string() })),
    platforms: z.array(z.object({ key: z.string(), name: z.string() })),
    targets: z.array(z.object({ id: z.string(), name: z.string() })),
  }),
});
export type Portfolio = z.infer<typeof ZPortfolio>;

/** Each staff member's load: open engagements by risk, support's moves, live runs, windows this week. */
export const ZWorkload = z.object({
  at: z.date(),
  /** The week the windows are counted in: from now, seven days. */
  weekEndsAt: z.date(),
  people: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      role: z.enum(["support", "admin"]),
      active: z.boolean(),
      open: z.number().int(),
      late: z.number().int(),
      atRisk: z.number().int(),
      onHold: z.number().int(),
      stale: z.number().int(),
      supportsMove: z.number().int(),
      liveRuns: z.number().int(),
      windowsAgreed: z.number().int(),
      windowsProposed: z.number().int(),
    }),
  ),
});
export type Workload = z.infer<typeof ZWorkload>;
