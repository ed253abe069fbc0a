/** The engagement's audit timeline, newest first, in words. */
import type { Db } from "@/db/client";
import type { Actor } from "@/core/accounts/actor";
import { listAuditEvents } from "@/server/security/audit";
import { assertCanView } from "./access";
import type { TimelineEntry } from "@/core/engagements/schemas";
import { describeAuditEvent } from "./timeline";

/** The engagement's audit events, newest first (at most `limit`). */
export function getEngagementTimeline(db: Db, actor: Actor, engagementId: string, limit = 200): TimelineEntry[] {
  assertCanView(db, actor, engagementId);
  return listAuditEvents(db, { engagementId, limit }).map((ev) => ({
    id: ev.id,
    at: ev.at,
    actor: ev.actorLabel,
    action: ev.action,
    summary: describeAuditEvent(ev),
    before: ev.before ?? null,
    after: ev.after ?? null,
  }));
}
