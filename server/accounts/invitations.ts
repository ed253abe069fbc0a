/**
 * Invitations: an admin invites a person (staff or a customer of one organisation); the emailed
 * link carries a one-time token that expires; the invitee sets a password and becomes a user.
 */
import { and, desc, eq, isNotNull, isNull } from "drizzle-orm";
import { forUpdate, q, type Database } from "@/db/database";
import { invitations, mailOutbox, organizations, users } from "@/db/schema";
import type { Role } from "@/core/accounts/roles";
import type { InvitationStatus, InvitationSummary } from "@/core/accounts/schemas";
import { AppError, fieldError } from "@/server/errors";
import { prepareMail, queueMail, type MailConfig } from "@/server/mail/mailer";
import { forgetInvitationMail } from "@/server/mail/outbox";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { hashPassword, passwordProblem } from "@/server/security/passwords";
import { hashToken, newToken } from "@/server/security/tokens";
import { normalizeEmail } from "./users";
import { INVITATION_TTL_DAYS, INVITATION_TTL_MS } from "@/core/accounts/invitation-lifetime";
import { countOf } from "@/core/words";


const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;


function statusOf(row: { acceptedAt: Date | null; revokedAt: Date | null; expiresAt: Date }, now: Date): InvitationStatus {
  if (row.acceptedAt) return "accepted";
  if (row.revokedAt) return "revoked";
  if (row.expiresAt.getTime() <= now.getTime()) return "expired";
  return "pending";
}

/**
 * Invites a person. Customers need an organisation; staff must not have one. An email that
 * already belongs to a user is refused; a pending invitation for the same email is replaced.
 */
export async function invite(
  deps: { database: Database; mail: MailConfig; appUrl: string },
  actor: Actor,
  input: { email: string; name: string; role: Role; organizationId?: string | null },
  now = new Date(),
): Promise<{ id: string }> {
  const email = normalizeEmail(input.email);
  const name = input.name.trim();
  const fields: Record<string, string> = {};
  if (!EMAIL.test(email)) fields.email = "Enter a valid email address.";
  if (!name) fields.name = "Enter the person's name.";
  if (input.role === "customer" && !input.organizationId) fields.organizationId = "Choose the customer's organisation.";
  if (input.role !== "customer" && input.organizationId) fields.organizationId = "Staff do not belong to a customer organisation.";
  if (Object.keys(fields).length) throw new AppError("BAD_INPUT", Object.values(fields)[0]!, { fields });

  const { database } = deps;
  // Made before the transaction, which may run more than once on PostgreSQL: one token, one link,
  // and the message carrying it, sealed (encryption is random) and bound to the invitation's id.
  const token = newToken();
  const invitationId = crypto.randomUUID();
  const [org] = input.organizationId ? await database.db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, input.organizationId)) : [];
  if (input.organizationId && !org) throw fieldError("organizationId", "That organisation does not exist.");
  const link = `${deps.appUrl.replace(/\/$/, "")}/invite/${token}`;
  const where = org ? ` for ${org.name}` : "";
  const mail = prepareMail(deps.mail, {
    to: email,
    subject: `You're invited to Ferry${where}`,
    text: [
      `Hello ${name},`,
      "",
      `${actor.name} has invited you to Ferry${where} as ${input.role === "customer" ? "a customer user" : `${input.role} staff`}.`,
      `Set your password here (the link works once and expires in ${countOf(INVITATION_TTL_DAYS, "day", "days")}):`,
      link,
    ].join("\n"),
    // The link is the invitation: it is never stored or logged in plain text.
    secrets: [link],
    invitationId,
  });
  // Serializable: the checks are that no user has this email and that the pending invitations
  // found are all there are; rows that do not exist yet cannot be locked.
  const result = await database.transaction(
    function* (tx) {
      if (yield* q.get(tx.select({ id: users.id }).from(users).where(eq(users.email, email)))) {
        throw fieldError("email", `A user with the email ${email} already exists.`);
      }
      let orgName: string | null = null;
      if (input.organizationId) {
        const current = yield* q.get(tx.select().from(organizations).where(eq(organizations.id, input.organizationId)));
        if (!current) throw fieldError("organizationId", "That organisation does not exist.");
        orgName = current.name;
      }
      // A newer invitation supersedes any pending one for the same email.
      const superseded = yield* q.all(
        tx
          .update(invitations)
          .set({ revokedAt: now })
          .where(and(eq(invitations.email, email), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
          .returning({ id: invitations.id }),
      );
      yield* forgetInvitationMail(tx, superseded.map((x) => x.id));
      const inv = yield* q.get(
        tx
          .insert(invitations)
          .values({
            id: invitationId,
            email,
            name,
            role: input.role,
            organizationId: input.organizationId ?? null,
            tokenHash: hashToken(token),
            expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
            invitedById: actor.id,
            createdAt: now,
          })
          .returning(),
      );
      yield* writeAudit(tx, {
        actor,
        action: "invitation.created",
        targetId: inv.id,
        organizationId: inv.organizationId,
        after: { email, name, role: input.role, organization: orgName, supersedes: superseded.map((s) => s.id) },
        at: now,
      });
      // The invitation's message, in its own transaction: no invitation without its mail, nor mail without it.
      yield* queueMail(tx, mail, now);
      return { id: inv.id };
    },
    { isolation: "serializable" },
  );
  return { id: result.id };
}

/** Every invitation, newest first. */
export async function listInvitations(database: Database, now = new Date()): Promise<InvitationSummary[]> {
  const rows = await database.db
    .select({ i: invitations, orgName: organizations.name })
    .from(invitations)
    .leftJoin(organizations, eq(organizations.id, invitations.organizationId))
    .orderBy(desc(invitations.createdAt));
  // Invitations whose message is kept sealed in the embedded outbox: their link can still be shown.
  const sealed = new Set(
    (await database.db.select({ id: mailOutbox.invitationId }).from(mailOutbox).where(and(isNotNull(mailOutbox.sealedText), eq(mailOutbox.transport, "outbox")))).map((r) => r.id).filter((id): id is string => !!id),
  );
  return rows.map(({ i, orgName }) => ({
    id: i.id,
    email: i.email,
    name: i.name,
    role: i.role,
    organizationId: i.organizationId,
    organizationName: orgName ?? null,
    status: statusOf(i, now),
    expiresAt: i.expiresAt,
    createdAt: i.createdAt,
    linkKept: statusOf(i, now) === "pending" && sealed.has(i.id),
  }));
}

/** Revokes a pending invitation so its link stops working. */
export async function revokeInvitation(database: Database, actor: Actor, id: string, now = new Date()): Promise<void> {
  // "Check, then change" on a row that exists: locked, so a revoke and an acceptance at once
  // cannot both succeed.
  await database.transaction(
    function* (tx) {
      const inv = yield* q.get(forUpdate(tx.select().from(invitations).where(eq(invitations.id, id))));
      if (!inv) throw new AppError("NOT_FOUND", "No such invitation.");
      const status = statusOf(inv, now);
      if (status !== "pending") throw new AppError("PRECONDITION_FAILED", `The invitation is already ${status}.`);
      yield* q.run(tx.update(invitations).set({ revokedAt: now }).where(eq(invitations.id, id)));
      yield* forgetInvitationMail(tx, [id]);
      yield* writeAudit(tx, { actor, action: "invitation.revoked", targetId: id, organizationId: inv.organizationId, at: now });
    },
    { isolation: "read committed" },
  );
}

export type InvitationLookup =
  | { status: "pending"; email: string; name: string; role: Role; organizationName: string | null }
  | { status: "accepted" | "expired" | "revoked" | "unknown" };

/** What an invitation link leads to. A used, expired or revoked link says only that. */
export async function lookupInvitation(database: Database, token: string, now = new Date()): Promise<InvitationLookup> {
  const [row] = await database.db
    .select({ i: invitations, orgName: organizations.name })
    .from(invitations)
    .leftJoin(organizations, eq(organizations.id, invitations.organizationId))
    .where(eq(invitations.tokenHash, hashToken(token)));
  if (!row) return { status: "unknown" };
  const status = statusOf(row.i, now);
  if (status !== "pending") return { status };
  return { status, email: row.i.email, name: row.i.name, role: row.i.role, organizationName: row.orgName ?? null };
}

const LINK_PROBLEM: Record<Exclude<InvitationLookup["status"], "pending">, string> = {
  accepted: "This invitation has already been used. Sign in with the password you set.",
  expired: "This invitation has expired. Ask your Ferry contact to send a new one.",
  revoked: "This invitation was withdrawn. Ask your Ferry contact to send a new one.",
  unknown: "This invitation link is not valid.",
};

/** The message for an invitation link that cannot be used. */
export function invitationProblem(status: Exclude<InvitationLookup["status"], "pending">): string {
  return LINK_PROBLEM[status];
}

/** Accepts an invitation: creates the user with the chosen password; the link then stops working. */
export async function acceptInvitation(
  database: Database,
  input: { token: string; name: string; password: string },
  now = new Date(),
): Promise<{ userId: string; email: string }> {
  const name = input.name.trim();
  const fields: Record<string, string> = {};
  if (!name) fields.name = "Enter your name.";
  const pw = passwordProblem(input.password);
  if (pw) fields.password = pw;
  if (Object.keys(fields).length) throw new AppError("BAD_INPUT", Object.values(fields)[0]!, { fields });

  // Hashing is slow: it happens before the transaction.
  const passwordHash = await hashPassword(input.password);
  // Serializable: besides the invitation (one row), the check is that no user has its email yet.
  // The same link used twice at once: one creates the user, the other runs again and finds it used.
  return database.transaction(
    function* (tx) {
      const inv = yield* q.get(tx.select().from(invitations).where(eq(invitations.tokenHash, hashToken(input.token))));
      if (!inv) throw new AppError("NOT_FOUND", invitationProblem("unknown"));
      const status = statusOf(inv, now);
      if (status !== "pending") throw new AppError("PRECONDITION_FAILED", invitationProblem(status));
      if (yield* q.get(tx.select({ id: users.id }).from(users).where(eq(users.email, inv.email)))) {
        throw new AppError("CONFLICT", `A user with the email ${inv.email} already exists. Sign in instead.`);
      }
      const user = yield* q.get(
        tx
          .insert(users)
          .values({ email: inv.email, name, role: inv.role, organizationId: inv.organizationId, passwordHash, createdAt: now })
          .returning({ id: users.id }),
      );
      yield* q.run(tx.update(invitations).set({ acceptedAt: now }).where(eq(invitations.id, inv.id)));
      yield* forgetInvitationMail(tx, [inv.id]);
      const self = { id: user.id, email: inv.email, name, role: inv.role, organizationId: inv.organizationId };
      yield* writeAudit(tx, {
        actor: self,
        action: "invitation.accepted",
        targetId: user.id,
        organizationId: inv.organizationId,
        after: { email: inv.email, name, role: inv.role },
        at: now,
      });
      return { userId: user.id, email: inv.email };
    },
    { isolation: "serializable" },
  );
}
