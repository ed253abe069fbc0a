/**
 * The watch reacting to a connection event (webhooks, issue 31): within the worker's next look at
 * its inbox instead of at the next daily listing. An event never moves a company backwards:
 *
 * - one older (by the service's `generatedDate`) than the last one applied to the company is stale
 *   and changes nothing — a late `disconnected` after a `reconnected` does not undo it;
 * - one that agrees with what Ferry holds (a migrated company Linked, a waiting one not) only
 *   moves the company's event time on;
 * - one that disagrees is checked against the connection's current status (one GET of the
 *   company), and what that shows is applied by the watch's own rules (watch-rules.ts
 *   decideWatch, watcher.ts applyFindings): so an event that raced another, or that the daily
 *   listing already applied, changes nothing unless the service says so now.
 *
 * What it changes is written as a check's findings are: the engagement's row locked, then the
 * watch's, companies changed only from the state they were read in, audited, the mail queued in the
 * same transaction. The daily listing stays as the reconciliation (events can be disabled or missed).
 */
import { readSteps, type Database } from "@/db/database";
import { loadForChange } from "@/server/engagements/engagement-repository";
import { queueNotice, type NotifyConfig } from "@/server/engagements/waiting/notify";
import { refreshWaiting } from "@/server/engagements/waiting/refresh-waiting";
import { ServiceError, type ServiceClient } from "@/server/service-client";
import { findEngagement } from "@/server/engagements/engagement-repository";
import { queueDropsMail, queueWrongCompanyMail } from "./watch-mail";
import { advanceConnectionEvent, countEventFindings, findWatch, lockWatch, watchedItemOfCompany } from "./watch-repository";
import { decideWatch, type ListedCompany, type WatchedItem } from "./watch-rules";
import { applyFindings, toListed, unlinkWrongTenants } from "./watcher";

/** What a connection event says of the connection: Linked, or not (disconnected, failed). */
export type ImpliedStatus = "linked" | "not_linked";

/** The status a connection event implies, or null for events the watch does not act on. */
export function impliedStatus(eventType: string): ImpliedStatus | null {
  if (eventType === "connection.connected" || eventType === "connection.reconnected") return "linked";
  if (eventType === "connection.disconnected" || eventType === "connection.failed") return "not_linked";
  return null;
}

export type EventReaction = "not_watched" | "unknown_company" | "stale" | "agrees" | "unchanged" | "changed";

const READ_COMMITTED = { isolation: "read committed" } as const;

/** Applies one connection event to the watch (see the module comment); `client` opens the engagement's service client when a GET is needed. */
export async function reactToConnectionEvent(
  deps: { database: Database; notify: NotifyConfig | null },
  p: { engagementId: string; companyId: string; implied: ImpliedStatus; generatedAt: Date; client: () => Promise<ServiceClient> },
): Promise<{ reaction: EventReaction; requests: number }> {
  const { database } = deps;
  const { engagementId } = p;
  const { watch, item, engagement } = await readSteps(database, function* (tx) {
    return { watch: yield* findWatch(tx, engagementId), item: yield* watchedItemOfCompany(tx, engagementId, p.companyId), engagement: yield* findEngagement(tx, engagementId) };
  });
  if (!item || !engagement) return { reaction: "unknown_company", requests: 0 };
  if (item.connectionEventAt && item.connectionEventAt.getTime() >= p.generatedAt.getTime()) return { reaction: "stale", requests: 0 };
  const watched = item.state === "verified" || item.state === "reconnect_pending";
  const held: ImpliedStatus | null = item.state === "verified" ? "linked" : item.state === "reconnect_pending" ? "not_linked" : null;
  if (!watch || watch.status !== "watching" || !watched || held === p.implied) {
    await database.transaction((tx) => advanceConnectionEvent(tx, { itemId: item.id, at: p.generatedAt }), READ_COMMITTED);
    return { reaction: !watch || watch.status !== "watching" || !watched ? "not_watched" : "agrees", requests: 0 };
  }
  // They disagree: what the service holds now decides.
  const watchedItem = item as WatchedItem & { connectionEventAt: Date | null };
  const listed = new Map<string, ListedCompany>();
  try {
    const { data } = await (await p.client()).getCompany({ companyId: p.companyId });
    listed.set(data.id, toListed(data));
  } catch (error) {
    if (!(error instanceof ServiceError && error.status === 404)) throw error;
  }
  const findings = decideWatch([watchedItem], listed, engagement.platformKey);
  // The company missing from the service is the daily listing's to report, as today.
  findings.missing = [];
  const changed = await database.transaction(function* (tx) {
    const { eng } = yield* loadForChange(tx, engagementId);
    const locked = yield* lockWatch(tx, engagementId);
    if (!locked || locked.status !== "watching") return null;
    // Another event (or a check) may have moved it meanwhile: forward only.
    if (!(yield* advanceConnectionEvent(tx, { itemId: item.id, at: p.generatedAt }))) return null;
    const at = new Date();
    const applied = yield* applyFindings(tx, { engagementId, organizationId: eng.organizationId, platformKey: engagement.platformKey, findings, items: [watchedItem], at });
    yield* countEventFindings(tx, { engagementId, drops: applied.dropped.length, reconnections: applied.reconnected.length });
    const waiting = yield* refreshWaiting(tx, engagementId, at, eng);
    if (deps.notify) {
      yield* queueDropsMail(tx, deps.notify, { engagementId, dropped: applied.dropped });
      yield* queueWrongCompanyMail(tx, deps.notify, { engagementId, companies: applied.wrongTenant.filter((w) => w.newlyFound) });
      yield* queueNotice(tx, deps.notify, { engagementId, waiting });
    }
    return { changed: applied.dropped.length + applied.reconnected.length + applied.wrongTenant.filter((w) => w.newlyFound).length > 0, wrongTenant: applied.wrongTenant };
  }, READ_COMMITTED);
  const unlinked = changed ? await unlinkWrongTenants(await p.client(), changed.wrongTenant) : 0;
  return { reaction: changed && changed.changed ? "changed" : "unchanged", requests: 1 + unlinked };
}
