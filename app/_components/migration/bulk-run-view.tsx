"use client";
import { useQuery } from "@tanstack/react-query";
import { ReconciliationView } from "@/app/_components/migration/reconciliation-view";
import { Facts, RunStatusBadge } from "@/app/_components/migration/test-run-view";
import { Notice, ProgressBar } from "@/app/_components/ui";
import { formatDateTime, formatDuration } from "@/app/_lib/labels";
import type { RouterOutputs } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { companiesText as companies } from "@/core/words";
import { finishedOf } from "@/core/migration/reconciliation";

export type BulkOverview = RouterOutputs["bulk"]["overview"];
export type BulkRun = NonNullable<BulkOverview["run"]>;
/** How often an active run is read again. */
export const BULK_POLL_MS = 1_500;

/** The bulk run's overview, read again every 1.5 s while the run is active. */
export function useBulkOverview(engagementId: string) {
  const trpc = useTRPC();
  return useQuery(trpc.bulk.overview.queryOptions({ engagementId }, { refetchInterval: (q) => (q.state.data?.run?.active ? BULK_POLL_MS : false) }));
}

const numberText = (n: number) => n.toLocaleString("en-GB");

/** "12.5 requests per second against the limit of 100 per 1 s", or without the limit before it is known. */
function paceText(pace: BulkRun["pace"]): string {
  const now = `${numberText(pace.perSecond)} requests per second`;
  if (!pace.limit) return `${now} (the service's limit not reported yet)`;
  const perSecond = pace.limit.requests / Math.max(pace.limit.perSeconds, 1e-9);
  const share = perSecond > 0 ? ` (${Math.round((pace.perSecond / perSecond) * 100)}% of it)` : "";
  return `${now} against the limit of ${numberText(pace.limit.requests)} requests per ${pace.limit.perSeconds === 1 ? "second" : formatDuration(pace.limit.perSeconds)}${share}`;
}

type BulkWindow = NonNullable<BulkOverview["window"]>;

/** The agreed window and where now stands against it: "8 Dec 2026, 09:00 UTC – 8 Dec 2026, 17:00 UTC · 5 h 10 min left". */
function windowFact(w: BulkWindow): string {
  const span = `${formatDateTime(w.startsAt)} – ${formatDateTime(w.endsAt)}`;
  switch (w.position) {
    case "before":
      return `${span} · starts in ${formatDuration(w.seconds)}`;
    case "inside":
      return `${span} · ${formatDuration(w.seconds)} left`;
    case "after":
      return `${span} · ended ${formatDuration(w.seconds)} ago`;
    default: {
      const never: never = w.position;
      return never;
    }
  }
}

/** The warning when the run will not be done within the agreed window, or null. */
function OverrunNotice({ window: w, run }: { window: BulkWindow | null; run: BulkRun }) {
  if (!w?.overrun) return null;
  const unfinished = run.progress.total - run.progress.finished;
  const held = run.status === "paused" || run.status === "stopped";
  return (
    <Notice tone="warning" title={w.overrun.kind === "pace" ? "The run will overrun the agreed window" : "The agreed window has ended"}>
      {w.overrun.kind === "pace"
        ? `At the recent pace the remaining ${companies(unfinished)} need about ${formatDuration(run.pace.etaSeconds ?? 0)}, ${formatDuration(w.overrun.seconds)} more than is left of the window (it ends ${formatDateTime(w.endsAt)}).`
        : `The window ended ${formatDuration(w.overrun.seconds)} ago (${formatDateTime(w.endsAt)}) with ${companies(unfinished)} not yet final.`}{" "}
      {held ? "Agree the extra time with the customer before resuming the run." : "Agree the extra time with the customer, or pause the run."}
    </Notice>
  );
}

function etaText(run: BulkRun): string {
  if (!run.active) return run.finishedAt ? `Finished ${formatDateTime(run.finishedAt)}` : "—";
  if (run.pace.etaSeconds === null) return "Not known yet (it is told once companies finish at a steady pace)";
  if (run.pace.etaSeconds === 0) return "Every company is final";
  return `About ${formatDuration(run.pace.etaSeconds)} left`;
}

/** Why the run is where it is, in words: stopped, paused, cancelled, or waiting by itself. */
function RunState({ run, stoppedHint }: { run: BulkRun; stoppedHint: string }) {
  switch (run.status) {
    case "stopped":
      return (
        <Notice tone="error" title="Stopped">
          <p>{run.statusReason ?? "The service refused the run."}</p>
          <p className="mt-1">{stoppedHint}</p>
        </Notice>
      );
    case "paused":
      return (
        <Notice tone="warning" title="Paused">
          {run.statusReason ?? "Paused by support."}
        </Notice>
      );
    case "cancelled":
      return (
        <Notice tone="warning" title="Cancelled">
          {run.statusReason ?? "The run was cancelled."}
        </Notice>
      );
    case "queued":
    case "running":
      return run.hold ? (
        <Notice tone="info" title="Waiting by itself">
          {run.hold.text} {run.hold.until ? `It is waiting by itself until ${formatDateTime(run.hold.until)}.` : "It carries on by itself."}
        </Notice>
      ) : run.activity ? (
        <p className="text-sm text-slate-800" data-testid="bulk-activity">
          {run.activity}
        </p>
      ) : null;
    case "passed":
    case "failed":
    case "completed":
      return null;
    default: {
      const never: never = run.status;
      return never;
    }
  }
}

/**
 * The bulk run as it stands, read-only: its status and why, a progress bar over every company of
 * the engagement, the reconciliation (the same counts as the handover and the report), the pace
 * against the service's limit, the requests and 429s, the time left beside the agreed window's
 * (with a warning when the pace says the run will overrun it). The console puts its controls
 * beside it; the portal shows it as is. A stopped run's notice ends with `stoppedHint`, the
 * page's words for what happens next.
 */
export function BulkRunView({ overview, stoppedHint }: { overview: BulkOverview; stoppedHint: string }) {
  const run = overview.run;
  const r = overview.reconciliation;
  if (!run) {
    return (
      <div className="space-y-3">
        <p className="text-sm text-slate-700">No bulk run yet. {companies(r.supplied)} in this engagement.</p>
        <ReconciliationView reconciliation={r} />
        {overview.window ? <Facts rows={[{ term: "Agreed window", detail: windowFact(overview.window) }]} /> : null}
      </div>
    );
  }
  // The bar covers every company supplied, the single-company test's included, as the counts below do.
  const total = r.supplied;
  const finished = finishedOf(r);
  const percent = total ? Math.floor((finished / total) * 100) : 100;
  const covered = run.progress.total < total ? ` This run covers ${numberText(run.progress.total)} of them.` : "";
  return (
    <article className="space-y-4" aria-label="Bulk run">
      <div className="flex flex-wrap items-center gap-2" aria-live="polite">
        <RunStatusBadge status={run.status} />
        <span className="text-sm text-slate-700">
          {run.target ? `on ${run.target.name} · ` : ""}started by {run.requestedBy ?? "someone"} · {formatDateTime(run.requestedAt)}
        </span>
      </div>
      <div aria-live="polite" className="space-y-2">
        <RunState run={run} stoppedHint={stoppedHint} />
        <OverrunNotice window={overview.window} run={run} />
      </div>
      <div className="space-y-1.5">
        <ProgressBar label="Companies finished" value={finished} max={Math.max(total, 1)} valueText={`${numberText(finished)} of ${companies(total)} finished`} />
        <p className="text-sm text-slate-700">
          {numberText(finished)} of {companies(total)} finished ({percent}%).{covered}
        </p>
      </div>
      <ReconciliationView reconciliation={r} />
      <Facts
        rows={[
          { term: "Pace", detail: paceText(run.pace) },
          {
            term: "Requests made",
            detail: `${numberText(run.pace.requests)}, of which ${numberText(run.pace.rateLimited)} answered 429${run.pace.requests ? ` (${((run.pace.rateLimited / run.pace.requests) * 100).toFixed(1)}%)` : ""}`,
          },
          { term: "Time left", detail: etaText(run) },
          ...(overview.window ? [{ term: "Agreed window", detail: windowFact(overview.window) }] : []),
          ...(overview.limitText ? [{ term: "The limit", detail: overview.limitText }] : []),
        ]}
      />
    </article>
  );
}
