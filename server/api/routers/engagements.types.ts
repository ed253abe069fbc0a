/** Request and response schemas of the engagement procedures (staff console and portal). */
import { z } from "zod";
import { ENGAGEMENT_STATUSES, STEP_STATES } from "@/db/schema";
import { engagementInput } from "../trpc";

export const ZEngagementStatus = z.enum(ENGAGEMENT_STATUSES);
export const ZStepNumber = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5), z.literal(6)]);
export const ZStepAction = z.enum(["start", "complete", "reopen"]);

export const ZListEngagementsRequest = z.object({
  status: z.array(ZEngagementStatus).max(4).optional(),
  step: z.number().int().min(1).max(7).optional(),
  ownerId: z.string().min(1).optional(),
  platformKey: z.string().min(1).max(16).optional(),
  organizationId: z.string().min(1).optional(),
  search: z.string().max(100).optional(),
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(100).default(25),
});

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
  updatedAt: z.date(),
  createdAt: z.date(),
});

export const ZListEngagementsResponse = z.object({
  items: z.array(ZEngagementListItem),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  countsByStep: z.record(z.string(), z.number().int()),
});

const ZPerson = z.object({ id: z.string(), name: z.string() });

export const ZStepView = z.object({
  number: ZStepNumber,
  title: z.string(),
  responsible: z.enum(["customer", "customer_and_support", "support"]),
  doneWhen: z.string(),
  gates: z.array(ZStepNumber),
  state: z.enum(STEP_STATES),
  displayState: z.enum([...STEP_STATES, "locked"]),
  completedBy: ZPerson.nullable(),
  completedAt: z.date().nullable(),
  evidence: z.object({ note: z.string().optional(), onBehalfOfCustomer: z.boolean().optional() }).nullable(),
  reopenedReason: z.string().nullable(),
  reopenedBy: ZPerson.nullable(),
  reopenedAt: z.date().nullable(),
  actions: z.array(z.object({ action: ZStepAction, allowed: z.boolean(), reason: z.string().nullable(), needsNote: z.boolean() })),
});

export const ZEngagementDetail = z.object({
  id: z.string(),
  reference: z.string(),
  organization: z.object({ id: z.string(), name: z.string() }),
  platform: z.object({
    key: z.string(),
    name: z.string(),
    category: z.enum(["accounting", "invoicing", "commerce"]).nullable(),
    callbackUrl: z.string().nullable(),
  }),
  owner: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  serviceTarget: z.object({ id: z.string(), name: z.string(), kind: z.enum(["sandbox", "service"]), baseUrl: z.string() }).nullable(),
  status: ZEngagementStatus,
  currentStep: z.number().int(),
  windowStartsAt: z.date().nullable(),
  windowEndsAt: z.date().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
  steps: z.array(ZStepView),
});

export const ZTimelineEntry = z.object({
  id: z.number().int(),
  at: z.date(),
  actor: z.string(),
  action: z.string(),
  summary: z.string(),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
});

export const ZCreateEngagementRequest = z.object({
  organizationId: z.string().min(1, "Choose the customer organisation."),
  platformKey: z.string().min(1, "Choose the platform.").max(64),
  ownerId: z.string().min(1).nullish(),
});

export const ZStepActionRequest = engagementInput.extend({
  step: ZStepNumber,
  action: ZStepAction,
  note: z.string().trim().max(2000).optional(),
  reason: z.string().trim().max(2000).optional(),
});

export const ZStepActionResponse = z.object({ changed: z.array(ZStepNumber), status: ZEngagementStatus });

export const ZSetStatusRequest = engagementInput.extend({
  status: ZEngagementStatus,
  reason: z.string().trim().max(2000).optional(),
});

export const ZSetOwnerRequest = engagementInput.extend({ ownerId: z.string().min(1, "Choose the new owner.") });
