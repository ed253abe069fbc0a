/** Request and response schemas of the account procedures (people, organisations, invitations, outbox). */
import { z } from "zod";
import {
  ZInvitationLookup,
  ZInvitationSummary,
  ZMe,
  ZOrganizationSummary,
  ZRole,
  ZStaffMember,
  ZUserSummary,
} from "@/core/accounts/schemas";
import { ZOutboxMessage, ZOutboxPage, ZOutboxSearch } from "@/core/mail/schemas";

export const ZMeResponse = ZMe;

export const ZChangePasswordRequest = z.object({
  currentPassword: z.string().min(1, "Enter your current password.").max(200),
  newPassword: z.string().min(1, "Choose a new password.").max(200),
});

export const ZListOrganizationsResponse = z.array(ZOrganizationSummary);
export const ZCreateOrganizationRequest = z.object({ name: z.string().trim().min(1, "Enter the organisation's name.").max(120) });
export const ZCreateOrganizationResponse = z.object({ id: z.string(), name: z.string() });

export const ZListUsersResponse = z.array(ZUserSummary);
export const ZListStaffResponse = z.array(ZStaffMember);
export const ZSignOutUserRequest = z.object({ userId: z.string().min(1).max(64) });
export const ZSetUserActiveRequest = z.object({ userId: z.string().min(1), active: z.boolean() });

export const ZListInvitationsResponse = z.array(ZInvitationSummary);
export const ZCreateInvitationRequest = z.object({
  email: z.string().trim().min(1, "Enter an email address.").max(254).email("Enter a valid email address."),
  name: z.string().trim().min(1, "Enter the person's name.").max(120),
  role: ZRole,
  organizationId: z.string().min(1).nullish(),
});
export const ZCreateInvitationResponse = z.object({ id: z.string() });
export const ZRevokeInvitationRequest = z.object({ invitationId: z.string().min(1) });
export const ZRevealInvitationLinkRequest = z.object({ invitationId: z.string().min(1).max(64) });
export const ZRevealInvitationLinkResponse = z.object({ link: z.string() });
export const ZLookupInvitationRequest = z.object({ token: z.string().min(1).max(200) });
export const ZInvitationLookupResponse = ZInvitationLookup;
export const ZAcceptInvitationRequest = z.object({
  token: z.string().min(10).max(200),
  name: z.string().trim().min(1, "Enter your name.").max(120),
  password: z.string().min(1, "Choose a password.").max(200),
});
export const ZAcceptInvitationResponse = z.object({ email: z.string() });

export const ZListOutboxRequest = z.object({ limit: z.number().int().min(1).max(200).default(50) }).optional();
export const ZListOutboxResponse = z.array(ZOutboxMessage);
export const ZSearchOutboxRequest = ZOutboxSearch;
export const ZSearchOutboxResponse = ZOutboxPage;
export const ZRevealOutboxLinkRequest = z.object({ id: z.string().min(1).max(64) });
export const ZRevealOutboxLinkResponse = z.object({ text: z.string() });
