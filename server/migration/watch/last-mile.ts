/**
 * The last mile as both sides see and steer it: the companies waiting for their end customers with
 * their reconnect links (on the page, and as a CSV to send on), the watch's state, and support's two
 * controls — how many days of hypercare, and a check now.
 */
import { runSync } from "@/db/database";
import { stringify } from "csv-stringify/sync";
import { asc, count, eq, isNotNull } from "drizzle-orm";
import type { Db } from "@/db/client";
import { engagements, migrationItems } from "@/db/schema";
import { isStaff } from "@/core/accounts/roles";
import type { Actor } from "@/core/accounts/actor";
import type { LastMileView, ReconnectRowView } from "@/core/migration/last-mile-schemas";
import { assertOrganization, refuse } from "@/server/engagements/access";
import { loadForChange } from "@/server/engagements/engagement-repository";
import { AppError } from "@/server/errors";
import { realItems } from "@/server/items/item-scope";
import { neutraliseSpreadsheetCell } from "@/server/intake/spreadsheet-cell";
import { recordAudit } from "@/server/security/audit";
import { limitsOfTarget } from "@/server/targets/limits";
import { findServiceTarget } from "@/server/targets/targets";
import type { Refusal } from "@/server/engagements/checklist";
import { latestBulkRun } from "../bulk/bulk-repository";
import { readFailure } from "../engine/stored-failure";
import { DAY_MS, dailyBudget } from "./watch-rules";
import { findWatch, makeWatchDue, moveHypercareEnd } from "./watch-repository";

/** Rows of waiting companies on the page (the CSV holds them all). */
const PENDING_ON_PAGE = 50;

const pendingColumns = {
  id: migrationItems.id,
  name: migrationItems.name,
  externalRef: migrationItems.externalRef,
  companyId: migrationItems.companyId,
  linkUrl: migrationItems.linkUrl,
  since: migrationItems.reconnectSince,
  droppedAt: migrationItems.droppedAt,
  outcomeReason: migrationItems.outcomeReason,
  lastError: migrationItems.lastError,
};

function pendingRows(db: Db, engagementId: string, limit?: number): ReconnectRowView[] {
  const q = db.select(pendingColumns).from(migrationItems).where(realItems(engagementId, eq(migrationItems.state, "reconnect_pending"))).orderBy(asc(migrationItems.position));
  return (limit ? q.limit(limit) : q).all().map((r) => ({
    itemId: r.id,
    name: r.name,
    externalRef: r.externalRef,
    companyId: r.companyId,
    linkUrl: r.linkUrl,
    since: r.since,
    reason: r.outcomeReason ?? readFailure(r.lastError)?.error ?? null,
    dropped: r.droppedAt !== null,
  }));
}

const refused = (reason: string): Refusal => ({ ok: false, code: "PRECONDITION_FAILED", reason });

/** Why the viewer cannot ask for a check now, or null. */
function checkNowRefusal(actor: Actor, watching: boolean): Refusal | null {
  if (!isStaff(actor.role)) return { ok: false, code: "FORBIDDEN", reason: "Support staff ask for checks." };
  if (!watching) return refused("Nothing is watched: the watch starts when the bulk run hands companies to their end customers, or at the handover.");
  return null;
}

/** Why the viewer cannot change the hypercare days, or null. */
function daysRefusal(actor: Actor, status: string, watchEnded: boolean): Refusal | null {
  if (!isStaff(actor.role)) return { ok: false, code: "FORBIDDEN", reason: "Support staff set the hypercare days." };
  if (status === "cancelled") return refused("The engagement is cancelled.");
  if (watchEnded) return refused("The hypercare watch has ended.");
  return null;
}

const allowedOf = (r: Refusal | null) => ({ allowed: r === null, reason: r && !r.ok ? r.reason : null });

/** The last mile of an engagement, as the viewer may see it. */
export function getLastMile(db: Db, actor: Actor, engagementId: string): LastMileView {
  const { eng } = runSync(loadForChange(db, engagementId));
  assertOrganization(actor, eng.organizationId);
  const watch = runSync(findWatch(db, eng.id)) ?? null;
  const days = db.select({ d: engagements.hypercareDays }).from(engagements).where(eq(engagements.id, eng.id)).get()?.d ?? 7;
  const pendingTotal = db.select({ n: count() }).from(migrationItems).where(realItems(eng.id, eq(migrationItems.state, "reconnect_pending"))).get()?.n ?? 0;
  const reconnected =
    db.select({ n: count() }).from(migrationItems).where(realItems(eng.id, eq(migrationItems.state, "verified"), isNotNull(migrationItems.reconnectedAt))).get()?.n ?? 0;
  let budget: number | null = null;
  const run = runSync(latestBulkRun(db, eng.id));
  const target = run?.serviceTargetId ? runSync(findServiceTarget(db, run.serviceTargetId)) : undefined;
  if (target) {
    const rule = limitsOfTarget(target);
    if (rule.kind === "service") {
      const verified = db.select({ n: count() }).from(migrationItems).where(realItems(eng.id, eq(migrationItems.state, "verified"))).get()?.n ?? 0;
      budget = dailyBudget(rule.limits.dailyQuota.base + rule.limits.dailyQuota.perConnectedCompany * verified);
    }
  }
  const failure = watch?.lastFailure as { status?: number | null; error?: string; correlationId?: string | null } | null | undefined;
  return {
    hypercareDays: days,
    watch: watch
      ? {
          status: watch.status,
          startedAt: watch.startedAt,
          lastCheckAt: watch.lastCheckAt,
          nextCheckAt: watch.status === "watching" && watch.nextCheckAt.getTime() > 0 ? watch.nextCheckAt : null,
          hypercareEndsAt: watch.hypercareEndsAt,
          checks: watch.checks,
          requests: watch.requests,
          requestsToday: watch.requestsToday,
          dailyBudget: budget,
          drops: watch.drops,
          reconnections: watch.reconnections,
          lastFailure: failure?.error ? { status: failure.status ?? null, error: failure.error, correlationId: failure.correlationId ?? null } : null,
          endedAt: watch.endedAt,
        }
      : null,
    pending: pendingRows(db, eng.id, PENDING_ON_PAGE),
    pendingTotal,
    reconnected,
    controls: {
      checkNow: allowedOf(checkNowRefusal(actor, watch?.status === "watching")),
      setHypercareDays: allowedOf(daysRefusal(actor, eng.status, watch?.status === "ended")),
    },
  };
}

/** Support asks for a check now: the next worker that looks takes it. */
export function checkWatchNow(db: Db, actor: Actor, input: { engagementId: string }): void {
  db.transaction((tx) => {
    const { eng } = runSync(loadForChange(tx, input.engagementId));
    const watch = runSync(findWatch(tx, eng.id));
    const r = checkNowRefusal(actor, watch?.status === "watching");
    if (r) refuse(r);
    runSync(makeWatchDue(tx, eng.id));
  });
}

/** Support sets how many days the hypercare watch lasts; a watch already counting moves its end by the difference. */
export function setHypercareDays(db: Db, actor: Actor, input: { engagementId: string; days: number }): void {
  db.transaction((tx) => {
    const { eng } = runSync(loadForChange(tx, input.engagementId));
    const watch = runSync(findWatch(tx, eng.id));
    const r = daysRefusal(actor, eng.status, watch?.status === "ended");
    if (r) refuse(r);
    const before = tx.select({ d: engagements.hypercareDays }).from(engagements).where(eq(engagements.id, eng.id)).get()?.d ?? 7;
    if (before === input.days) return;
    const at = new Date();
    tx.update(engagements).set({ hypercareDays: input.days, updatedAt: at }).where(eq(engagements.id, eng.id)).run();
    if (watch?.hypercareEndsAt) runSync(moveHypercareEnd(tx, { engagementId: eng.id, endsAt: new Date(watch.hypercareEndsAt.getTime() + (input.days - before) * DAY_MS) }));
    recordAudit(tx, { actor, action: "watch.hypercare_days_changed", targetId: eng.id, engagementId: eng.id, organizationId: eng.organizationId, before: { days: before }, after: { days: input.days }, at });
  });
}

/** The waiting companies as CSV, for the customer to send each end customer its link (every cell neutralised for spreadsheets). */
export function reconnectLinksCsv(db: Db, actor: Actor, engagementId: string): { fileName: string; body: string } {
  const { eng } = runSync(loadForChange(db, engagementId));
  assertOrganization(actor, eng.organizationId);
  const rows = pendingRows(db, eng.id);
  if (!rows.length) throw new AppError("PRECONDITION_FAILED", "No company waits for its end customer to reconnect.");
  const records = rows.map((r) =>
    [r.name, r.externalRef ?? "", r.linkUrl ?? "", r.companyId ?? "", r.since ? r.since.toISOString() : "", r.dropped ? "Dropped after its migration" : "Failed on its tokens", r.reason ?? ""].map(
      neutraliseSpreadsheetCell,
    ),
  );
  const body = stringify([["Company name", "External reference", "Reconnect link", "Company ID", "Waiting since (UTC)", "Why", "The platform's words"], ...records], {
    bom: true,
    record_delimiter: "windows",
  });
  return { fileName: `${eng.reference.replace(/[^A-Za-z0-9-]/g, "_")}-reconnect-links.csv`, body };
}
