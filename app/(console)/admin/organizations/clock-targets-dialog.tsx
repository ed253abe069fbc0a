"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { FormDialog } from "@/app/_components/form-dialog";
import { Field, Input, Notice } from "@/app/_components/ui";
import { fieldMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import { useTRPC } from "@/app/_trpc/react";
import { STEP_NUMBERS } from "@/core/engagements/states";
import { stepDefinition } from "@/core/engagements/steps";
import { z } from "zod";
import { ZStaleDays, ZStepTargets } from "@/server/api/routers/accounts.types";
import type { ClockTargets } from "@/core/engagements/clocks";

/** The form holds the six steps as a list (its fields' names are then steps.0.customer…). */
const ZTargetsForm = z.object({ steps: z.array(ZStepTargets).length(6), staleAfterDays: ZStaleDays });

/** Hours as days where they are whole days ("120 hours (5 days)"). */
const inDays = (hours: number) => (hours % 24 === 0 ? ` (${hours / 24} ${hours === 24 ? "day" : "days"})` : "");

/**
 * An organisation's move targets: the hours each party has for its move in each step, and the
 * days without a change after which an engagement is stale. The portfolio's clocks read them.
 */
export function ClockTargetsDialog({ organization, onClose, onSaved }: { organization: { id: string; name: string }; onClose: () => void; onSaved: (text: string) => void }) {
  const trpc = useTRPC();
  const current = useQuery(trpc.organizations.clockTargets.queryOptions({ organizationId: organization.id }));
  if (!current.data) {
    return current.error ? <Notice tone="error">{current.error.message}</Notice> : null;
  }
  return <TargetsForm organization={organization} targets={current.data.targets} defaults={current.data.defaults} onClose={onClose} onSaved={onSaved} />;
}

function TargetsForm(props: { organization: { id: string; name: string }; targets: ClockTargets; defaults: ClockTargets; onClose: () => void; onSaved: (text: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(ZTargetsForm, { defaultValues: { steps: STEP_NUMBERS.map((s) => props.targets.steps[s]), staleAfterDays: props.targets.staleAfterDays } });
  const save = useMutation(trpc.organizations.setClockTargets.mutationOptions());
  const onSubmit = form.handleSubmit(async (values) => {
    const steps = Object.fromEntries(values.steps.map((t, i) => [i + 1, t])) as ClockTargets["steps"];
    const targets: ClockTargets = { steps, staleAfterDays: values.staleAfterDays };
    try {
      await save.mutateAsync({ organizationId: props.organization.id, targets });
      await queryClient.invalidateQueries({ queryKey: trpc.organizations.clockTargets.queryKey({ organizationId: props.organization.id }) });
      await queryClient.invalidateQueries({ queryKey: trpc.portfolio.get.queryKey() });
      props.onSaved(`Saved the move targets of ${props.organization.name}.`);
      props.onClose();
    } catch (e) {
      showServerError(form, e);
    }
  });
  const number = { valueAsNumber: true } as const;
  return (
    <FormDialog
      title={`Move targets: ${props.organization.name}`}
      description="Hours each side has for its move in each step. A move is at risk with less than a quarter of its time left and late past it; the clock pauses on hold and while it is the other side's move."
      form={form}
      onSubmit={onSubmit}
      submitLabel="Save targets"
      pending={save.isPending}
      onClose={props.onClose}
    >
      <div className="space-y-3">
        {STEP_NUMBERS.map((step) => (
          <fieldset key={step} className="grid grid-cols-1 gap-3 sm:grid-cols-2">
            <legend className="mb-1 text-sm font-semibold text-slate-900">
              Step {step}: {stepDefinition(step).title}
            </legend>
            <Field label="Customer (hours)" error={fieldMessage(form, `steps.${step - 1}.customer` as const)} hint={`Default ${props.defaults.steps[step].customer}${inDays(props.defaults.steps[step].customer)}`}>
              {(p) => <Input {...p} type="number" inputMode="numeric" min={1} step={1} {...form.register(`steps.${step - 1}.customer` as const, number)} />}
            </Field>
            <Field label="Support (hours)" error={fieldMessage(form, `steps.${step - 1}.support` as const)} hint={`Default ${props.defaults.steps[step].support}${inDays(props.defaults.steps[step].support)}`}>
              {(p) => <Input {...p} type="number" inputMode="numeric" min={1} step={1} {...form.register(`steps.${step - 1}.support` as const, number)} />}
            </Field>
          </fieldset>
        ))}
        <Field label="Stale after (days without a change)" error={fieldMessage(form, "staleAfterDays")} hint={`Default ${props.defaults.staleAfterDays}`}>
          {(p) => <Input {...p} type="number" inputMode="numeric" min={1} step={1} {...form.register("staleAfterDays", number)} />}
        </Field>
      </div>
    </FormDialog>
  );
}
