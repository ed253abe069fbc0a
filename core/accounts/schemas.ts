/** The shapes the account operations return, defined once as zod schemas; types are their `z.infer`s. */
import { z } from "zod";
import { ROLES } from "./roles";

export const ZRole = z.enum(ROLES);


export const ZOrganizationSummary = z.object({
  id: z.string(),
  name: z.string(),
  userCount: z.number().int(),
  engagementCount: z.number().int(),
  createdAt: z.date(),
});
export type OrganizationSummary = z.infer<typeof ZOrganizationSummary>;

export const ZUserSummary = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: ZRole,
  organizationId: z.string().nullable(),
  organizationName: z.string().nullable(),
  active: z.boolean(),
  lastSignInAt: z.date().nullable(),
  createdAt: z.date(),
});
export type UserSummary = z.infer<typeof ZUserSummary>;

/** The signed-in person as the app shows them. */
export const ZMe = ZUserSummary.pick({ id: true, name: true, email: true, role: true, organizationId: true, organizationName: true });
export type Me = z.infer<typeof ZMe>;

export const ZStaffMember = ZUserSummary.pick({ id: true, name: true, email: true, role: true });
export type StaffMember = z.infer<typeof ZStaffMember>;

export const INVITATION_STATUSES = ["pending", "accepted", "expired", "revoked"] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

export const ZInvitationSummary = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: ZRole,
  organizationId: z.string().nullable(),
  organizationName: z.string().nullable(),
  status: z.enum(INVITATION_STATUSES),
  expiresAt: z.date(),
  createdAt: z.date(),
  /** The link can still be shown to an admin (pending, and kept sealed because no SMTP sent it). */
  linkKept: z.boolean(),
});
export type InvitationSummary = z.infer<typeof ZInvitationSummary>;

export const ZInvitationLookup = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("pending"),
    email: z.string(),
    name: z.string(),
    role: ZRole,
    organizationName: z.string().nullable(),
  }),
  z.object({ status: z.enum(["accepted", "expired", "revoked", "unknown"]), message: z.string() }),
]);
export type InvitationLookupView = z.infer<typeof ZInvitationLookup>;
