/** Thin routers for people, organisations, invitations, the mail outbox and the current user. */
import { eq } from "drizzle-orm";
import { z } from "zod";
import { organizations } from "@/db/schema";
import { createOrganization, listOrganizations } from "@/server/accounts/organizations";
import { acceptInvitation, invitationProblem, invite, listInvitations, lookupInvitation, revokeInvitation } from "@/server/accounts/invitations";
import { signOutEverywhere } from "@/server/accounts/sessions";
import { changePassword, listUsers, setUserActive } from "@/server/accounts/users";
import { listOutbox, revealOutboxMessage } from "@/server/mail/outbox";
import { adminProcedure, createTRPCRouter, publicProcedure, signedInProcedure, staffProcedure } from "../trpc";
import {
  ZAcceptInvitationRequest,
  ZChangePasswordRequest,
  ZCreateInvitationRequest,
  ZCreateOrganizationRequest,
  ZCreateOrganizationResponse,
  ZInvitation,
  ZInvitationLookupResponse,
  ZMailMessage,
  ZMeResponse,
  ZOk,
  ZOrganization,
  ZSetUserActiveRequest,
  ZStaffMember,
  ZUser,
} from "./accounts.types";

export const meRouter = createTRPCRouter({
  /** The signed-in user. */
  get: signedInProcedure.output(ZMeResponse).query(({ ctx }) => {
    const org = ctx.actor.organizationId
      ? ctx.db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, ctx.actor.organizationId)).get()
      : undefined;
    return { ...ctx.actor, organizationName: org?.name ?? null };
  }),
  /** Ends every session of the signed-in person (this one too). */
  signOutEverywhere: signedInProcedure.output(ZOk).mutation(({ ctx }) => {
    signOutEverywhere(ctx.db, ctx.actor, { userId: ctx.actor.id });
    return { ok: true as const };
  }),
  /** Changes the signed-in person's password; every session of theirs ends. */
  changePassword: signedInProcedure
    .input(ZChangePasswordRequest)
    .output(ZOk)
    .mutation(async ({ ctx, input }) => {
      await changePassword(ctx.db, ctx.actor, input);
      return { ok: true as const };
    }),
});

export const organizationsRouter = createTRPCRouter({
  /** Every customer organisation with counts (staff pick one when creating an engagement). */
  list: staffProcedure.output(z.array(ZOrganization)).query(({ ctx }) => listOrganizations(ctx.db)),
  /** Creates a customer organisation. */
  create: adminProcedure
    .input(ZCreateOrganizationRequest)
    .output(ZCreateOrganizationResponse)
    .mutation(({ ctx, input }) => createOrganization(ctx.db, ctx.actor, input)),
});

export const usersRouter = createTRPCRouter({
  /** Every user, for admins. */
  list: adminProcedure.output(z.array(ZUser)).query(({ ctx }) => listUsers(ctx.db)),
  /** Active staff, for owner pickers. */
  staff: staffProcedure.output(z.array(ZStaffMember)).query(({ ctx }) =>
    listUsers(ctx.db, { roles: ["admin", "support"] })
      .filter((u) => u.active)
      .map(({ id, name, email, role }) => ({ id, name, email, role })),
  ),
  /** Deactivates or reactivates a user. */
  setActive: adminProcedure
    .input(ZSetUserActiveRequest)
    .output(z.object({ ok: z.literal(true) }))
    .mutation(({ ctx, input }) => {
      setUserActive(ctx.db, ctx.actor, input);
      return { ok: true as const };
    }),
  /** Ends every session of a user (admins). */
  signOutEverywhere: adminProcedure
    .input(z.object({ userId: z.string().min(1).max(64) }))
    .output(ZOk)
    .mutation(({ ctx, input }) => {
      signOutEverywhere(ctx.db, ctx.actor, input);
      return { ok: true as const };
    }),
});

export const invitationsRouter = createTRPCRouter({
  /** Every invitation, newest first. */
  list: adminProcedure.output(z.array(ZInvitation)).query(({ ctx }) => listInvitations(ctx.db)),
  /** Invites a staff member or a customer user; the link is emailed (or lands in the outbox). */
  create: adminProcedure
    .input(ZCreateInvitationRequest)
    .output(z.object({ id: z.string() }))
    .mutation(({ ctx, input }) =>
      invite({ db: ctx.db, mail: ctx.config.mail, appUrl: ctx.config.appUrl }, ctx.actor, input),
    ),
  /** Withdraws a pending invitation. */
  revoke: adminProcedure
    .input(z.object({ invitationId: z.string().min(1) }))
    .output(z.object({ ok: z.literal(true) }))
    .mutation(({ ctx, input }) => {
      revokeInvitation(ctx.db, ctx.actor, input.invitationId);
      return { ok: true as const };
    }),
  /** What an invitation link leads to (public: the invitee is not signed in). */
  lookup: publicProcedure
    .input(z.object({ token: z.string().min(1).max(200) }))
    .output(ZInvitationLookupResponse)
    .query(({ ctx, input }) => {
      const found = lookupInvitation(ctx.db, input.token);
      return found.status === "pending" ? found : { status: found.status, message: invitationProblem(found.status) };
    }),
  /** Sets the invitee's name and password; the link then stops working. */
  accept: publicProcedure
    .input(ZAcceptInvitationRequest)
    .output(z.object({ email: z.string() }))
    .mutation(async ({ ctx, input }) => ({ email: (await acceptInvitation(ctx.db, input)).email })),
});

export const outboxRouter = createTRPCRouter({
  /** Outgoing mail, newest first (in the embedded default, the only place mail goes). */
  list: adminProcedure
    .input(z.object({ limit: z.number().int().min(1).max(200).default(50) }).optional())
    .output(z.array(ZMailMessage))
    .query(({ ctx, input }) => listOutbox(ctx.db, { limit: input?.limit ?? 50 })),
  /** The whole text of a pending invitation's message, link included (audited). */
  revealLink: adminProcedure
    .input(z.object({ id: z.string().min(1).max(64) }))
    .output(z.object({ text: z.string() }))
    .mutation(({ ctx, input }) => revealOutboxMessage(ctx.db, ctx.config.keyRing, ctx.actor, input)),
});
