"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useFieldArray } from "react-hook-form";
import { UtcTimeField } from "@/app/_components/intake/utc-time-field";
import { DeclineList } from "@/app/_components/intake/window-declines";
import { useFlowInvalidation } from "@/app/_components/engagement/use-flow-invalidation";
import { EstimatePanel } from "@/app/_components/intake/estimate-panel";
import { WindowTable } from "@/app/_components/intake/window-table";
import { TextDialog } from "@/app/_components/text-dialog";
import { Button, Field, Form, Notice, ProgressBar, Textarea } from "@/app/_components/ui";
import { fieldMessage, formMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import type { Announce } from "@/app/_components/use-announcement";
import { formatDateTime, formatDuration } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail, StepView, WindowPlan } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { plural } from "@/core/words";
import { formatUtcField, parseUtcField, windowFromFields, ZProposeWindowsForm } from "@/app/_lib/utc-time";
import { MAX_WINDOWS_PER_PROPOSAL } from "@/core/engagements/window-schemas";
import type { Overlap } from "@/core/engagements/calendar-schemas";

/** Step 2 in the console: the estimate, the windows proposed so far, proposing more, rescheduling the agreed one. */
export function ConsoleStep2Panel({ engagement, step, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  const trpc = useTRPC();
  const plan = useQuery({ ...trpc.windows.plan.queryOptions({ engagementId: engagement.id }), enabled: step.displayState !== "locked" });
  const invalidate = useFlowInvalidation(engagement.id);
  const [rescheduling, setRescheduling] = useState(false);
  // Times the customer suggested, taken into the proposal form (a new key starts the form afresh with them).
  const [taken, setTaken] = useState<{ key: number; windows: { startsAt: Date; endsAt: Date }[] } | null>(null);
  const withdraw = useMutation(
    trpc.windows.withdraw.mutationOptions({
      onSuccess: async () => {
        await invalidate();
        announce({ tone: "success", text: "Withdrew the proposed window." });
      },
      onError: (e) => announce({ tone: "error", text: toFormError(e).message }),
    }),
  );
  const reschedule = useMutation(trpc.windows.reschedule.mutationOptions());
  if (step.displayState === "locked") return null;
  const p = plan.data;
  if (!p) return plan.error ? <Notice tone="error">{toFormError(plan.error).message}</Notice> : <ProgressBar label="Loading the windows" size="sm" />;
  const shown = p.windows.filter((w) => w.status !== "superseded" || p.windows.length <= 6);
  return (
    <div className="space-y-4">
      <DeclineList
        declines={p.declines}
        viewer="console"
        onPropose={p.propose.allowed ? (windows) => setTaken((t) => ({ key: (t?.key ?? 0) + 1, windows })) : undefined}
      />
      {p.estimate ? <EstimatePanel estimate={p.estimate} /> : <p className="text-sm text-slate-600">The estimate appears once the customer has submitted a token file.</p>}
      <WindowTable
        engagementId={engagement.id}
        windows={shown}
        actions={(w) =>
          w.status === "proposed" && p.withdraw.allowed ? (
            <Button variant="ghost" size="sm" pending={withdraw.isPending && withdraw.variables?.windowId === w.id} onClick={() => withdraw.mutate({ engagementId: engagement.id, windowId: w.id })}>
              Withdraw<span className="sr-only"> the window starting {formatDateTime(w.startsAt)}</span>
            </Button>
          ) : null
        }
      />
      {p.agreed && p.reschedule.allowed ? (
        <Button variant="secondary" onClick={() => setRescheduling(true)}>
          Reschedule the window
        </Button>
      ) : null}
      {p.propose.allowed ? (
        <ProposeForm key={taken?.key ?? 0} engagement={engagement} plan={p} announce={announce} initial={taken?.windows} />
      ) : p.agreed ? null : (
        <p className="text-sm text-slate-600">{p.propose.reason}</p>
      )}
      {rescheduling && p.agreed ? (
        <TextDialog
          title="Reschedule the migration window"
          description={`The agreed window ${formatDateTime(p.agreed.startsAt)} – ${formatDateTime(p.agreed.endsAt)} is cancelled: step 2 reopens (with any step gated on it) and the customer is told why. Then propose new windows.`}
          label="Reason"
          required
          hint="The customer sees it and is mailed it; it is recorded on the step and in the timeline."
          field="reason"
          submitLabel="Reschedule"
          variant="danger"
          pending={reschedule.isPending}
          onClose={() => setRescheduling(false)}
          submit={async (reason) => {
            await reschedule.mutateAsync({ engagementId: engagement.id, reason: reason ?? "" });
            await invalidate();
            setRescheduling(false);
            announce({ tone: "success", text: "Step 2 is open again: propose a new window." });
          }}
        />
      ) : null}
    </div>
  );
}

/** A window the form starts with: next Saturday 22:00 UTC, for long enough to fit the estimate (at least 4 hours). */
function suggestedWindow(plan: WindowPlan): { startsAt: string; endsAt: string } {
  const start = new Date();
  start.setUTCDate(start.getUTCDate() + ((6 - start.getUTCDay() + 7) % 7 || 7));
  start.setUTCHours(22, 0, 0, 0);
  const hours = Math.max(4, Math.ceil(((plan.estimate?.totalSeconds ?? 0) * 1.5) / 3600));
  return { startsAt: formatUtcField(start), endsAt: formatUtcField(new Date(start.getTime() + hours * 3_600_000)) };
}

function ProposeForm({
  engagement,
  plan,
  announce,
  initial,
}: {
  engagement: EngagementDetail;
  plan: WindowPlan;
  announce: Announce;
  /** Windows to start from (times the customer suggested); else Ferry's suggestion. */
  initial?: { startsAt: Date; endsAt: Date }[];
}) {
  const trpc = useTRPC();
  const invalidate = useFlowInvalidation(engagement.id);
  const propose = useMutation(trpc.windows.propose.mutationOptions());
  const queryClient = useQueryClient();
  // Windows that would overfill the target with other engagements' windows: shown before sending, then sent on a second press.
  const [warning, setWarning] = useState<{ times: string; flags: (Overlap | null)[] } | null>(null);
  const [checking, setChecking] = useState(false);
  const start = initial?.length
    ? initial.slice(0, MAX_WINDOWS_PER_PROPOSAL).map((w) => ({ startsAt: formatUtcField(w.startsAt), endsAt: formatUtcField(w.endsAt) }))
    : [suggestedWindow(plan)];
  const form = useZodForm(ZProposeWindowsForm, { defaultValues: { windows: start, note: "" } });
  const windows = useFieldArray({ control: form.control, name: "windows" });
  const values = form.watch("windows");
  const estimate = plan.estimate?.totalSeconds ?? 0;
  // The warning stands for the times it was given for: any change of times asks again.
  const timesKey = JSON.stringify(values);
  const warned = warning?.times === timesKey ? warning.flags : null;

  const onSubmit = form.handleSubmit(async (v) => {
    try {
      const times = v.windows.map(windowFromFields);
      if (!warned) {
        setChecking(true);
        const check = await queryClient.fetchQuery({ ...trpc.windows.checkOverlaps.queryOptions({ engagementId: engagement.id, windows: times }), staleTime: 0 }).finally(() => setChecking(false));
        if (check.windows.some(Boolean)) {
          setWarning({ times: timesKey, flags: check.windows });
          return;
        }
      }
      await propose.mutateAsync({ engagementId: engagement.id, windows: times, note: v.note || undefined });
      await invalidate();
      form.reset({ windows: [suggestedWindow(plan)], note: "" });
      announce({ tone: "success", text: `Proposed ${plural(v.windows.length, { one: "the window", other: `${v.windows.length} windows` })}; the customer is mailed to accept one.` });
    } catch (e) {
      showServerError(form, e);
    }
  });

  return (
    <Form onSubmit={onSubmit} className="space-y-4 rounded-md border border-slate-200 p-4" aria-label="Propose migration windows">
      <h4 className="font-semibold text-slate-900">Propose {plan.windows.some((w) => w.status === "proposed") ? "more windows" : "a window"}</h4>
      {formMessage(form) ? <Notice tone="error">{formMessage(form)}</Notice> : null}
      {windows.fields.map((f, i) => {
        const w = values[i];
        const from = w ? parseUtcField(w.startsAt) : null;
        const to = w ? parseUtcField(w.endsAt) : null;
        const seconds = from && to ? (to.getTime() - from.getTime()) / 1000 : NaN;
        return (
          <fieldset key={f.id} className="grid items-start gap-3 sm:grid-cols-[1fr_1fr_auto]">
            <legend className="sr-only">Window {i + 1}</legend>
            <UtcTimeField label={`Window ${i + 1} start (UTC)`} value={w?.startsAt} error={fieldMessage(form, `windows.${i}.startsAt`)} input={form.register(`windows.${i}.startsAt`)} />
            <UtcTimeField
              label={`Window ${i + 1} end (UTC)`}
              value={w?.endsAt}
              error={fieldMessage(form, `windows.${i}.endsAt`)}
              input={form.register(`windows.${i}.endsAt`)}
              extra={
                Number.isFinite(seconds) && seconds > 0 ? (
                  seconds < estimate ? (
                    <span className="font-medium text-amber-800">
                      {formatDuration(seconds)}: shorter than the estimate ({formatDuration(estimate)})
                    </span>
                  ) : (
                    `${formatDuration(seconds)}; the estimate is ${formatDuration(estimate)}`
                  )
                ) : undefined
              }
            />
            {windows.fields.length > 1 ? (
              <Button variant="ghost" size="sm" className="sm:mt-7" onClick={() => windows.remove(i)} aria-label={`Remove window ${i + 1}`}>
                Remove
              </Button>
            ) : null}
          </fieldset>
        );
      })}
      {windows.fields.length < MAX_WINDOWS_PER_PROPOSAL ? (
        <Button variant="secondary" size="sm" onClick={() => windows.append(suggestedWindow(plan))}>
          Add another window
        </Button>
      ) : null}
      <Field label="Note for the customer" hint="Optional; sent with the proposal.">
        {(p) => <Textarea {...p} rows={2} {...form.register("note")} />}
      </Field>
      {warned ? (
        <Notice tone="warning" title="These times would overfill the service target with other engagements' windows">
          <ul className="list-disc space-y-1 pl-5">
            {warned.map((f, i) =>
              f ? (
                <li key={i}>
                  Window {i + 1}: {f.text}
                </li>
              ) : null,
            )}
          </ul>
          <p className="mt-2">Choose other times, or propose them anyway: the runs would share the target&apos;s limits and take longer.</p>
        </Notice>
      ) : null}
      <Button type="submit" pending={checking || propose.isPending}>
        {warned ? "Propose anyway" : "Propose to the customer"}
      </Button>
    </Form>
  );
}
