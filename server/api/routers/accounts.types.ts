/** Request and response schemas of the account procedures (people, organisations, invitations). */
import { z } from "zod";
import { ROLES } from "@/db/schema";

export const ZRole = z.enum(ROLES);

export const ZMeResponse = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  role: ZRole,
  organizationId: z.string().nullable(),
  organizationName: z.string().nullable(),
});

export const ZOk = z.object({ ok: z.literal(true) });

export const ZChangePasswordRequest = z.object({
  currentPassword: z.string().min(1, "Enter your current password.").max(200),
  newPassword: z.string().min(1, "Choose a new password.").max(200),
});

export const ZOrganization = z.object({
  id: z.string(),
  name: z.string(),
  userCount: z.number().int(),
  engagementCount: z.number().int(),
  createdAt: z.date(),
});
export const ZCreateOrganizationRequest = z.object({ name: z.string().trim().min(1, "Enter the organisation's name.").max(120) });
export const ZCreateOrganizationResponse = z.object({ id: z.string(), name: z.string() });

export const ZUser = z.object({
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
export const ZStaffMember = z.object({ id: z.string(), name: z.string(), email: z.string(), role: ZRole });
export const ZSetUserActiveRequest = z.object({ userId: z.string().min(1), active: z.boolean() });

export const ZInvitation = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: ZRole,
  organizationId: z.string().nullable(),
  organizationName: z.string().nullable(),
  status: z.enum(["pending", "accepted", "expired", "revoked"]),
  expiresAt: z.date(),
  createdAt: z.date(),
});
export const ZCreateInvitationRequest = z.object({
  email: z.string().trim().min(1, "Enter an email address.").max(254).email("Enter a valid email address."),
  name: z.string().trim().min(1, "Enter the person's name.").max(120),
  role: ZRole,
  organizationId: z.string().min(1).nullish(),
});

export const ZInvitationLookupResponse = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("pending"),
    email: z.string(),
    name: z.string(),
    role: ZRole,
    organizationName: z.string().nullable(),
  }),
  z.object({ status: z.enum(["accepted", "expired", "revoked", "unknown"]), message: z.string() }),
]);
export const ZAcceptInvitationRequest = z.object({
  token: z.string().min(10).max(200),
  name: z.string().trim().min(1, "Enter your name.").max(120),
  password: z.string().min(1, "Choose a password.").max(200),
});

export const ZMailMessage = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  transport: z.enum(["outbox", "smtp"]),
  sentAt: z.date().nullable(),
  error: z.string().nullable(),
  createdAt: z.date(),
  canRevealLink: z.boolean(),
});
