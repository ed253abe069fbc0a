/**
 * The outbox as admins see it. Stored text never holds a one-time link (server/mail/mailer.ts);
 * in the embedded default (no SMTP) an invitation's whole message is kept encrypted, and an admin
 * may reveal it — audited — while the invitation is pending, to pass the link on. Once the
 * invitation is accepted, withdrawn or replaced, the sealed copy is deleted.
 */
import { and, desc, eq, gt, inArray, isNotNull, isNull } from "drizzle-orm";
import { q, type Database, type Steps, type Tx } from "@/db/database";
import { invitations, mailOutbox } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { decryptSecret, type KeyRing } from "@/server/security/secrets";
import { mailAad } from "./mailer";
import type { OutboxMessage } from "@/core/mail/schemas";

/** Outgoing mail, newest first, links hidden. */
export async function listOutbox(database: Database, input: { limit: number }, now = new Date()): Promise<OutboxMessage[]> {
  const rows = await database.db
    .select({ m: mailOutbox, pendingInvitation: invitations.id })
    .from(mailOutbox)
    .leftJoin(
      invitations,
      and(eq(invitations.id, mailOutbox.invitationId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)),
    )
    .orderBy(desc(mailOutbox.createdAt))
    .limit(input.limit);
  return rows.map(({ m, pendingInvitation }) => ({
    id: m.id,
    to: m.to,
    subject: m.subject,
    text: m.text,
    transport: m.transport,
    sentAt: m.sentAt,
    error: m.error,
    createdAt: m.createdAt,
    canRevealLink: m.sealedText !== null && pendingInvitation !== null,
  }));
}

/**
 * The whole text of a message whose invitation is still pending, decrypted for an admin to pass the
 * link on. The decryption is an audit event.
 */
export async function revealOutboxMessage(database: Database, ring: KeyRing, actor: Actor, input: { id: string }, now = new Date()): Promise<{ text: string }> {
  // Read committed: the invitation is read as it stands when the message is revealed (no change
  // depends on it), and the audit event is written with the reveal.
  return database.transaction((tx) => revealStep(tx, ring, actor, input, now), { isolation: "read committed" });
}

function* revealStep(tx: Tx, ring: KeyRing, actor: Actor, input: { id: string }, now: Date): Steps<{ text: string }> {
  const row = yield* q.get(
    tx
      .select({ m: mailOutbox, i: invitations })
      .from(mailOutbox)
      .leftJoin(invitations, eq(invitations.id, mailOutbox.invitationId))
      .where(eq(mailOutbox.id, input.id)),
  );
  if (!row) throw new AppError("NOT_FOUND", "No such message.");
  const { m, i } = row;
  if (!i) throw new AppError("PRECONDITION_FAILED", "This message has no link to show.");
  if (i.acceptedAt || i.revokedAt || i.expiresAt.getTime() <= now.getTime()) {
    throw new AppError("PRECONDITION_FAILED", "The invitation was used, withdrawn or has expired; its link no longer works. Send a new one.");
  }
  if (!m.sealedText) throw new AppError("PRECONDITION_FAILED", "This link was sent by email and not kept. Send a new invitation if it was lost.");
  const text = decryptSecret(ring, m.sealedText, mailAad(m.id));
  yield* writeAudit(tx, {
    actor,
    action: "outbox.link_revealed",
    targetId: m.id,
    organizationId: i.organizationId,
    after: { purpose: "show an invitation link in the outbox", invitation: i.id, to: m.to },
    at: now,
  });
  return { text };
}

/** Deletes the sealed copies of these invitations' messages (the links no longer work); a transaction step. */
export function* forgetInvitationMail(tx: Tx, invitationIds: readonly string[]): Steps<void> {
  if (!invitationIds.length) return;
  yield* q.run(
    tx
      .update(mailOutbox)
      .set({ sealedText: null })
      .where(and(inArray(mailOutbox.invitationId, [...invitationIds]), isNotNull(mailOutbox.sealedText))),
  );
}
