"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { HandoverItems } from "@/app/_components/handover/handover-items";
import { HandoverRecord } from "@/app/_components/handover/handover-record";
import { BulkItems } from "@/app/_components/migration/bulk-items";
import { Reconnections } from "@/app/_components/migration/reconnections";
import { BulkRunView, useBulkOverview } from "@/app/_components/migration/bulk-run-view";
import { ReconciliationView } from "@/app/_components/migration/reconciliation-view";
import type { Announce } from "@/app/_components/use-announcement";
import { ConfirmDialog } from "@/app/_components/confirm-dialog";
import { Button, Notice, ProgressBar } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { companiesText as companies } from "@/core/words";
import { Step6Parts } from "@/app/_components/engagement/step-6-parts";
import { FreshTokensPanel } from "./fresh-tokens-panel";

/**
 * Step 6 in the portal: the bulk migration followed live (read-only), fresh tokens for the companies
 * that failed on theirs (a supplementary file), and once support has
 * produced the handover report, the customer reads it (counts, companies, printable page, CSV) and
 * acknowledges it, which deletes the tokens and the client secret Ferry held and completes the
 * engagement.
 */
export function Step6Panel({ engagement, step, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  return (
    <Step6Parts
      engagement={engagement}
      viewer="portal"
      parts={{
        run: <BulkProgress engagementId={engagement.id} />,
        reconnections: <Reconnections engagementId={engagement.id} announce={announce} />,
        "fresh-tokens": <FreshTokensPanel engagementId={engagement.id} announce={announce} />,
        handover: <Handover engagement={engagement} step={step} announce={announce} />,
      }}
    />
  );
}

/** The bulk run as support sees it, without the controls; before support starts one, says so. */
function BulkProgress({ engagementId }: { engagementId: string }) {
  const overview = useBulkOverview(engagementId);
  const v = overview.data;
  if (!v) return overview.error ? <Notice tone="error">{toFormError(overview.error).message}</Notice> : <ProgressBar label="Loading the bulk migration" size="sm" />;
  if (!v.run) return <p className="text-sm text-slate-600">Support has not started the bulk migration yet; it runs in the window you agreed in step 2.</p>;
  return (
    <section aria-labelledby="bulk-title" className="space-y-4">
      {/* Named for screen readers: the part's tab above says it on screen. */}
      <h4 id="bulk-title" className="sr-only">
        Bulk migration
      </h4>
      <BulkRunView overview={v} stoppedHint="Support resumes it once the cause is fixed." />
      <BulkItems engagementId={engagementId} live={v.run.active} />
    </section>
  );
}

function Handover({ engagement, step, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  const trpc = useTRPC();
  const view = useQuery(trpc.handover.get.queryOptions({ engagementId: engagement.id }));
  const [acknowledging, setAcknowledging] = useState(false);
  const v = view.data;
  if (!v) return view.error ? <Notice tone="error">{toFormError(view.error).message}</Notice> : <ProgressBar label="Loading the handover" size="sm" />;
  if (!v.handover) {
    if (step.displayState === "locked") return <p className="text-sm text-slate-600">The handover report comes once every company is migrated or set aside.</p>;
    return <p className="text-sm text-slate-600">Your handover report appears here once support has produced it; you will be mailed when it is ready.</p>;
  }
  const h = v.handover;
  return (
    <section id="handover" aria-labelledby="handover-title" className="scroll-mt-24 space-y-4">
      {/* Named for screen readers: the part's tab above says it on screen. */}
      <h4 id="handover-title" className="sr-only">
        Handover report
      </h4>
      <ReconciliationView reconciliation={v.reconciliation} />
      <HandoverRecord view={{ ...v, handover: h }} printHref={`/portal/engagements/${engagement.id}/handover`} />
      {v.actions.acknowledge.allowed ? (
        <div className="space-y-2 rounded-md bg-slate-50 p-3">
          <p className="text-sm text-slate-700">
            Read the report, then acknowledge it. Ferry then deletes every token and the OAuth client secret you gave it
            {h.purgedAt ? " (already deleted automatically)" : `; otherwise they are deleted automatically on ${formatDateTime(h.automaticPurgeAt)}`}.
          </p>
          <Button onClick={() => setAcknowledging(true)}>Acknowledge the handover report</Button>
        </div>
      ) : !h.acknowledgedAt && v.actions.acknowledge.reason ? (
        <p className="text-sm text-slate-600">{v.actions.acknowledge.reason}</p>
      ) : null}
      <HandoverItems engagementId={engagement.id} caption="Companies in the handover report" />
      {acknowledging ? (
        <AcknowledgeDialog
          engagement={engagement}
          total={h.total}
          onClose={() => setAcknowledging(false)}
          onDone={(text) => {
            setAcknowledging(false);
            announce({ tone: "success", text });
          }}
        />
      ) : null}
    </section>
  );
}

function AcknowledgeDialog(props: { engagement: EngagementDetail; total: number; onClose: () => void; onDone: (text: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const engagementId = props.engagement.id;
  const acknowledge = useMutation(trpc.handover.acknowledge.mutationOptions());
  return (
    <ConfirmDialog
      title="Acknowledge the handover report"
      description={`${props.engagement.reference}: ${companies(props.total)}.`}
      confirmLabel="Acknowledge and delete credentials"
      cancelLabel="Not yet"
      pending={acknowledge.isPending}
      error={acknowledge.error}
      onClose={props.onClose}
      confirm={async () => {
        await acknowledge.mutateAsync({ engagementId });
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.handover.get.queryKey({ engagementId }) }),
          queryClient.invalidateQueries({ queryKey: trpc.engagements.get.queryKey({ engagementId }) }),
          queryClient.invalidateQueries({ queryKey: trpc.engagements.timeline.queryKey({ engagementId }) }),
        ]);
        props.onDone("Thank you: the handover report is acknowledged, your tokens and client secret are deleted, and the engagement is completed.");
      }}
    >
      <p>You confirm that you have received the report and will follow up the companies it lists as not migrated.</p>
      <Notice tone="warning" title="Your credentials are then deleted">
        Ferry deletes every token and the OAuth client secret of this engagement for good, and the engagement is completed.
      </Notice>
    </ConfirmDialog>
  );
}
