/** Thin routers for people, organisations, invitations, the mail outbox and the current user. */
import { createOrganization, listOrganizations } from "@/server/accounts/organizations";
import { getClockTargets, setClockTargets } from "@/server/accounts/clock-targets";
import { acceptInvitation, invitationProblem, invite, listInvitations, lookupInvitation, revokeInvitation } from "@/server/accounts/invitations";
import { signOutEverywhere } from "@/server/accounts/sessions";
import { changePassword, getMe, listActiveStaff, listUsers, setUserActive, getMailPreference, setMailPreference } from "@/server/accounts/users";
import { listOutbox, revealInvitationLink, revealOutboxMessage, searchOutbox } from "@/server/mail/outbox";
import { adminProcedure, createTRPCRouter, publicProcedure, signedInProcedure, staffProcedure } from "../trpc";
import {
  ZAcceptInvitationRequest,
  ZAcceptInvitationResponse,
  ZChangePasswordRequest,
  ZCreateInvitationRequest,
  ZCreateInvitationResponse,
  ZClockTargetsRequest,
  ZClockTargetsResponse,
  ZCreateOrganizationRequest,
  ZSetClockTargetsRequest,
  ZCreateOrganizationResponse,
  ZInvitationLookupResponse,
  ZListInvitationsResponse,
  ZListOrganizationsResponse,
  ZListOutboxRequest,
  ZListOutboxResponse,
  ZSearchOutboxRequest,
  ZSearchOutboxResponse,
  ZListStaffResponse,
  ZListUsersResponse,
  ZLookupInvitationRequest,
  ZMeResponse,
  ZRevealOutboxLinkRequest,
  ZRevealOutboxLinkResponse,
  ZRevokeInvitationRequest,
  ZRevealInvitationLinkRequest,
  ZRevealInvitationLinkResponse,
  ZSignOutUserRequest,
  ZSetUserActiveRequest,
  ZMailPreferenceResponse,
  ZSetMailPreferenceRequest,
} from "./accounts.types";
import { OK, ZOk } from "./shared.types";

export const meRouter = createTRPCRouter({
  /** The signed-in user. */
  get: signedInProcedure.output(ZMeResponse).query(({ ctx }) => getMe(ctx.database, ctx.actor)),
  /** Which mail the signed-in person wants. */
  mailPreference: signedInProcedure.output(ZMailPreferenceResponse).query(({ ctx }) => getMailPreference(ctx.database, ctx.actor)),
  /** Sets which mail the signed-in person wants (every mail, the daily digest only, or only mail that needs them to act). */
  setMailPreference: signedInProcedure
    .input(ZSetMailPreferenceRequest)
    .output(ZMailPreferenceResponse)
    .mutation(({ ctx, input }) => setMailPreference(ctx.database, ctx.actor, input)),
  /** Ends every session of the signed-in person (this one too). */
  signOutEverywhere: signedInProcedure.output(ZOk).mutation(async ({ ctx }) => {
    await signOutEverywhere(ctx.database, ctx.actor, { userId: ctx.actor.id });
    return OK;
  }),
  /** Changes the signed-in person's password; every session of theirs ends. */
  changePassword: signedInProcedure
    .input(ZChangePasswordRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await changePassword(ctx.database, ctx.actor, input);
      return OK;
    }),
});

export const organizationsRouter = createTRPCRouter({
  /** Every customer organisation with counts (staff pick one when creating an engagement). */
  list: staffProcedure.output(ZListOrganizationsResponse).query(({ ctx }) => listOrganizations(ctx.database)),
  /** Creates a customer organisation. */
  create: adminProcedure
    .input(ZCreateOrganizationRequest)
    .output(ZCreateOrganizationResponse)
    .mutation(({ ctx, input }) => createOrganization(ctx.database, ctx.actor, input)),
  /** The organisation's move targets beside the defaults (the portfolio's clocks). */
  clockTargets: staffProcedure.input(ZClockTargetsRequest).output(ZClockTargetsResponse).query(({ ctx, input }) => getClockTargets(ctx.database, input.organizationId)),
  /** Changes the organisation's move targets (audited). */
  setClockTargets: adminProcedure
    .input(ZSetClockTargetsRequest)
    .output(ZClockTargetsResponse)
    .mutation(({ ctx, input }) => setClockTargets(ctx.database, ctx.actor, input)),
});

export const usersRouter = createTRPCRouter({
  /** Every user, for admins. */
  list: adminProcedure.output(ZListUsersResponse).query(({ ctx }) => listUsers(ctx.database)),
  /** Active staff, for owner pickers. */
  staff: staffProcedure.output(ZListStaffResponse).query(({ ctx }) => listActiveStaff(ctx.database)),
  /** Deactivates or reactivates a user. */
  setActive: adminProcedure
    .input(ZSetUserActiveRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await setUserActive(ctx.database, ctx.actor, input);
      return OK;
    }),
  /** Ends every session of a user (admins). */
  signOutEverywhere: adminProcedure
    .input(ZSignOutUserRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await signOutEverywhere(ctx.database, ctx.actor, input);
      return OK;
    }),
});

export const invitationsRouter = createTRPCRouter({
  /** Every invitation, newest first. */
  list: adminProcedure.output(ZListInvitationsResponse).query(({ ctx }) => listInvitations(ctx.database)),
  /** Invites a staff member or a customer user; the link is emailed (or lands in the outbox). */
  create: adminProcedure
    .input(ZCreateInvitationRequest)
    .output(ZCreateInvitationResponse)
    .mutation(({ ctx, input }) => invite({ database: ctx.database, mail: ctx.config.mail, appUrl: ctx.config.appUrl }, ctx.actor, input)),
  /** Withdraws a pending invitation. */
  revoke: adminProcedure
    .input(ZRevokeInvitationRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await revokeInvitation(ctx.database, ctx.actor, input.invitationId);
      return OK;
    }),
  /** A pending invitation's link, to copy from the list (the embedded outbox keeps it sealed; audited). */
  revealLink: adminProcedure
    .input(ZRevealInvitationLinkRequest)
    .output(ZRevealInvitationLinkResponse)
    .mutation(({ ctx, input }) => revealInvitationLink(ctx.database, ctx.config.keyRing, ctx.actor, input)),
  /** What an invitation link leads to (public: the invitee is not signed in). */
  lookup: publicProcedure
    .input(ZLookupInvitationRequest)
    .output(ZInvitationLookupResponse)
    .query(async ({ ctx, input }) => {
      const found = await lookupInvitation(ctx.database, input.token);
      return found.status === "pending" ? found : { status: found.status, message: invitationProblem(found.status) };
    }),
  /** Sets the invitee's name and password; the link then stops working. */
  accept: publicProcedure
    .input(ZAcceptInvitationRequest)
    .output(ZAcceptInvitationResponse)
    .mutation(async ({ ctx, input }) => ({ email: (await acceptInvitation(ctx.database, input)).email })),
});

export const outboxRouter = createTRPCRouter({
  /** Outgoing mail, newest first (in the embedded default, the only place mail goes). */
  list: adminProcedure
    .input(ZListOutboxRequest)
    .output(ZListOutboxResponse)
    .query(({ ctx, input }) => listOutbox(ctx.database, { limit: input?.limit ?? 50 })),
  /** A page of outgoing mail, newest first, searched (recipient, subject, text) and filtered by where each stands. */
  search: adminProcedure
    .input(ZSearchOutboxRequest)
    .output(ZSearchOutboxResponse)
    .query(({ ctx, input }) => searchOutbox(ctx.database, input)),
  /** The whole text of a pending invitation's message, link included (audited). */
  revealLink: adminProcedure
    .input(ZRevealOutboxLinkRequest)
    .output(ZRevealOutboxLinkResponse)
    .mutation(({ ctx, input }) => revealOutboxMessage(ctx.database, ctx.config.keyRing, ctx.actor, input)),
});
