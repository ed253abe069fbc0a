/**
 * The handover's mail: the customer hears that the report is ready, the engagement's owner that it
 * was acknowledged and the credentials purged. Sent after the change is committed (a mail that
 * fails is kept in the outbox with its error; it never undoes the handover).
 */
import type { Database } from "@/db/database";
import { sendMail, type MailConfig } from "@/server/mail/mailer";
import { getManagedPlatform } from "@/server/platforms";
import { companiesText as companies, countOf } from "@/core/words";
import { reconciliationInWords, type Reconciliation } from "@/core/migration/reconciliation";
import { engagementSubject } from "@/server/mail/subjects";

export type HandoverMailDeps = { mail: MailConfig; appUrl: string };

type EngagementRef = { id: string; reference: string; platformKey: string };

const day = (d: Date) => d.toISOString().slice(0, 10);
const base = (appUrl: string) => appUrl.replace(/\/$/, "");

/** Tells each customer recipient the report is ready, and until when the credentials are kept. */
export async function mailReportReady(
  database: Database,
  deps: HandoverMailDeps,
  params: { engagement: EngagementRef; recipients: readonly { name: string; email: string }[]; reconciliation: Reconciliation; automaticPurgeAt: Date },
): Promise<void> {
  const { engagement: e, reconciliation } = params;
  const platform = getManagedPlatform(e.platformKey)?.name ?? e.platformKey;
  const notMigrated = reconciliation.supplied - reconciliation.verified;
  for (const r of params.recipients) {
    await sendMail(database, deps.mail, {
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
    });
  }
}

/** Tells the engagement's owner the report was acknowledged and what was purged. */
export async function mailAcknowledged(
  database: Database,
  deps: HandoverMailDeps,
  params: { engagement: EngagementRef; owner: { name: string; email: string }; by: string; onBehalf: boolean; purgedItems: number; purgedSecrets: number },
): Promise<void> {
  const { engagement: e } = params;
  await sendMail(database, deps.mail, {
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
  });
}
