/**
 * What the console and the portal show of the bulk run: the latest run with its progress, pace
 * and ETA, the engagement's companies per state, the controls on offer (none in the portal), and a
 * page of companies filterable by state and searchable (server-side: fast at 100,000 companies).
 */
import { completenessOf, storedChecks } from "../completeness/completeness";
import { readSteps, type Database, type Steps, type Tx } from "@/db/database";
import { findUser } from "@/server/accounts/users";
import { assertCanView } from "@/server/engagements/access";
import { isStaff, toControl } from "@/server/engagements/checklist";
import type { Actor } from "@/core/accounts/actor";
import { serviceNameOf } from "@/server/platforms";
import { limitsOfTarget } from "@/server/targets/limits";
import { findServiceTarget } from "@/server/targets/targets";
import { pageOfReportItems } from "../handover/handover-repository";
import { readFailure } from "../engine/stored-failure";
import { readChecks } from "../handover/item-results";
import { itemStory, platformErrorsOf } from "./item-story";
import { FINAL_ITEM_STATES, type MigrationItemState, type RunStatus } from "@/core/migration/states";
import { countOf, listText } from "@/core/words";
import { runCountsByState, type BulkOutcome } from "./bulk-repository";
import { passedPilotItem } from "../engine/run-repository";
import { toReconciliation } from "../reconciliation";
import { realProgress } from "../reconciliation-repository";
import { loadBulkContext, loadItemActionsContext, type LoadedBulkContext } from "./bulk-controls";
import {
  cancelRefusal,
  isOpenBulkStatus,
  itemActionsRefusal,
  pauseRefusal,
  resumeRefusal,
  retryFailedRefusal,
  outsideWindowWords,
  RETRY_FROM,
  startRefusal,
  windowPosition,
  type AgreedWindow,
} from "./rules";
import type { BulkItemsPageView, BulkOverviewView, BulkRunView, BulkWindowView } from "@/core/migration/bulk-schemas";

const FINAL = new Set<string>(FINAL_ITEM_STATES);
const finishedOf = (counts: Record<MigrationItemState, number>) => Object.entries(counts).reduce((n, [s, k]) => (FINAL.has(s) ? n + k : n), 0);

/** Requests per second and companies finished per second over the recent samples (about a minute). */
export function paceFromSamples(samples: readonly [number, number, number][], now: number): { perSecond: number; finishedPerSecond: number } {
  const recent = samples.filter(([at]) => at >= now - 60_000);
  const first = recent[0];
  const last = recent.at(-1);
  if (!first || !last || last[0] - first[0] < 1_500) return { perSecond: 0, finishedPerSecond: 0 };
  const seconds = (last[0] - first[0]) / 1000;
  // A sample older than 10 s means the run is not moving now (paused, held, no worker).
  const stale = now - last[0] > 10_000;
  return stale ? { perSecond: 0, finishedPerSecond: 0 } : { perSecond: (last[1] - first[1]) / seconds, finishedPerSecond: (last[2] - first[2]) / seconds };
}

/**
 * The agreed window beside the run: the time left (or until it starts, or since it ended), the
 * reason a start would need now, and an overrun the run's pace foresees — inside the window when
 * the ETA reaches past its end, after it when companies are still unfinished. `run`: the latest
 * run's activity and ETA (null before the first). Pure.
 */
export function windowOutlook(params: {
  window: AgreedWindow;
  now: Date;
  /** `active`: the run still has something to follow (queued, running, paused, stopped); `etaSeconds` is known only while it runs. */
  run: { active: boolean; etaSeconds: number | null; unfinished: number } | null;
}): BulkWindowView {
  const { window, now, run } = params;
  const position = windowPosition(window, now);
  const at = now.getTime();
  const seconds = Math.round(Math.max(0, position === "before" ? window.startsAt.getTime() - at : position === "inside" ? window.endsAt.getTime() - at : at - window.endsAt.getTime()) / 1000);
  let overrun: BulkWindowView["overrun"] = null;
  if (run?.active && run.unfinished > 0) {
    if (position === "inside" && run.etaSeconds !== null && run.etaSeconds > seconds) overrun = { kind: "pace", seconds: run.etaSeconds - seconds };
    if (position === "after") overrun = { kind: "ended", seconds };
  }
  return { startsAt: window.startsAt, endsAt: window.endsAt, position, seconds, startNeedsReason: outsideWindowWords(window, now), overrun };
}

/**
 * What a bulk run is doing now, in words, from its companies per state: the ones syncing (sync
 * requested, or authorized and about to request it), being connected (company or connection
 * created, authorization next) and still to start, and the ones retried after a failed attempt.
 * Null when the run is not moving on its own (paused, stopped, cancelled, ended, or waiting out a
 * hold: their notices say why). Pure.
 */
export function runActivityWords(run: { status: RunStatus; held: boolean; counts: Readonly<Record<MigrationItemState, number>> }): string | null {
  if (run.held) return null;
  if (run.status === "queued") return "Waiting for a worker to take the run up.";
  if (run.status !== "running") return null;
  const c = run.counts;
  const parts = [
    [c.sync_requested + c.authorized, "company syncing", "companies syncing"],
    [c.company_created + c.connection_created, "company being connected", "companies being connected"],
    [c.pending, "company still to start", "companies still to start"],
  ] as const;
  const said = parts.filter(([n]) => n > 0).map(([n, one, other], i) => (i === 0 ? countOf(n, one, other) : countOf(n, one.replace(/^company /, ""), other.replace(/^companies /, ""))));
  return said.length ? `Migrating: ${listText(said)}.` : "Finishing: every company has reached a final state.";
}

function* runView(tx: Tx, run: NonNullable<LoadedBulkContext["latest"]>, now: Date): Steps<BulkRunView> {
  const counts = yield* runCountsByState(tx, run.id);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const finished = finishedOf(counts);
  const outcome = (run.outcome ?? {}) as BulkOutcome;
  const pace = paceFromSamples(outcome.samples ?? [], now.getTime());
  const left = total - finished;
  const running = run.status === "running" || run.status === "queued";
  const target = run.serviceTargetId ? yield* findServiceTarget(tx, run.serviceTargetId) : undefined;
  return {
    id: run.id,
    status: run.status,
    active: isOpenBulkStatus(run.status),
    statusReason: run.statusReason,
    activity: runActivityWords({ status: run.status, held: running && !!outcome.hold, counts }),
    hold: running && outcome.hold ? { kind: outcome.hold.kind as "maintenance", text: outcome.hold.text, until: outcome.hold.until ? new Date(outcome.hold.until) : null } : null,
    requestedBy: run.requestedById ? ((yield* findUser(tx, run.requestedById))?.name ?? null) : null,
    requestedAt: run.requestedAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    target: target ? { name: target.name, baseUrl: target.baseUrl } : null,
    progress: { total, finished, counts },
    pace: {
      requests: outcome.requests ?? 0,
      rateLimited: outcome.rateLimited ?? 0,
      perSecond: Math.round(pace.perSecond * 10) / 10,
      limit: outcome.limit ?? null,
      etaSeconds: running && left > 0 && pace.finishedPerSecond > 0 ? Math.ceil(left / pace.finishedPerSecond) : left === 0 ? 0 : null,
    },
  };
}

/** The bulk migration of an engagement as a screen shows it (controls only for staff), at `now`. */
export function getBulkOverview(database: Database, actor: Actor, engagementId: string, now: Date = new Date()): Promise<BulkOverviewView> {
  return readSteps(database, (tx) => bulkOverview(tx, actor, engagementId, now));
}

/** `getBulkOverview`, read inside `readSteps`. */
function* bulkOverview(tx: Tx, actor: Actor, engagementId: string, now: Date): Steps<BulkOverviewView> {
  yield* assertCanView(tx, actor, engagementId);
  // One pass over the real-state index gives the counts per state and the reconciliation's.
  const progress = yield* realProgress(tx, engagementId);
  const c = yield* loadBulkContext(tx, actor, engagementId, now, { counts: progress.byState });
  const pilot = yield* passedPilotItem(tx, engagementId);
  const staff = isStaff(actor.role);
  const refusedForCustomers = { allowed: false, reason: "Support staff control the bulk migration." };
  const control = (refusal: ReturnType<typeof startRefusal>) => (staff ? toControl(refusal) : refusedForCustomers);
  const total = Object.values(c.counts).reduce((a, b) => a + b, 0);
  const target = c.eng.serviceTargetId === null ? undefined : yield* findServiceTarget(tx, c.eng.serviceTargetId);
  const limitText = !target
    ? null
    : (() => {
        const rule = limitsOfTarget(target);
        return rule.kind === "service"
          ? `${rule.source.charAt(0).toUpperCase()}${rule.source.slice(1)}: the run keeps under ${rule.requestsPerMinute.toLocaleString("en-GB")} requests a minute, paces to the X-Rate-Limit headers of every answer and waits for a spent quota's reset.`
          : "The built-in sandbox's configured limit, as its X-Rate-Limit headers report it on every answer; the run paces to them.";
      })();
  const run = c.latest ? yield* runView(tx, c.latest, now) : null;
  return {
    run,
    counts: c.counts,
    total,
    pilot: pilot ? { name: pilot.name, state: pilot.state } : null,
    reconciliation: toReconciliation(progress.counts, pilot ? { name: pilot.name, state: pilot.state } : null),
    limitText,
    window: c.window
      ? windowOutlook({
          window: c.window,
          now,
          run: run && { active: run.active, etaSeconds: run.pace.etaSeconds, unfinished: run.progress.total - run.progress.finished },
        })
      : null,
    controls: {
      start: control(startRefusal(c)),
      pause: control(pauseRefusal(c)),
      resume: control(resumeRefusal(c)),
      cancel: control(cancelRefusal(c)),
      retryFailed: control(retryFailedRefusal(c)),
      itemActions: control(itemActionsRefusal(c)),
    },
  };
}

/** A page of the engagement's companies with their migration state, last error and ids. */
export function listBulkItems(
  database: Database,
  actor: Actor,
  filter: { engagementId: string; state?: MigrationItemState; search?: string; page: number; pageSize: number },
): Promise<BulkItemsPageView> {
  return readSteps(database, function* (tx) {
    yield* assertCanView(tx, actor, filter.engagementId);
    const c = yield* loadItemActionsContext(tx, actor, filter.engagementId);
    const itemActions = isStaff(actor.role) && itemActionsRefusal(c) === null;
    const pilotItemId = (yield* passedPilotItem(tx, filter.engagementId))?.id;
    const retryable = itemActions && c.latest !== undefined && c.latest.status !== "paused" && c.latest.status !== "stopped";
    const { rows, total } = yield* pageOfReportItems(tx, filter);
    return {
      rows: rows.map((r) => {
        const lastError = readFailure(r.lastError);
        return {
          id: r.id,
          name: r.name,
          serviceName: serviceNameOf(r),
          externalRef: r.externalRef,
          state: r.state,
          companyId: r.companyId,
          connectionId: r.connectionId,
          attempts: r.attempts,
          attemptsInAll: r.attemptsInAll,
          lastError,
          outcomeReason: lastError?.error && r.outcomeReason?.includes(lastError.error) ? null : r.outcomeReason,
          story: itemStory({
            state: r.state,
            outcomeReason: r.outcomeReason,
            lastError,
            checks: readChecks(r.checks),
            platformErrors: platformErrorsOf(r.checks),
            attempts: r.attempts,
            viewer: isStaff(actor.role) ? "staff" : "customer",
          }),
          completeness: completenessOf({ platformKey: c.eng.platformKey, checks: storedChecks(r.checks), oldCounts: r.oldCounts }),
          pilot: r.id === pilotItemId,
          canSetAside: itemActions && r.state !== "verified" && r.state !== "set_aside",
          canRetry: retryable && RETRY_FROM.includes(r.state),
        };
      }),
      total,
      page: filter.page,
      pageSize: filter.pageSize,
    };
  });
}
