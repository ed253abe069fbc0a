"use client";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { TextDialog } from "@/app/_components/text-dialog";
import type { Announce } from "@/app/_components/use-announcement";
import { Button, Notice } from "@/app/_components/ui";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail, StepActionView, StepNumber, StepView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { useEngagementInvalidation } from "./use-engagement-invalidation";

type Action = StepActionView["action"];

const LABEL: Record<Action, string> = { start: "Start", complete: "Complete", reopen: "Reopen" };

const stepName = (engagement: EngagementDetail, n: StepNumber) => `step ${n} (${engagement.steps[n - 1]?.title ?? ""})`;

/**
 * Start / Complete / Reopen for one step: exactly the actions the server says the checklist allows
 * the viewer now, so no button is offered that would be refused (a locked step says what it waits
 * for instead; see the checklist's step card).
 */
export function StepActions({ engagement, step, onDone }: { engagement: EngagementDetail; step: StepView; onDone: Announce }) {
  const trpc = useTRPC();
  const invalidate = useEngagementInvalidation(engagement.id);
  const [dialog, setDialog] = useState<"complete" | "reopen" | null>(null);
  const actions = step.actions;

  const start = useMutation(
    trpc.engagements.step.mutationOptions({
      onSuccess: async () => {
        await invalidate();
        onDone({ tone: "success", text: `Started ${stepName(engagement, step.number)}.` });
      },
      onError: (e) => onDone({ tone: "error", text: toFormError(e).message }),
    }),
  );

  if (!actions.length) return null;
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap gap-2">
        {actions.map((a) => (
          <Button
            key={a.action}
            size="sm"
            variant={a.action === "complete" ? "primary" : "secondary"}
            pending={a.action === "start" && start.isPending}
            onClick={() => {
              if (a.action === "start") start.mutate({ engagementId: engagement.id, step: step.number, action: "start" });
              else setDialog(a.action);
            }}
          >
            {LABEL[a.action]}
            <span className="sr-only"> step {step.number}</span>
          </Button>
        ))}
      </div>
      {dialog === "complete" ? (
        <CompleteDialog
          engagement={engagement}
          step={step}
          needsNote={actions.find((a) => a.action === "complete")?.needsNote ?? false}
          onClose={() => setDialog(null)}
          onDone={async (text) => {
            await invalidate();
            setDialog(null);
            onDone({ tone: "success", text });
          }}
        />
      ) : null}
      {dialog === "reopen" ? (
        <ReopenDialog
          engagement={engagement}
          step={step}
          cascade={actions.find((a) => a.action === "reopen")?.cascade ?? []}
          onClose={() => setDialog(null)}
          onDone={async (text) => {
            await invalidate();
            setDialog(null);
            onDone({ tone: "success", text });
          }}
        />
      ) : null}
    </div>
  );
}

function CompleteDialog({
  engagement,
  step,
  needsNote,
  onClose,
  onDone,
}: {
  engagement: EngagementDetail;
  step: StepView;
  needsNote: boolean;
  onClose: () => void;
  onDone: (text: string) => Promise<void>;
}) {
  const trpc = useTRPC();
  const complete = useMutation(trpc.engagements.step.mutationOptions());
  return (
    <TextDialog
      title={`Complete step ${step.number}: ${step.title}`}
      description={`Done when: ${step.doneWhen}`}
      label={needsNote ? "How did the customer confirm?" : "Evidence note"}
      required={needsNote}
      hint={
        needsNote
          ? "This is the customer's step; you are completing it on their behalf. Say how they confirmed (e.g. email of 3 May)."
          : "Optional. What shows the step is done; recorded with the step and in the audit timeline."
      }
      field="note"
      submitLabel={`Complete step ${step.number}`}
      pending={complete.isPending}
      onClose={onClose}
      submit={async (note) => {
        const result = await complete.mutateAsync({ engagementId: engagement.id, step: step.number, action: "complete", note });
        await onDone(`Completed ${stepName(engagement, step.number)}.${result.status === "completed" ? " All six steps are done: the engagement is completed." : ""}`);
      }}
    />
  );
}

function ReopenDialog({
  engagement,
  step,
  cascade,
  onClose,
  onDone,
}: {
  engagement: EngagementDetail;
  step: StepView;
  /** The other steps a reopen resets, as the server says. */
  cascade: StepNumber[];
  onClose: () => void;
  onDone: (text: string) => Promise<void>;
}) {
  const trpc = useTRPC();
  const reopen = useMutation(trpc.engagements.step.mutationOptions());
  return (
    <TextDialog
      title={`Reopen step ${step.number}: ${step.title}`}
      description="The step goes back to pending and its completion record is cleared."
      label="Reason"
      required
      hint="Shown on the step and in the audit timeline."
      field="reason"
      submitLabel={`Reopen step ${step.number}`}
      variant="danger"
      pending={reopen.isPending}
      onClose={onClose}
      submit={async (reason) => {
        const result = await reopen.mutateAsync({ engagementId: engagement.id, step: step.number, action: "reopen", reason });
        const also = result.changed.filter((n) => n !== step.number);
        await onDone(`Reopened ${stepName(engagement, step.number)}.${also.length ? ` Also reopened ${also.map((n) => stepName(engagement, n)).join(", ")}.` : ""}`);
      }}
    >
      {cascade.length ? (
        <Notice tone="warning" title="Dependent steps reopen too">
          <p>Steps gated on this one go back to pending as well:</p>
          <ul className="mt-1 list-disc pl-5">
            {cascade.map((n) => (
              <li key={n}>{stepName(engagement, n)}</li>
            ))}
          </ul>
        </Notice>
      ) : (
        <p className="text-sm text-slate-600">No step that depends on this one has started, so only this step changes.</p>
      )}
    </TextDialog>
  );
}
