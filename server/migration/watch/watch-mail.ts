/**
 * The watch's mail, to the customer's people and the engagement's owner alike: connections that
 * dropped after their migration (with each company's reconnect link), and the final report when
 * the watch ends. Queued in the check's own transaction (steps), so what the check found and the
 * mail about it commit together; a mail the sender fails to deliver stays in the outbox with its
 * error and never undoes what the check found.
 */
import type { Steps, Tx } from "@/db/database";
import { companiesText, countOf, daysText, plural } from "@/core/words";
import { findRecipients } from "@/server/engagements/waiting/recipients-repository";
import { prepareMail, queueMail } from "@/server/mail/mailer";
import { getManagedPlatform } from "@/server/platforms";
import { engagementSubject } from "@/server/mail/subjects";

import type { NotifyConfig } from "@/server/engagements/waiting/notify";
import { reconnectLinkUrl } from "./reconnect-link";
import { tenantWords } from "@/core/migration/link-url";

export type WatchMailDeps = NotifyConfig;

/** Everyone on the engagement: the organisation's people and contacts, and its owner. */
function* everyone(tx: Tx, engagementId: string) {
  const r = yield* findRecipients(tx, engagementId);
  if (!r) return null;
  const seen = new Set<string>();
  const to = [...r.customers.map((c) => ({ ...c, portal: true })), { ...r.owner, portal: false }].filter((p) => !seen.has(p.email) && seen.add(p.email));
  return { r, to, platform: getManagedPlatform(r.platformKey)?.name ?? r.platformKey };
}

const pageOf = (appUrl: string, engagementId: string, portal: boolean) =>
  `${appUrl.replace(/\/$/, "")}/${portal ? "portal/" : ""}engagements/${engagementId}`;

/** Tells everyone which migrated connections dropped, and where each company's end customer reconnects it; a transaction step. */
export function* queueDropsMail(
  tx: Tx,
  deps: WatchMailDeps,
  params: { engagementId: string; dropped: readonly { itemId: string; name: string; reason: string }[] },
): Steps<void> {
  if (!params.dropped.length) return;
  const who = yield* everyone(tx, params.engagementId);
  if (!who) return;
  const ring = deps.mail.keyRing;
  const lines = params.dropped.map((d) => `- ${d.name}: ${d.reason}\n  Reconnect link: ${ring ? reconnectLinkUrl({ appUrl: deps.appUrl, ring }, d.itemId) : "(on the engagement page)"}`);
  for (const p of who.to) {
    yield* queueMail(tx, prepareMail(deps.mail, {
      to: p.email,
      subject: engagementSubject(who.r.reference, plural(params.dropped.length, { one: "A migrated connection dropped", other: `${params.dropped.length} migrated connections dropped` })),
      text: [
        `Hello ${p.name},`,
        "",
        `The daily check of ${who.r.reference} (${who.platform}) found ${companiesText(params.dropped.length)} no longer connected: the platform stopped accepting ${plural(params.dropped.length, { one: "its access, in its", other: "their access, in their" })} words below.`,
        "Only each company's end customer can connect it again: send them the reconnect link. Ferry notices when they do, syncs and verifies the company again.",
        "",
        ...lines,
        "",
        `Open it in Ferry: ${pageOf(deps.appUrl, params.engagementId, p.portal)}`,
      ].join("\n"),
    }));
  }
}

/** The watch's final report, to everyone; a transaction step. */
export function* queueWatchEndedMail(
  tx: Tx,
  deps: WatchMailDeps,
  params: {
    engagementId: string;
    days: number;
    checks: number;
    requests: number;
    drops: number;
    reconnections: number;
    verified: number;
    pending: readonly { name: string; companyId: string | null }[];
    /** A file of fresh tokens still awaiting review, deleted unused as the watch ended. */
    expired: { fileName: string; companies: number } | null;
  },
): Steps<void> {
  const who = yield* everyone(tx, params.engagementId);
  if (!who) return;
  for (const p of who.to) {
    yield* queueMail(tx, prepareMail(deps.mail, {
      to: p.email,
      subject: engagementSubject(who.r.reference, "The hypercare watch has ended"),
      text: [
        `Hello ${p.name},`,
        "",
        `Ferry watched the migrated ${who.platform} connections of ${who.r.reference} for ${daysText(params.days)} after the handover (${countOf(params.checks, "check", "checks")}, ${countOf(params.requests, "request", "requests")} to the service).`,
        `${companiesText(params.verified)} verified and connected; ${countOf(params.drops, "drop", "drops")} found; ${countOf(params.reconnections, "reconnection", "reconnections")}.`,
        params.pending.length
          ? `${companiesText(params.pending.length)} still ${plural(params.pending.length, { one: "waits for its end customer; Ferry no longer watches it, and its reconnect link has closed", other: "wait for their end customers; Ferry no longer watches them, and their reconnect links have closed" })}:\n${params.pending.map((c) => `- ${c.name}${c.companyId ? ` (company ${c.companyId} on the service)` : ""}`).join("\n")}`
          : "No company waits for its end customer.",
        ...(params.expired
          ? [
              "",
              `The fresh tokens sent in ${params.expired.fileName} (${companiesText(params.expired.companies)}) were still awaiting review when the watch ended, so they were deleted unused.`,
            ]
          : []),
        "",
        `Open it in Ferry: ${pageOf(deps.appUrl, params.engagementId, p.portal)}`,
      ].join("\n"),
    }));
  }
}

/** Tells everyone which waiting companies were reconnected to a different platform company, and what to do; a transaction step. */
export function* queueWrongCompanyMail(
  tx: Tx,
  deps: WatchMailDeps,
  params: { engagementId: string; companies: readonly { itemId: string; name: string; expected: Record<string, string>; found: Record<string, string> }[] },
): Steps<void> {
  if (!params.companies.length) return;
  const who = yield* everyone(tx, params.engagementId);
  if (!who) return;
  const ring = deps.mail.keyRing;
  const lines = params.companies.map(
    (c) =>
      `- ${c.name}: reconnected to ${tenantWords(c.found)}, but the migrated company is ${tenantWords(c.expected)}.\n  Reconnect link: ${ring ? reconnectLinkUrl({ appUrl: deps.appUrl, ring }, c.itemId) : "(on the engagement page)"}`,
  );
  for (const p of who.to) {
    yield* queueMail(tx, prepareMail(deps.mail, {
      to: p.email,
      subject: engagementSubject(who.r.reference, plural(params.companies.length, { one: "A company was reconnected to a different company", other: `${params.companies.length} companies were reconnected to a different company` })),
      text: [
        `Hello ${p.name},`,
        "",
        `${companiesText(params.companies.length)} of ${who.r.reference} (${who.platform}) ${plural(params.companies.length, { one: "was", other: "were" })} reconnected through the reconnect link, but to a different ${who.platform} company than the one migrated: whoever was signed in to ${who.platform} in that browser authorized.`,
        `Ferry did not count ${plural(params.companies.length, { one: "it", other: "them" })} as reconnected and unlinked that connection, so nothing of the other company is read.`,
        `Ask each end customer to open the same link again, signed in to the company that was migrated:`,
        "",
        ...lines,
        "",
        `Open it in Ferry: ${pageOf(deps.appUrl, params.engagementId, p.portal)}`,
      ].join("\n"),
    }));
  }
}
