"use client";
import { useMutation } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Button, Dialog, DialogActions, Field, Form, Notice, Textarea } from "@/app/_components/ui";
import { reopenCascade } from "@/app/_lib/steps";
import { NO_FORM_ERROR, toFormError, type FormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail, StepActionView, StepNumber, StepView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { useEngagementInvalidation } from "./use-engagement-invalidation";

type Announce = (a: { tone: "success" | "error"; text: string }) => void;
type Action = StepActionView["action"];

/** The actions that make sense to offer in each state; the server says which are allowed now. */
function offered(step: StepView): Action[] {
  switch (step.state) {
    case "pending":
      return ["start", "complete"];
    case "in_progress":
      return ["complete", "reopen"];
    case "done":
      return ["reopen"];
    default: {
      const never: never = step.state;
      return never;
    }
  }
}

const LABEL: Record<Action, string> = { start: "Start", complete: "Complete", reopen: "Reopen" };

const stepName = (engagement: EngagementDetail, n: StepNumber) => `step ${n} (${engagement.steps[n - 1]?.title ?? ""})`;

/**
 * Start / Complete / Reopen for one step. Actions that are not allowed stay visible, disabled,
 * with the server's reason beside them, so people see why the checklist is holding them back.
 */
export function StepActions({ engagement, step, onDone }: { engagement: EngagementDetail; step: StepView; onDone: Announce }) {
  const trpc = useTRPC();
  const idBase = useId();
  const invalidate = useEngagementInvalidation(engagement.id);
  const [dialog, setDialog] = useState<"complete" | "reopen" | null>(null);
  const actions = offered(step)
    .map((a) => step.actions.find((x) => x.action === a))
    .filter((a): a is StepActionView => Boolean(a));
  // A locked step refuses Start and Complete for the same open gates; one sentence says it for both.
  const completeReason = actions.find((a) => a.action === "complete")?.reason ?? null;
  const reasonOf = (a: StepActionView) => (step.displayState === "locked" && completeReason ? completeReason : a.reason);
  const reasons = [...new Set(actions.filter((a) => !a.allowed).map(reasonOf).filter((r): r is string => Boolean(r)))];
  const reasonId = (reason: string | null) => (reason ? `${idBase}-why-${reasons.indexOf(reason)}` : undefined);

  const start = useMutation(
    trpc.engagements.step.mutationOptions({
      onSuccess: async () => {
        await invalidate();
        onDone({ tone: "success", text: `Started ${stepName(engagement, step.number)}.` });
      },
      onError: (e) => onDone({ tone: "error", text: toFormError(e).message }),
    }),
  );

  return (
    <div className="space-y-2">
      <div className="flex flex-wrap gap-2">
        {actions.map((a) => (
          <Button
            key={a.action}
            size="sm"
            variant={a.action === "reopen" ? "secondary" : a.action === "complete" ? "primary" : "secondary"}
            disabled={!a.allowed}
            aria-describedby={a.allowed ? undefined : reasonId(reasonOf(a))}
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
      {reasons.length ? (
        <ul className="space-y-1 text-sm text-slate-600">
          {reasons.map((r) => (
            <li key={r} id={reasonId(r)} className="flex gap-1.5">
              <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-slate-400">
                <path d="M10 18a8 8 0 1 0 0-16 8 8 0 0 0 0 16Zm.75-11.5a.75.75 0 1 1-1.5 0 .75.75 0 0 1 1.5 0ZM9.25 9a.75.75 0 0 1 1.5 0v4.25a.75.75 0 0 1-1.5 0V9Z" />
              </svg>
              <span>{r}</span>
            </li>
          ))}
        </ul>
      ) : null}
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
  const [note, setNote] = useState("");
  const [error, setError] = useState<FormError>(NO_FORM_ERROR);
  const complete = useMutation(
    trpc.engagements.step.mutationOptions({
      onSuccess: (result) =>
        onDone(
          `Completed ${stepName(engagement, step.number)}.${result.status === "completed" ? " All six steps are done: the engagement is completed." : ""}`,
        ),
      onError: (e) => setError(toFormError(e)),
    }),
  );
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(NO_FORM_ERROR);
    complete.mutate({ engagementId: engagement.id, step: step.number, action: "complete", note: note.trim() || undefined });
  }
  return (
    <Dialog open onClose={onClose} title={`Complete step ${step.number}: ${step.title}`} description={`Done when: ${step.doneWhen}`}>
      <Form errorKey={error} onSubmit={onSubmit} className="space-y-4">
        {error.message && !error.fields.note ? <Notice tone="error">{error.message}</Notice> : null}
        <Field
          label={needsNote ? "How did the customer confirm?" : "Evidence note"}
          required={needsNote}
          error={error.fields.note}
          hint={
            needsNote
              ? "This is the customer's step; you are completing it on their behalf. Say how they confirmed (e.g. email of 3 May)."
              : "Optional. What shows the step is done; recorded with the step and in the audit timeline."
          }
        >
          {(p) => <Textarea {...p} name="note" value={note} onChange={(e) => setNote(e.target.value)} />}
        </Field>
        <DialogActions>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" pending={complete.isPending}>
            Complete step {step.number}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}

function ReopenDialog({
  engagement,
  step,
  onClose,
  onDone,
}: {
  engagement: EngagementDetail;
  step: StepView;
  onClose: () => void;
  onDone: (text: string) => Promise<void>;
}) {
  const trpc = useTRPC();
  const [reason, setReason] = useState("");
  const [error, setError] = useState<FormError>(NO_FORM_ERROR);
  const cascade = reopenCascade(engagement.steps, step.number);
  const reopen = useMutation(
    trpc.engagements.step.mutationOptions({
      onSuccess: (result) => {
        const also = result.changed.filter((n) => n !== step.number);
        return onDone(
          `Reopened ${stepName(engagement, step.number)}.${also.length ? ` Also reopened ${also.map((n) => stepName(engagement, n)).join(", ")}.` : ""}`,
        );
      },
      onError: (e) => setError(toFormError(e)),
    }),
  );
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(NO_FORM_ERROR);
    reopen.mutate({ engagementId: engagement.id, step: step.number, action: "reopen", reason: reason.trim() || undefined });
  }
  return (
    <Dialog open onClose={onClose} title={`Reopen step ${step.number}: ${step.title}`} description="The step goes back to pending and its completion record is cleared.">
      <Form errorKey={error} onSubmit={onSubmit} className="space-y-4">
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
        {error.message && !error.fields.reason ? <Notice tone="error">{error.message}</Notice> : null}
        <Field label="Reason" required error={error.fields.reason} hint="Shown on the step and in the audit timeline.">
          {(p) => <Textarea {...p} name="reason" value={reason} onChange={(e) => setReason(e.target.value)} />}
        </Field>
        <DialogActions>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" variant="danger" pending={reopen.isPending}>
            Reopen step {step.number}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
