"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { HandoverItems } from "@/app/_components/handover/handover-items";
import { HandoverRecord } from "@/app/_components/handover/handover-record";
import { ReconciliationView } from "@/app/_components/migration/reconciliation-view";
import { TextDialog } from "@/app/_components/text-dialog";
import type { Announce } from "@/app/_components/use-announcement";
import { ConfirmDialog } from "@/app/_components/confirm-dialog";
import { Button, Notice, ProgressBar } from "@/app/_components/ui";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { companiesText as companies } from "@/core/words";
import { reconciliationInWords, type Reconciliation } from "@/core/migration/reconciliation";
import { useEngagementInvalidation } from "../use-engagement-invalidation";

/** Marks stale what a handover change affects: the handover, its companies, and the engagement. */
export function useHandoverInvalidation(engagementId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const engagement = useEngagementInvalidation(engagementId);
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.handover.get.queryKey({ engagementId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.handover.items.pathKey() }),
      engagement(),
    ]);
}

/**
 * Step 6's handover in the console: the companies per state, producing the report once every one
 * is final (and no bulk run is active), then the report's record, its companies, and recording
 * the customer's acknowledgement for them when it came another way. While step 6 is locked and
 * no report exists, when it can be.
 */
export function HandoverSection({ engagement, locked, announce }: { engagement: EngagementDetail; locked: boolean; announce: Announce }) {
  const trpc = useTRPC();
  const reasonId = useId();
  const view = useQuery(trpc.handover.get.queryOptions({ engagementId: engagement.id }));
  const [dialog, setDialog] = useState<"confirm" | "acknowledge" | null>(null);
  const v = view.data;
  if (!v) return view.error ? <Notice tone="error">{toFormError(view.error).message}</Notice> : <ProgressBar label="Loading the handover" size="sm" />;
  if (locked && !v.handover) return <p className="text-sm text-slate-600">The handover report can be produced once step 5 has passed and every company is migrated or set aside.</p>;

  return (
    <section id="handover" aria-labelledby="handover-title" className="scroll-mt-24 space-y-4">
      {/* Named for screen readers: the part's tab above says it on screen. */}
      <h4 id="handover-title" className="sr-only">
        Handover report
      </h4>
      {v.handover ? (
        <>
          <ReconciliationView reconciliation={v.reconciliation} />
          <HandoverRecord view={{ ...v, handover: v.handover }} printHref={`/engagements/${engagement.id}/handover`} />
          {v.actions.acknowledge.allowed ? (
            <Button variant="secondary" size="sm" onClick={() => setDialog("acknowledge")}>
              Record the customer&apos;s acknowledgement
            </Button>
          ) : null}
          <HandoverItems engagementId={engagement.id} caption="Companies in the handover report" />
        </>
      ) : (
        <>
          <ReconciliationView reconciliation={v.reconciliation} />
          <div className="space-y-2">
            <Button
              disabled={!v.actions.confirm.allowed}
              aria-describedby={v.actions.confirm.allowed ? undefined : reasonId}
              onClick={() => setDialog("confirm")}
            >
              Produce handover report
            </Button>
            {v.actions.confirm.reason ? (
              <p id={reasonId} className="text-sm text-slate-600">
                {v.actions.confirm.reason}
              </p>
            ) : null}
          </div>
          {v.actions.confirm.allowed ? <HandoverItems engagementId={engagement.id} caption="Preview of the handover report's companies" /> : null}
        </>
      )}
      {dialog === "confirm" ? (
        <ProduceDialog
          engagement={engagement}
          reconciliation={v.reconciliation}
          onClose={() => setDialog(null)}
          onDone={(text) => {
            setDialog(null);
            announce({ tone: "success", text });
          }}
        />
      ) : null}
      {dialog === "acknowledge" ? (
        <AcknowledgeDialog
          engagement={engagement}
          onClose={() => setDialog(null)}
          onDone={(text) => {
            setDialog(null);
            announce({ tone: "success", text });
          }}
        />
      ) : null}
    </section>
  );
}

function ProduceDialog(props: {
  engagement: EngagementDetail;
  reconciliation: Reconciliation;
  onClose: () => void;
  onDone: (text: string) => void;
}) {
  const trpc = useTRPC();
  const invalidate = useHandoverInvalidation(props.engagement.id);
  const confirm = useMutation(trpc.handover.confirm.mutationOptions());
  return (
    <ConfirmDialog
      title={`Produce the handover report of ${props.engagement.reference}`}
      description={`${reconciliationInWords(props.reconciliation)}.`}
      confirmLabel="Produce report"
      cancelLabel="Not yet"
      pending={confirm.isPending}
      error={confirm.error}
      onClose={props.onClose}
      confirm={async () => {
        await confirm.mutateAsync({ engagementId: props.engagement.id });
        await invalidate();
        props.onDone("The handover report is produced and the customer has been mailed.");
      }}
    >
      <p>
        The report maps every company to its companyId and connectionId, with its checks, and for the ones not migrated why and what the customer must
        do. The customer is mailed that it is ready, to read and acknowledge it in the portal.
      </p>
      <p>Acknowledging it deletes the engagement&apos;s tokens and client secret and completes the engagement.</p>
    </ConfirmDialog>
  );
}

function AcknowledgeDialog({ engagement, onClose, onDone }: { engagement: EngagementDetail; onClose: () => void; onDone: (text: string) => void }) {
  const trpc = useTRPC();
  const invalidate = useHandoverInvalidation(engagement.id);
  const acknowledge = useMutation(trpc.handover.acknowledgeOnBehalf.mutationOptions());
  return (
    <TextDialog
      title="Record the customer's acknowledgement"
      description="When the customer acknowledged the report another way (by email, on a call)."
      label="How did the customer acknowledge it?"
      required
      hint="Recorded as step 6's evidence and in the audit timeline."
      field="note"
      submitLabel="Record acknowledgement and purge credentials"
      variant="danger"
      pending={acknowledge.isPending}
      onClose={onClose}
      submit={async (note) => {
        const result = await acknowledge.mutateAsync({ engagementId: engagement.id, note });
        await invalidate();
        onDone(
          `Acknowledgement recorded: the credentials of ${companies(result.purged.items)} were purged${result.status === "completed" ? " and the engagement is completed" : ""}.`,
        );
      }}
    >
      <Notice tone="warning" title="This cannot be undone">
        Every token and the OAuth client secret of {engagement.reference} are deleted, and step 6 and the engagement complete.
      </Notice>
    </TextDialog>
  );
}
