/**
 * Mail after a change that waits on the other side: the operation's own notice (a submission to
 * review, a note from support, a proposed window…) and, when the move changed hands, what the
 * party that now has it is to do. Queued in the change's own transaction (a step), so it commits
 * with the change or not at all; the worker's sender delivers it (server/mail/sender.ts). Never
 * carries a secret: notices are built from names, references, counts and notes.
 */
import type { Steps, Tx } from "@/db/database";
import { prepareMail, queueMail, type MailConfig } from "@/server/mail/mailer";
import { getManagedPlatform } from "@/server/platforms";
import type { WaitingParty } from "@/core/engagements/flow-states";
import { findRecipients, type EngagementRecipients } from "./recipients-repository";
import type { WaitingChange } from "./refresh-waiting";
import { engagementSubject } from "@/server/mail/subjects";

/** What an operation tells the other side. */
export type FlowNotice = { to: WaitingParty; subject: string; text: string };

/** What the engagements' mail is written with: the app's address for its links, and the mail settings (the app config is one). */
export type NotifyConfig = { appUrl: string; mail: MailConfig };

function linkFor(appUrl: string, party: WaitingParty, engagementId: string): string {
  const base = appUrl.replace(/\/$/, "");
  return party === "customer" ? `${base}/portal/engagements/${engagementId}` : `${base}/engagements/${engagementId}`;
}

function addressees(r: EngagementRecipients, party: WaitingParty): string[] {
  return party === "customer" ? r.customers.map((c) => c.email) : [r.owner.email];
}

/**
 * Queues the notice (if any) and, when the move changed hands, tells the new party what is next —
 * in the same message when the notice already goes to them. A transaction step: call it in the
 * change's own transaction, after the change, with the notice and waiting change it made.
 */
export function* queueNotice(
  tx: Tx,
  config: NotifyConfig,
  params: { engagementId: string; notice?: FlowNotice | null; waiting?: WaitingChange | null },
): Steps<void> {
  const { notice, waiting } = params;
  if (!notice && !waiting) return;
  const r = yield* findRecipients(tx, params.engagementId);
  if (!r) return;
  const platform = getManagedPlatform(r.platformKey)?.name ?? r.platformKey;
  const heading = `${r.reference} · ${r.organizationName} · ${platform}`;
  const messages: { party: WaitingParty; subject: string; body: string }[] = [];
  if (notice) {
    const next = waiting?.party === notice.to ? `\n\nWhat is next for you: ${waiting.next}` : "";
    messages.push({ party: notice.to, subject: notice.subject, body: `${notice.text}${next}` });
  }
  if (waiting && waiting.party !== notice?.to) {
    messages.push({ party: waiting.party, subject: "It is your move", body: `The engagement now waits on you.\n\nWhat is next for you: ${waiting.next}` });
  }
  for (const m of messages) {
    const text = `${heading}\n\n${m.body}\n\nOpen it in Ferry: ${linkFor(config.appUrl, m.party, params.engagementId)}\n`;
    for (const to of addressees(r, m.party)) {
      // No secrets: made here, inside the body (see prepareMail).
      yield* queueMail(tx, prepareMail(config.mail, { to, subject: engagementSubject(r.reference, m.subject), text }));
    }
  }
}

/**
 * Queues the mail a flow's result asks for, in the flow's transaction, and hands the result on:
 * `return yield* withNotice(tx, deps.notify, eng.id, { …, waiting, notice })`.
 */
export function* withNotice<R extends { waiting?: WaitingChange | null; notice?: FlowNotice | null }>(tx: Tx, config: NotifyConfig, engagementId: string, result: R): Steps<R> {
  yield* queueNotice(tx, config, { engagementId, notice: result.notice, waiting: result.waiting });
  return result;
}

/** What a flow that mails is given: how to write its mail. */
export type NotifyDeps = { notify: NotifyConfig };
