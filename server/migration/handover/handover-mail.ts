/**
 * The handover's mail: the customer hears that the report is ready, the engagement's owner that it
 * was acknowledged and the credentials purged. Queued in the change's own transaction (steps); a
 * mail the sender fails to deliver is kept in the outbox with its error, and never undoes the handover.
 */
import type { Steps, Tx } from "@/db/database";
import type { NotifyConfig } from "@/server/engagements/waiting/notify";
import { prepareMail, queueMail } from "@/server/mail/mailer";
import { getManagedPlatform } from "@/server/platforms";
import { companiesText as companies, countOf } from "@/core/words";
import { reconciliationInWords, type Reconciliation } from "@/core/migration/reconciliation";
import { engagementSubject } from "@/server/mail/subjects";

export type HandoverMailDeps = NotifyConfig;

type EngagementRef = { id: string; reference: string; platformKey: string };

const day = (d: Date) => d.toISOString().slice(0, 10);
const base = (appUrl: string) => appUrl.replace(/\/$/, "");

/** Tells each customer recipient the report is ready, and until when the credentials are kept; a transaction step. */
export function* queueReportReadyMail(
  tx: Tx,
  deps: HandoverMailDeps,
  params: { engagement: EngagementRef; recipients: readonly { name: string; email: string }[]; reconciliation: Reconciliation; automaticPurgeAt: Date },
): Steps<void> {
  const { engagement: e, reconciliation } = params;
  const platform = getManagedPlatform(e.platformKey)?.name ?? e.platformKey;
  const notMigrated = reconciliation.supplied - reconciliation.verified;
  for (const r of params.recipients) {
    yield* queueMail(tx, prepareMail(deps.mail, {
      to: r.email,
      subject: engagementSubject(e.reference, "Your handover report is ready"),
      text: [
        `Hello ${r.name},`,
        "",
        `The migration of your ${platform} companies (${e.reference}) is finished and its handover report is ready: ${reconciliationInWords(reconciliation)}.`,
        notMigrated > 0 ? `For the ${companies(notMigrated)} not migrated, the report says why and what to do.` : "Every company was migrated and verified.",
        "",
        "Read it, download it as CSV and acknowledge it in the portal:",
        `${base(deps.appUrl)}/portal/engagements/${e.id}`,
        "",
        `When you acknowledge the report, Ferry deletes the tokens and the OAuth client secret you gave it. Otherwise they are deleted automatically on ${day(params.automaticPurgeAt)} (UTC).`,
      ].join("\n"),
    }));
  }
}

/** Tells the engagement's owner the report was acknowledged and what was purged; a transaction step. */
export function* queueAcknowledgedMail(
  tx: Tx,
  deps: HandoverMailDeps,
  params: { engagement: EngagementRef; owner: { name: string; email: string }; by: string; onBehalf: boolean; purgedItems: number; purgedSecrets: number },
): Steps<void> {
  const { engagement: e } = params;
  yield* queueMail(tx, prepareMail(deps.mail, {
    to: params.owner.email,
    subject: engagementSubject(e.reference, "Handover report acknowledged"),
    text: [
      `Hello ${params.owner.name},`,
      "",
      params.onBehalf
        ? `${params.by} recorded the customer's acknowledgement of the handover report of ${e.reference}.`
        : `${params.by} acknowledged the handover report of ${e.reference}.`,
      `The credentials were purged: the tokens of ${companies(params.purgedItems)} and ${countOf(params.purgedSecrets, "OAuth client secret", "OAuth client secrets")} deleted. Step 6 is done and the engagement is completed.`,
      "",
      `${base(deps.appUrl)}/engagements/${e.id}`,
    ].join("\n"),
  }));
}
