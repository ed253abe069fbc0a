"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useFieldArray } from "react-hook-form";
import { ConfirmDialog } from "@/app/_components/confirm-dialog";
import { FormDialog } from "@/app/_components/form-dialog";
import { UtcTimeField } from "@/app/_components/intake/utc-time-field";
import { DeclineList } from "@/app/_components/intake/window-declines";
import { useFlowInvalidation } from "@/app/_components/engagement/use-flow-invalidation";
import { EstimatePanel } from "@/app/_components/intake/estimate-panel";
import { WindowTable } from "@/app/_components/intake/window-table";
import { Button, Field, Notice, ProgressBar, Textarea } from "@/app/_components/ui";
import { fieldMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import type { Announce } from "@/app/_components/use-announcement";
import { formatDateTime } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail, StepView, WindowPlan, WindowView } from "@/app/_lib/types";
import { formatUtcField, parseUtcField, windowFromFields, ZDeclineWindowsForm } from "@/app/_lib/utc-time";
import { MAX_SUGGESTED_WINDOWS } from "@/core/engagements/window-schemas";
import { useTRPC } from "@/app/_trpc/react";
import { plural } from "@/core/words";

/**
 * Step 2 in the portal: the estimate, the windows support proposed (accept one, or decline them
 * all with a reason and times that would suit), earlier declines, the invites.
 */
export function PortalStep2Panel({ engagement, step, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  const trpc = useTRPC();
  const plan = useQuery({ ...trpc.windows.plan.queryOptions({ engagementId: engagement.id }), enabled: step.displayState !== "locked" });
  const invalidate = useFlowInvalidation(engagement.id);
  const [accepting, setAccepting] = useState<WindowView | null>(null);
  const [declining, setDeclining] = useState(false);
  const accept = useMutation(trpc.windows.accept.mutationOptions());
  if (step.displayState === "locked") return null;
  const p = plan.data;
  if (!p) return plan.error ? <Notice tone="error">{toFormError(plan.error).message}</Notice> : <ProgressBar label="Loading the windows" size="sm" />;
  const open = p.windows.filter((w) => w.status === "proposed" || w.status === "accepted");
  const waitingForNew = !p.agreed && !open.length && p.declines.some((d) => !d.answered);
  return (
    <div className="space-y-4">
      <DeclineList declines={p.declines} viewer="portal" />
      {p.estimate ? <EstimatePanel estimate={p.estimate} /> : null}
      {p.agreed ? (
        <Notice tone="success" title="Agreed window">
          {formatDateTime(p.agreed.startsAt)} to {formatDateTime(p.agreed.endsAt)}.
        </Notice>
      ) : open.length ? (
        <p className="text-sm text-slate-700">
          Ferry support proposed {plural(open.length, { one: "this window", other: "these windows" })}.{" "}
          {p.accept.allowed || p.decline.allowed ? (
            <>
              Accept the one that suits you, or decline {plural(open.length, { one: "it", other: "them" })} and say what would suit.
            </>
          ) : (
            (p.accept.reason ?? p.decline.reason)
          )}
        </p>
      ) : waitingForNew ? null : (
        <p className="text-sm text-slate-700">Ferry support will propose a migration window once your token file is accepted.</p>
      )}
      <WindowTable
        engagementId={engagement.id}
        windows={open}
        actions={(w) =>
          w.status === "proposed" && p.accept.allowed ? (
            <Button
              size="sm"
              onClick={() => {
                accept.reset();
                setAccepting(w);
              }}
            >
              Accept this window<span className="sr-only"> starting {formatDateTime(w.startsAt)}</span>
            </Button>
          ) : null
        }
      />
      {p.decline.allowed ? (
        <Button variant="secondary" onClick={() => setDeclining(true)}>
          None of these suit us
        </Button>
      ) : null}
      {declining ? (
        <DeclineDialog
          engagement={engagement}
          plan={p}
          onClose={() => setDeclining(false)}
          onDone={async () => {
            await invalidate();
            setDeclining(false);
            announce({ tone: "success", text: "You declined the proposed windows. Ferry support is told why and proposes new ones." });
          }}
        />
      ) : null}
      {accepting ? (
        <ConfirmDialog
          title="Accept this migration window?"
          description={`${formatDateTime(accepting.startsAt)} to ${formatDateTime(accepting.endsAt)}.`}
          confirmLabel="Accept this window"
          cancelLabel="Not yet"
          pending={accept.isPending}
          error={accept.error}
          onClose={() => setAccepting(null)}
          confirm={async () => {
            await accept.mutateAsync({ engagementId: engagement.id, windowId: accepting.id });
            await invalidate();
            setAccepting(null);
            announce({ tone: "success", text: "You accepted the migration window. Step 2 is done." });
          }}
        >
          <p>Ferry support migrates your companies in this window; any other window proposed is no longer offered.</p>
          <p>
            To move it afterwards, contact {p.contact.name}
            {p.contact.email ? ` at ${p.contact.email}` : ""}: support reschedules it with you.
          </p>
        </ConfirmDialog>
      ) : null}
      <p className="text-xs text-slate-600">
        To move the window, contact {p.contact.name}
        {p.contact.email ? (
          <>
            {" "}
            at{" "}
            <a className="text-indigo-700 underline" href={`mailto:${p.contact.email}`}>
              {p.contact.email}
            </a>
          </>
        ) : null}
        .
      </p>
    </div>
  );
}

/**
 * Declining every proposed window: why (required) and up to three times that would suit, each a
 * start and an end typed in UTC. The server checks them as it checks a proposal (in the future, a
 * sensible length) and puts its refusal on the field it names.
 */
function DeclineDialog({ engagement, plan, onClose, onDone }: { engagement: EngagementDetail; plan: WindowPlan; onClose: () => void; onDone: () => Promise<void> }) {
  const trpc = useTRPC();
  const decline = useMutation(trpc.windows.decline.mutationOptions());
  const form = useZodForm(ZDeclineWindowsForm, { defaultValues: { reason: "", suggested: [] } });
  const suggested = useFieldArray({ control: form.control, name: "suggested" });
  const values = form.watch("suggested");
  const proposed = plan.windows.filter((w) => w.status === "proposed");
  const onSubmit = form.handleSubmit(async (v) => {
    try {
      await decline.mutateAsync({ engagementId: engagement.id, reason: v.reason, suggested: v.suggested.map(windowFromFields) });
      await onDone();
    } catch (e) {
      showServerError(form, e);
    }
  });
  return (
    <FormDialog
      title="Decline the proposed windows"
      description={`${plural(proposed.length, { one: "The window", other: `All ${proposed.length} windows` })} Ferry support proposed will no longer be offered; support is told why and proposes new ones.`}
      form={form}
      onSubmit={onSubmit}
      submitLabel="Decline and send"
      cancelLabel="Keep them"
      pending={decline.isPending}
      onClose={onClose}
    >
      <Field label="Why do these windows not suit you?" required error={fieldMessage(form, "reason")} hint="Ferry support reads it, and it is kept in the engagement's activity.">
        {(p) => <Textarea {...p} rows={3} {...form.register("reason")} />}
      </Field>
      <fieldset className="space-y-3">
        <legend className="text-sm font-medium text-slate-800">Times that would suit you (optional, UTC)</legend>
        {suggested.fields.map((f, i) => (
          <div key={f.id} className="space-y-2 rounded-md border border-slate-200 p-3">
            <div className="flex items-center justify-between gap-2">
              <p className="text-sm font-medium text-slate-800">Time {i + 1}</p>
              <Button variant="ghost" size="sm" onClick={() => suggested.remove(i)} aria-label={`Remove time ${i + 1}`}>
                Remove
              </Button>
            </div>
            <UtcTimeField label={`Time ${i + 1} could start (UTC)`} value={values[i]?.startsAt} error={fieldMessage(form, `suggested.${i}.startsAt`)} input={form.register(`suggested.${i}.startsAt`)} />
            <UtcTimeField label={`Time ${i + 1} could end (UTC)`} value={values[i]?.endsAt} error={fieldMessage(form, `suggested.${i}.endsAt`)} input={form.register(`suggested.${i}.endsAt`)} />
          </div>
        ))}
        {suggested.fields.length < MAX_SUGGESTED_WINDOWS ? (
          <Button variant="secondary" size="sm" onClick={() => suggested.append(suggestionAfter(proposed, values, Date.now()))}>
            {suggested.fields.length ? "Suggest another time" : "Suggest a time"}
          </Button>
        ) : null}
      </fieldset>
    </FormDialog>
  );
}

/**
 * A time to start the customer's suggestion from: a day after the last one they suggested, else
 * after the last proposed window (else a week from `now`), as long as that window was.
 */
function suggestionAfter(proposed: readonly WindowView[], typed: readonly { startsAt: string; endsAt: string }[], now: number): { startsAt: string; endsAt: string } {
  const last = proposed.at(-1);
  const length = last ? last.endsAt.getTime() - last.startsAt.getTime() : 8 * 3_600_000;
  const lastTyped = typed.length ? parseUtcField(typed.at(-1)!.startsAt) : null;
  const base = lastTyped?.getTime() ?? last?.startsAt.getTime() ?? now + 6 * 86_400_000;
  const from = new Date(base + 86_400_000);
  from.setUTCMinutes(0, 0, 0);
  return { startsAt: formatUtcField(from), endsAt: formatUtcField(new Date(from.getTime() + length)) };
}
