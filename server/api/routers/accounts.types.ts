/** Request and response schemas of the account procedures (people, organisations, invitations, outbox). */
import { z } from "zod";
import { MAX_STALE_DAYS, MAX_TARGET_HOURS } from "@/core/engagements/clocks";
import { MAIL_PREFERENCES } from "@/core/engagements/reminders";
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

/** Hours for one party's move in a step: at least an hour, at most a quarter. */
const ZTargetHours = z.number({ error: "Enter a number of hours." }).int("Whole hours.").min(1, "At least 1 hour.").max(MAX_TARGET_HOURS, `At most ${MAX_TARGET_HOURS} hours (90 days).`);
export const ZStepTargets = z.object({ customer: ZTargetHours, support: ZTargetHours });
export const ZStaleDays = z.number({ error: "Enter a number of days." }).int("Whole days.").min(1, "At least 1 day.").max(MAX_STALE_DAYS, `At most ${MAX_STALE_DAYS} days.`);
export const ZClockTargets = z.object({
  steps: z.object({ 1: ZStepTargets, 2: ZStepTargets, 3: ZStepTargets, 4: ZStepTargets, 5: ZStepTargets, 6: ZStepTargets }),
  staleAfterDays: ZStaleDays,
});
export const ZClockTargetsRequest = z.object({ organizationId: z.string().min(1) });
export const ZSetClockTargetsRequest = z.object({ organizationId: z.string().min(1), targets: ZClockTargets });
export const ZClockTargetsResponse = z.object({ organizationId: z.string(), name: z.string(), targets: ZClockTargets, defaults: ZClockTargets, changed: z.boolean() });

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

export const ZMailPreferenceResponse = z.object({ preference: z.enum(MAIL_PREFERENCES) });
export const ZSetMailPreferenceRequest = z.object({ preference: z.enum(MAIL_PREFERENCES, "Choose which mail you want.") });
