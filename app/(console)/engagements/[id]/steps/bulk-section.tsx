"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { BulkItems, type BulkItem } from "@/app/_components/migration/bulk-items";
import { BulkRunView, useBulkOverview, type BulkOverview, type BulkRun } from "@/app/_components/migration/bulk-run-view";
import { ConfirmDialog } from "@/app/_components/confirm-dialog";
import { TextDialog } from "@/app/_components/text-dialog";
import type { Announce } from "@/app/_components/use-announcement";
import { Button, Notice, ProgressBar } from "@/app/_components/ui";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { companiesText as companies } from "@/core/words";
import { reconciliationInWords } from "@/core/migration/reconciliation";
import { FINAL_ITEM_STATES } from "@/core/migration/states";
import { useHandoverInvalidation } from "./handover-section";

/**
 * Marks stale what a bulk control changes: the run's companies, the handover (whether the report
 * can be produced, its preview) and the engagement (step 6 started, the timeline, and the run's
 * overview with it).
 */
function useBulkInvalidation(engagementId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const handover = useHandoverInvalidation(engagementId);
  return () => Promise.all([queryClient.invalidateQueries({ queryKey: trpc.bulk.items.pathKey() }), handover()]);
}

type Dialog = { kind: "start" } | { kind: "pause" } | { kind: "cancel" } | { kind: "setAside"; item: BulkItem } | null;

/**
 * Step 6's bulk migration in the console: start it once step 5 has passed, follow it live (read
 * again every 1.5 s while active), pause, resume, cancel, retry the failed companies, and per
 * company set it aside or retry it. Every result is announced; a refusal keeps the server's words.
 */
export function BulkSection({ engagement, announce }: { engagement: EngagementDetail; announce: Announce }) {
  const engagementId = engagement.id;
  const trpc = useTRPC();
  const startReasonId = useId();
  const overview = useBulkOverview(engagementId);
  const invalidate = useBulkInvalidation(engagementId);
  const [dialog, setDialog] = useState<Dialog>(null);
  const resume = useMutation(trpc.bulk.resume.mutationOptions());
  const retryFailed = useMutation(trpc.bulk.retryFailed.mutationOptions());
  const retryItem = useMutation(trpc.bulk.retryItem.mutationOptions());

  // When the run appears or the worker moves it (it stops, finishes…), the timeline, the checklist and the handover
  // follow: refresh them (a run that appears may already have moved on, after the timeline read with it).
  // The end of the run is announced; a stop or a cancellation is already said by the run's notice (a live region).
  const was = useRef<{ id: string; status: BulkRun["status"]; active: boolean } | null | undefined>(undefined);
  const run = overview.data?.run;
  const reconciliation = overview.data?.reconciliation;
  useEffect(() => {
    if (run === undefined) return;
    const before = was.current;
    was.current = run && { id: run.id, status: run.status, active: run.active };
    if (before === undefined || !run || (before?.id === run.id && before.status === run.status)) return;
    void invalidate();
    if (before?.id === run.id && before.active && !run.active && run.status !== "cancelled" && reconciliation) {
      announce({ tone: "success", text: `The bulk migration has finished: ${reconciliationInWords(reconciliation)}. The handover report can be produced.` });
    }
  }, [run, reconciliation, announce, invalidate]);

  const v = overview.data;
  if (!v) return overview.error ? <Notice tone="error">{toFormError(overview.error).message}</Notice> : <ProgressBar label="Loading the bulk migration" size="sm" />;

  const done = (text: string) => {
    setDialog(null);
    announce({ tone: "success", text });
  };
  /** Runs a one-click control: on success refreshes what it changed and says so; a refusal is announced in the server's words. */
  const act = <T,>(mutation: Promise<T>, text: (result: T) => string) =>
    mutation.then(
      (result) => invalidate().then(() => announce({ tone: "success", text: text(result) })),
      (e: unknown) => announce({ tone: "error", text: toFormError(e).message }),
    );
  const failedCount = v.counts.failed;

  return (
    <section aria-labelledby="bulk-title" className="space-y-4">
      {/* Named for screen readers: the part's tab above says it on screen. */}
      <h4 id="bulk-title" className="sr-only">
        Bulk migration
      </h4>
      <div className="flex flex-wrap items-center gap-2" role="group" aria-label="Bulk run controls">
        {/* While a run is under way the panel says what it is doing; a Start refused as "already running" would only repeat it. */}
        {v.run?.active ? null : (
          <Button disabled={!v.controls.start.allowed} aria-describedby={v.controls.start.allowed ? undefined : startReasonId} onClick={() => setDialog({ kind: "start" })}>
            Start bulk migration
          </Button>
        )}
        {v.controls.pause.allowed ? (
          <Button variant="secondary" onClick={() => setDialog({ kind: "pause" })}>
            Pause
          </Button>
        ) : null}
        {v.controls.resume.allowed ? (
          <Button
            variant="secondary"
            pending={resume.isPending}
            onClick={() => void act(resume.mutateAsync({ engagementId }), () => "The bulk migration resumes.")}
          >
            Resume
          </Button>
        ) : null}
        {v.controls.retryFailed.allowed ? (
          <Button
            variant="secondary"
            pending={retryFailed.isPending}
            onClick={() => void act(retryFailed.mutateAsync({ engagementId }), (r) => `${companies(r.count)} put back into the run.`)}
          >
            Retry failed ({failedCount.toLocaleString("en-GB")})
          </Button>
        ) : null}
        {v.controls.cancel.allowed ? (
          <Button variant="danger" onClick={() => setDialog({ kind: "cancel" })}>
            Cancel the run
          </Button>
        ) : null}
      </div>
      {!v.run?.active && !v.controls.start.allowed && v.controls.start.reason ? (
        <p id={startReasonId} className="text-sm text-slate-600">
          {v.controls.start.reason}
        </p>
      ) : null}

      <BulkRunView overview={v} stoppedHint="Fix the cause, then resume the run." />

      {v.total > 0 ? (
        <BulkItems
          engagementId={engagementId}
          live={v.run?.active ?? false}
          actions={(item) => (
            <div className="flex gap-2">
              {item.canRetry ? (
                <Button
                  size="sm"
                  variant="secondary"
                  aria-label={`Retry ${item.name}`}
                  pending={retryItem.isPending && retryItem.variables?.itemId === item.id}
                  onClick={() => void act(retryItem.mutateAsync({ engagementId, itemId: item.id }), () => `${item.name} is put back into the run.`)}
                >
                  Retry
                </Button>
              ) : null}
              {item.canSetAside ? (
                <Button size="sm" variant="secondary" aria-label={`Set ${item.name} aside`} onClick={() => setDialog({ kind: "setAside", item })}>
                  Set aside
                </Button>
              ) : null}
            </div>
          )}
        />
      ) : null}

      {dialog?.kind === "start" ? <StartDialog engagement={engagement} overview={v} onClose={() => setDialog(null)} onDone={done} invalidate={invalidate} /> : null}
      {dialog?.kind === "pause" ? <PauseDialog engagementId={engagementId} onClose={() => setDialog(null)} onDone={done} invalidate={invalidate} /> : null}
      {dialog?.kind === "cancel" ? <CancelDialog engagementId={engagementId} onClose={() => setDialog(null)} onDone={done} invalidate={invalidate} /> : null}
      {dialog?.kind === "setAside" ? (
        <SetAsideDialog engagementId={engagementId} item={dialog.item} onClose={() => setDialog(null)} onDone={done} invalidate={invalidate} />
      ) : null}
    </section>
  );
}

type DialogProps = { onClose: () => void; onDone: (text: string) => void; invalidate: () => Promise<unknown> };

/**
 * Starting the run: a confirmation inside the agreed window; outside it (before or after), the
 * reason the server requires, which it records and mails to the customer.
 */
function StartDialog({ engagement, overview, onClose, onDone, invalidate }: DialogProps & { engagement: EngagementDetail; overview: BulkOverview }) {
  const trpc = useTRPC();
  const start = useMutation(trpc.bulk.start.mutationOptions());
  const unfinished = overview.total - FINAL_ITEM_STATES.reduce((n, state) => n + overview.counts[state], 0);
  const title = `Start the bulk migration of ${engagement.reference}`;
  const description = `${companies(unfinished)} not yet migrated, on ${engagement.serviceTarget?.name ?? "the engagement's service target"}.`;
  const what = (
    <>
      <p>A worker migrates every company not yet final at the pace the service allows, and verifies each with the same checks as step 5.</p>
      <p>You can pause, resume or cancel it, retry failed companies and set companies aside while it runs.</p>
    </>
  );
  const started = async (reason: string | undefined) => {
    await start.mutateAsync({ engagementId: engagement.id, reason });
    await invalidate();
    onDone(reason ? "The bulk migration is started outside the agreed window: the customer is told why, and a worker takes it up now." : "The bulk migration is started: a worker takes it up now.");
  };
  const outside = overview.window?.startNeedsReason;
  if (outside) {
    return (
      <TextDialog
        title={title}
        description={description}
        label="Why start outside the agreed window?"
        required
        hint="Recorded in the timeline and mailed to the customer."
        field="reason"
        submitLabel="Start bulk migration"
        cancelLabel="Not yet"
        pending={start.isPending}
        onClose={onClose}
        submit={started}
      >
        <div className="space-y-3 text-sm text-slate-700">
          <Notice tone="warning" title="Outside the agreed window">
            {outside}
          </Notice>
          {what}
        </div>
      </TextDialog>
    );
  }
  return (
    <ConfirmDialog
      title={title}
      description={description}
      confirmLabel="Start bulk migration"
      cancelLabel="Not yet"
      pending={start.isPending}
      error={start.error}
      onClose={onClose}
      confirm={() => started(undefined)}
    >
      {what}
    </ConfirmDialog>
  );
}

function PauseDialog({ engagementId, onClose, onDone, invalidate }: DialogProps & { engagementId: string }) {
  const trpc = useTRPC();
  const pause = useMutation(trpc.bulk.pause.mutationOptions());
  return (
    <TextDialog
      title="Pause the bulk migration"
      description="Companies under way finish their current call; nothing new is sent until you resume."
      label="Why pause?"
      required={false}
      hint="Optional: shown on the run and in the timeline."
      field="reason"
      submitLabel="Pause"
      pending={pause.isPending}
      onClose={onClose}
      submit={async (reason) => {
        await pause.mutateAsync({ engagementId, reason });
        await invalidate();
        onDone("The bulk migration is paused.");
      }}
    />
  );
}

function CancelDialog({ engagementId, onClose, onDone, invalidate }: DialogProps & { engagementId: string }) {
  const trpc = useTRPC();
  const cancel = useMutation(trpc.bulk.cancel.mutationOptions());
  return (
    <TextDialog
      title="Cancel the bulk migration"
      description="Companies not yet final stay where they are; a new run can be started later."
      label="Why cancel?"
      required
      hint="Recorded on the run and in the timeline."
      field="reason"
      submitLabel="Cancel the run"
      cancelLabel="Keep it running"
      variant="danger"
      pending={cancel.isPending}
      onClose={onClose}
      submit={async (reason) => {
        await cancel.mutateAsync({ engagementId, reason: reason ?? "" });
        await invalidate();
        onDone("The bulk migration is cancelled.");
      }}
    />
  );
}

function SetAsideDialog({ engagementId, item, onClose, onDone, invalidate }: DialogProps & { engagementId: string; item: BulkItem }) {
  const trpc = useTRPC();
  const setAside = useMutation(trpc.bulk.setAside.mutationOptions());
  return (
    <TextDialog
      title={`Set ${item.name} aside`}
      description="The run leaves this company alone; the handover report lists it with your reason."
      label="Why set it aside?"
      required
      hint="Shown in the table, the handover report and the timeline."
      field="reason"
      submitLabel="Set aside"
      pending={setAside.isPending}
      onClose={onClose}
      submit={async (reason) => {
        await setAside.mutateAsync({ engagementId, itemId: item.id, reason: reason ?? "" });
        await invalidate();
        onDone(`${item.name} is set aside.`);
      }}
    />
  );
}
