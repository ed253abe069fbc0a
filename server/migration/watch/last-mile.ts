/**
 * The last mile as both sides see and steer it: the companies waiting for their end customers with
 * their reconnect links (on the page, and as a CSV to send on), the watch's state, and support's two
 * controls — how many days of hypercare, and a check now. Support's controls lock the engagement's
 * row (loadForChange) and decide on the watch as it is then, in one read-committed transaction: a
 * worker writing a check locks the same row first, so the two queue rather than interleave.
 */
import { stringify } from "csv-stringify/sync";
import { asc, count, eq, isNotNull, max, type SQL } from "drizzle-orm";
import { q, readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { engagements, migrationItems, watches } from "@/db/schema";
import { isStaff } from "@/core/accounts/roles";
import type { Actor } from "@/core/accounts/actor";
import type { LastMileView, ReconnectRowView } from "@/core/migration/last-mile-schemas";
import { assertOrganization, refuse } from "@/server/engagements/access";
import { findEngagement, loadForChange, type EngagementRow } from "@/server/engagements/engagement-repository";
import { AppError } from "@/server/errors";
import { realItems } from "@/server/items/item-scope";
import { neutraliseSpreadsheetCell } from "@/server/intake/spreadsheet-cell";
import { writeAudit } from "@/server/security/audit";
import { limitsOfTarget } from "@/server/targets/limits";
import { findServiceTarget } from "@/server/targets/targets";
import type { Refusal } from "@/server/engagements/checklist";
import { countUnseenDrops } from "@/server/engagements/waiting/waiting-input";
import { withNotice, type NotifyDeps } from "@/server/engagements/waiting/notify";
import { refreshWaiting, type WaitingChange } from "@/server/engagements/waiting/refresh-waiting";
import { latestBulkRun } from "../bulk/bulk-repository";
import { readFailure } from "../engine/stored-failure";
import { linkOpenTallies } from "./open-reconnect-link";
import { reconnectLinkUrl, type ReconnectLinks } from "./reconnect-link";
import { DAY_MS, dailyBudget } from "./watch-rules";
import { findWatch, makeWatchDue, moveHypercareEnd } from "./watch-repository";

/** Rows of waiting companies on the page (the CSV holds them all). */
const PENDING_ON_PAGE = 50;

const pendingColumns = {
  id: migrationItems.id,
  name: migrationItems.name,
  externalRef: migrationItems.externalRef,
  companyId: migrationItems.companyId,
  since: migrationItems.reconnectSince,
  droppedAt: migrationItems.droppedAt,
  outcomeReason: migrationItems.outcomeReason,
  lastError: migrationItems.lastError,
};

/** The companies waiting for their end customers, in file order (the first `limit`, or all), each with its reconnect link and its opens. */
function* pendingRows(tx: Tx, links: ReconnectLinks, engagementId: string, limit?: number): Steps<ReconnectRowView[]> {
  const query = tx.select(pendingColumns).from(migrationItems).where(realItems(engagementId, eq(migrationItems.state, "reconnect_pending"))).orderBy(asc(migrationItems.position));
  const rows = yield* q.all(limit ? query.limit(limit) : query);
  const opens = yield* linkOpenTallies(
    tx,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    itemId: r.id,
    name: r.name,
    externalRef: r.externalRef,
    companyId: r.companyId,
    linkUrl: r.companyId ? reconnectLinkUrl(links, r.id) : null,
    linkOpens: opens.get(r.id)?.opens ?? 0,
    linkLastOpenedAt: opens.get(r.id)?.lastOpenedAt ?? null,
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

/** The engagement for the viewer (read, not locked): NOT_FOUND for an unknown one and for another organisation's. */
function* viewedEngagement(tx: Tx, actor: Actor, engagementId: string): Steps<EngagementRow> {
  const eng = yield* findEngagement(tx, engagementId);
  if (!eng) throw new AppError("NOT_FOUND", "No engagement with that id.");
  assertOrganization(actor, eng.organizationId);
  return eng;
}

/** A count of the engagement's real companies matching `where` (a number on both databases: drizzle's count() maps PostgreSQL's bigint). */
function* countReal(tx: Tx, engagementId: string, ...where: SQL[]): Steps<number> {
  return (yield* q.get(tx.select({ n: count() }).from(migrationItems).where(realItems(engagementId, ...where))))?.n ?? 0;
}

/** The last mile of an engagement, as the viewer may see it. */
export async function getLastMile(database: Database, links: ReconnectLinks, actor: Actor, engagementId: string): Promise<LastMileView> {
  const { eng, watch, pendingTotal, reconnected, verified, target, pending, unseenDrops } = await readSteps(database, function* (tx) {
    const eng = yield* viewedEngagement(tx, actor, engagementId);
    const run = yield* latestBulkRun(tx, eng.id);
    return {
      eng,
      watch: (yield* findWatch(tx, eng.id)) ?? null,
      pendingTotal: yield* countReal(tx, eng.id, eq(migrationItems.state, "reconnect_pending")),
      reconnected: yield* countReal(tx, eng.id, eq(migrationItems.state, "verified"), isNotNull(migrationItems.reconnectedAt)),
      verified: yield* countReal(tx, eng.id, eq(migrationItems.state, "verified")),
      target: run?.serviceTargetId ? yield* findServiceTarget(tx, run.serviceTargetId) : undefined,
      pending: yield* pendingRows(tx, links, eng.id, PENDING_ON_PAGE),
      unseenDrops: yield* countUnseenDrops(tx, eng.id),
    };
  });
  let budget: number | null = null;
  if (target) {
    const rule = limitsOfTarget(target);
    if (rule.kind === "service") budget = dailyBudget(rule.limits.dailyQuota.base + rule.limits.dailyQuota.perConnectedCompany * verified);
  }
  const failure = watch?.lastFailure as { status?: number | null; error?: string; correlationId?: string | null } | null | undefined;
  return {
    hypercareDays: eng.hypercareDays,
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
    pending,
    pendingTotal,
    reconnected,
    unseenDrops,
    controls: {
      checkNow: allowedOf(checkNowRefusal(actor, watch?.status === "watching")),
      setHypercareDays: allowedOf(daysRefusal(actor, eng.status, watch?.status === "ended")),
      markDropsSeen: allowedOf(dropsSeenRefusal(actor, unseenDrops)),
    },
  };
}

/** Support's "check now", decided on the watch as it is (the engagement's row locked inside a transaction). */
function* checkNowStep(tx: Tx, actor: Actor, engagementId: string): Steps<string> {
  const { eng } = yield* loadForChange(tx, engagementId);
  assertOrganization(actor, eng.organizationId);
  const watch = yield* findWatch(tx, eng.id);
  const r = checkNowRefusal(actor, watch?.status === "watching");
  if (r) refuse(r);
  return eng.id;
}

/** Support asks for a check now: the next worker that looks takes it. */
export async function checkWatchNow(database: Database, actor: Actor, input: { engagementId: string }): Promise<void> {
  // Refused at once without waiting for the engagement's row, then decided again with it locked.
  await readSteps(database, (tx) => checkNowStep(tx, actor, input.engagementId));
  await database.transaction(
    function* (tx) {
      yield* makeWatchDue(tx, yield* checkNowStep(tx, actor, input.engagementId));
    },
    { isolation: "read committed" },
  );
}

/** Why the viewer cannot mark the drops seen, or null. */
function dropsSeenRefusal(actor: Actor, unseen: number): Refusal | null {
  if (!isStaff(actor.role)) return { ok: false, code: "FORBIDDEN", reason: "Support staff look at the dropped connections." };
  if (unseen === 0) return refused("No dropped connection waits to be looked at.");
  return null;
}

/**
 * Support has looked at the connections the watch found dropped: they are seen up to the latest
 * drop (on the target's clock, as the watch stamps them), so only a later drop is support's move
 * again. Audited; whose move is refreshed.
 */
export async function markDropsSeen(database: Database, deps: NotifyDeps, actor: Actor, input: { engagementId: string }): Promise<{ waiting: WaitingChange | null }> {
  const step = function* (tx: Tx) {
    const { eng } = yield* loadForChange(tx, input.engagementId);
    assertOrganization(actor, eng.organizationId);
    const unseen = yield* countUnseenDrops(tx, eng.id);
    const r = dropsSeenRefusal(actor, unseen);
    if (r) refuse(r);
    return { eng, unseen };
  };
  await readSteps(database, step);
  const at = new Date();
  return database.transaction(
    function* (tx) {
      const { eng, unseen } = yield* step(tx);
      const latest = (yield* q.get(tx.select({ at: max(migrationItems.droppedAt) }).from(migrationItems).where(realItems(eng.id))))?.at ?? at;
      yield* q.run(tx.update(watches).set({ dropsSeenAt: latest }).where(eq(watches.engagementId, eng.id)));
      yield* writeAudit(tx, { actor, action: "watch.drops_seen", targetId: eng.id, engagementId: eng.id, organizationId: eng.organizationId, after: { drops: unseen }, at });
      return yield* withNotice(tx, deps.notify, eng.id, { waiting: yield* refreshWaiting(tx, eng.id, at, eng) });
    },
    { isolation: "read committed" },
  );
}

/** Support's change of the hypercare days, decided on the engagement and its watch as they are. */
function* hypercareDaysStep(tx: Tx, actor: Actor, engagementId: string) {
  const { eng } = yield* loadForChange(tx, engagementId);
  assertOrganization(actor, eng.organizationId);
  const watch = yield* findWatch(tx, eng.id);
  const r = daysRefusal(actor, eng.status, watch?.status === "ended");
  if (r) refuse(r);
  return { eng, watch };
}

/** Support sets how many days the hypercare watch lasts; a watch already counting moves its end by the difference. */
export async function setHypercareDays(database: Database, actor: Actor, input: { engagementId: string; days: number }): Promise<void> {
  await readSteps(database, (tx) => hypercareDaysStep(tx, actor, input.engagementId));
  const at = new Date();
  // Read committed: the engagement's row is locked before the days are read, so two changes queue
  // and each moves the watch's end by its own difference from what the other left.
  await database.transaction(
    function* (tx) {
      const { eng, watch } = yield* hypercareDaysStep(tx, actor, input.engagementId);
      const before = eng.hypercareDays;
      if (before === input.days) return;
      yield* q.run(tx.update(engagements).set({ hypercareDays: input.days, updatedAt: at }).where(eq(engagements.id, eng.id)));
      if (watch?.hypercareEndsAt) yield* moveHypercareEnd(tx, { engagementId: eng.id, endsAt: new Date(watch.hypercareEndsAt.getTime() + (input.days - before) * DAY_MS) });
      yield* writeAudit(tx, { actor, action: "watch.hypercare_days_changed", targetId: eng.id, engagementId: eng.id, organizationId: eng.organizationId, before: { days: before }, after: { days: input.days }, at });
    },
    { isolation: "read committed" },
  );
}

/** The waiting companies as CSV, for the customer to send each end customer its link (every cell neutralised for spreadsheets). */
export async function reconnectLinksCsv(database: Database, links: ReconnectLinks, actor: Actor, engagementId: string): Promise<{ fileName: string; body: string }> {
  const { eng, rows } = await readSteps(database, function* (tx) {
    const eng = yield* viewedEngagement(tx, actor, engagementId);
    return { eng, rows: yield* pendingRows(tx, links, eng.id) };
  });
  if (!rows.length) throw new AppError("PRECONDITION_FAILED", "No company waits for its end customer to reconnect.");
  const records = rows.map((r) =>
    [r.name, r.externalRef ?? "", r.linkUrl ?? "", r.companyId ?? "", r.since ? r.since.toISOString() : "", r.dropped ? "Dropped after its migration" : "Failed on its tokens", r.reason ?? "", String(r.linkOpens), r.linkLastOpenedAt ? r.linkLastOpenedAt.toISOString() : ""].map(
      neutraliseSpreadsheetCell,
    ),
  );
  const body = stringify([["Company name", "External reference", "Reconnect link", "Company ID", "Waiting since (UTC)", "Why", "The platform's words", "Link opened (times)", "Last opened (UTC)"], ...records], {
    bom: true,
    record_delimiter: "windows",
  });
  return { fileName: `${eng.reference.replace(/[^A-Za-z0-9-]/g, "_")}-reconnect-links.csv`, body };
}
