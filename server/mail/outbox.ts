/**
 * The outbox as admins see it. Stored text never holds a one-time link (server/mail/mailer.ts);
 * in the embedded default (no SMTP) an invitation's whole message is kept encrypted, and an admin
 * may reveal it — audited — while the invitation is pending, to pass the link on. Once the
 * invitation is accepted, withdrawn or replaced, the sealed copy is deleted. Each message shows
 * where it stands as the worker's sender left it (server/mail/sender.ts): delivered, still sending
 * (queued, or retried after a failed attempt: the attempts, the last error and the next try
 * shown), or not delivered (the sender gave up).
 */
import { and, count, desc, eq, gt, inArray, isNotNull, isNull, or, sql, type SQL } from "drizzle-orm";
import { q, type Database, type Steps, type Tx } from "@/db/database";
import { invitations, mailOutbox } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { Actor } from "@/core/accounts/actor";
import { writeAudit } from "@/server/security/audit";
import { decryptSecret, type KeyRing } from "@/server/security/secrets";
import { mailAad } from "./mailer";
import type { OutboxMessage, OutboxPage, OutboxStatus } from "@/core/mail/schemas";

/** Outgoing mail, newest first, links hidden. */
export async function listOutbox(database: Database, input: { limit: number }, now = new Date()): Promise<OutboxMessage[]> {
  return (await readMessages(database, { where: undefined, limit: input.limit, offset: 0 }, now)).map(toMessage);
}

/** A LIKE pattern that matches `text` literally anywhere (its % and _ escaped). */
function contains(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Where a message stands, as a condition. */
function statusCondition(status: OutboxStatus): SQL | undefined {
  switch (status) {
    case "delivered":
      return isNotNull(mailOutbox.sentAt);
    case "failed":
      return isNotNull(mailOutbox.failedAt);
    case "sending":
      return and(isNull(mailOutbox.sentAt), isNull(mailOutbox.failedAt));
    default: {
      const never: never = status;
      return never;
    }
  }
}

/**
 * A page of the outbox, newest first: searched in the recipient, subject and text (a reference
 * such as FER-1001 finds every message about that engagement), filtered by where each stands.
 */
export async function searchOutbox(
  database: Database,
  input: { search?: string; status?: OutboxStatus; page: number; pageSize: number },
  now = new Date(),
): Promise<OutboxPage> {
  const search = input.search?.trim();
  const pattern = search ? contains(search) : null;
  const where = and(
    pattern
      ? or(
          sql`lower(${mailOutbox.to}) like ${pattern} escape '\\'`,
          sql`lower(${mailOutbox.subject}) like ${pattern} escape '\\'`,
          sql`lower(${mailOutbox.text}) like ${pattern} escape '\\'`,
        )
      : undefined,
    input.status ? statusCondition(input.status) : undefined,
  );
  const [total] = await database.db.select({ n: count() }).from(mailOutbox).where(where);
  const rows = await readMessages(database, { where, limit: input.pageSize, offset: (input.page - 1) * input.pageSize }, now);
  return { messages: rows.map(toMessage), total: total?.n ?? 0, page: input.page, pageSize: input.pageSize };
}

function readMessages(database: Database, params: { where: SQL | undefined; limit: number; offset: number }, now: Date) {
  return database.db
    .select({ m: mailOutbox, pendingInvitation: invitations.id })
    .from(mailOutbox)
    .leftJoin(
      invitations,
      and(eq(invitations.id, mailOutbox.invitationId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)),
    )
    .where(params.where)
    .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
    .limit(params.limit)
    .offset(params.offset);
}

/** Where a message stands, from its row. */
function statusOf(m: { sentAt: Date | null; failedAt: Date | null }): OutboxStatus {
  if (m.sentAt) return "delivered";
  if (m.failedAt) return "failed";
  return "sending";
}

function toMessage({ m, pendingInvitation }: Awaited<ReturnType<typeof readMessages>>[number]): OutboxMessage {
  return {
    id: m.id,
    to: m.to,
    subject: m.subject,
    text: m.text,
    transport: m.transport,
    status: statusOf(m),
    sentAt: m.sentAt,
    error: m.error,
    attempts: m.attempts,
    nextAttemptAt: m.sentAt || m.failedAt ? null : m.nextAttemptAt,
    createdAt: m.createdAt,
    // Kept sealed for SMTP only until it is sent: the link is the invitee's, by email.
    canRevealLink: m.sealedText !== null && m.transport === "outbox" && pendingInvitation !== null,
  };
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
  if (!m.sealedText || m.transport !== "outbox") throw new AppError("PRECONDITION_FAILED", "This link was sent by email and not kept. Send a new invitation if it was lost.");
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

/** The invitation link in a revealed message's text. */
const INVITE_LINK = /https?:\/\/\S+\/invite\/[A-Za-z0-9_-]+/;

/**
 * A pending invitation's link, read from its newest sealed message in the embedded outbox, for an admin to copy from the
 * invitations list (audited as a reveal, as the outbox's "Show invitation link" is).
 */
export async function revealInvitationLink(database: Database, ring: KeyRing, actor: Actor, input: { invitationId: string }, now = new Date()): Promise<{ link: string }> {
  const [message] = await database.db
    .select({ id: mailOutbox.id })
    .from(mailOutbox)
    .where(and(eq(mailOutbox.invitationId, input.invitationId), isNotNull(mailOutbox.sealedText), eq(mailOutbox.transport, "outbox")))
    .orderBy(desc(mailOutbox.createdAt))
    .limit(1);
  if (!message) {
    const [invitation] = await database.db.select({ id: invitations.id }).from(invitations).where(eq(invitations.id, input.invitationId));
    if (!invitation) throw new AppError("NOT_FOUND", "No such invitation.");
    throw new AppError("PRECONDITION_FAILED", "This invitation's link is not kept: it went out by email, or the invitation was used, withdrawn or has expired. Send a new one if it was lost.");
  }
  const { text } = await revealOutboxMessage(database, ring, actor, { id: message.id }, now);
  const link = text.match(INVITE_LINK)?.[0];
  if (!link) throw new AppError("PRECONDITION_FAILED", "The invitation's message holds no link. Send a new invitation.");
  return { link };
}
