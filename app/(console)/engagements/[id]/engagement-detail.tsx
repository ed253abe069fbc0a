"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { z } from "zod";
import { EngagementHeader, StepsDoneBar } from "@/app/_components/engagement/engagement-header";
import { EngagementWorkspace } from "@/app/_components/engagement/engagement-workspace";
import { Waiting } from "@/app/_components/engagement/waiting";
import { useAnnouncement, type Announce } from "@/app/_components/use-announcement";
import { TextDialog } from "@/app/_components/text-dialog";
import { FormDialog } from "@/app/_components/form-dialog";
import { reasonsFor, STATUS_REASON_LABELS, type StatusReason } from "@/core/engagements/status-reasons";
import { Button, Card, CopyableId, Dialog, DialogActions, Field, Form, Notice, ProgressBar, Select, Textarea } from "@/app/_components/ui";
import { fieldMessage, formMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import { formatDateTime, statusLabel } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail, EngagementStatus } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { StepActions } from "./step-actions";
import { StepPanel } from "./steps/step-panel";
import { useEngagementInvalidation } from "./use-engagement-invalidation";

export function EngagementDetailView({ engagementId }: { engagementId: string }) {
  const trpc = useTRPC();
  const engagement = useQuery(trpc.engagements.get.queryOptions({ engagementId }));
  const { announce, region } = useAnnouncement();

  const e = engagement.data;
  if (!e) {
    return engagement.error ? <Notice tone="error">{toFormError(engagement.error).message}</Notice> : <ProgressBar label="Loading engagement" />;
  }

  return (
    <EngagementWorkspace
      engagement={e}
      viewer="console"
      header={
        <EngagementHeader
          engagement={e}
          back={{ href: "/engagements", label: "Engagements" }}
          description={`${e.organization.name} · ${e.platform.name}`}
          actions={<StatusActions engagement={e} onChanged={announce} />}
        />
      }
      details={<Summary engagement={e} />}
      announcements={region}
      renderStep={(step) => ({
        panel: <StepPanel engagement={e} step={step} announce={announce} />,
        actions: <StepActions engagement={e} step={step} onDone={announce} />,
      })}
      activityTitle="Activity"
    />
  );
}

function Summary({ engagement: e }: { engagement: EngagementDetail }) {
  const [changingOwner, setChangingOwner] = useState(false);
  const [changingTarget, setChangingTarget] = useState(false);
  return (
    <Card aria-label="Engagement details" bodyClassName="p-0">
      <dl className="grid grid-cols-2 gap-x-4 gap-y-3 px-4 py-3 text-sm sm:px-5 lg:grid-cols-6">
        <Item term="Owner">
          <span className="inline-flex flex-wrap items-center gap-x-2">
            {e.owner.name}
            <Button variant="ghost" size="sm" onClick={() => setChangingOwner(true)} aria-label={`Change owner (now ${e.owner.name})`}>
              Change
            </Button>
          </span>
        </Item>
        <Item term="Service target">
          <span className="inline-flex flex-wrap items-center gap-x-2">
            {e.serviceTarget ? `${e.serviceTarget.name} (${e.serviceTarget.builtIn ? "built-in sandbox" : e.serviceTarget.kind})` : "Not set"}
            {e.targetChange.allowed ? (
              <Button
                variant="ghost"
                size="sm"
                onClick={() => setChangingTarget(true)}
                aria-label={`Change service target (now ${e.serviceTarget?.name ?? "not set"})`}
              >
                Change
              </Button>
            ) : null}
          </span>
          {e.serviceTarget?.problem ? (
            <span role="note" className="mt-1 block text-xs text-amber-800">
              {e.serviceTarget.problem}
            </span>
          ) : null}
        </Item>
        <Item term="Whose move" wide>
          <Waiting party={e.waiting.party} since={e.waiting.since} viewer="console" />
        </Item>
        <Item term="Progress">
          <span className="block">{e.currentStep > 6 ? "All six steps done" : `At step ${e.currentStep} of 6`}</span>
          <StepsDoneBar stepsDone={e.stepsDone} size="sm" className="mt-1.5 w-32" />
        </Item>
        <Item term="Callback URL">
          {e.platform.callbackUrl ? <CopyableId value={e.platform.callbackUrl} label="callback URL" truncate /> : "—"}
        </Item>
        <Item term="Engagement id">
          <CopyableId value={e.id} label="engagement id" short />
        </Item>
      </dl>
      <p className="border-t border-slate-100 px-4 py-2 text-xs text-slate-600 sm:px-5">
        Opened {formatDateTime(e.createdAt)} · last change {formatDateTime(e.updatedAt)}
      </p>
      {changingOwner ? <OwnerDialog engagement={e} onClose={() => setChangingOwner(false)} /> : null}
      {changingTarget ? <TargetDialog engagement={e} onClose={() => setChangingTarget(false)} /> : null}
    </Card>
  );
}

/** One detail; `wide` takes the whole row on a phone (a value that keeps to one line, such as "since …"). */
function Item({ term, children, wide = false }: { term: string; children: ReactNode; wide?: boolean }) {
  return (
    <div className={wide ? "col-span-2 min-w-0 sm:col-span-1" : "min-w-0"}>
      <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">{term}</dt>
      <dd className="mt-1 text-slate-900">{children}</dd>
    </div>
  );
}

function OwnerDialog({ engagement, onClose }: { engagement: EngagementDetail; onClose: () => void }) {
  const trpc = useTRPC();
  const staff = useQuery(trpc.users.staff.queryOptions());
  const invalidate = useEngagementInvalidation(engagement.id);
  const setOwner = useMutation(trpc.engagements.setOwner.mutationOptions({ onSuccess: invalidate }));
  return (
    <ChoiceDialog
      onClose={onClose}
      title="Change owner"
      description="The owner carries the engagement through its steps."
      label="New owner"
      field="ownerId"
      initial={engagement.owner.id}
      options={staff.data?.map((s) => ({ value: s.id, label: s.name })) ?? [{ value: engagement.owner.id, label: engagement.owner.name }]}
      saveLabel="Save owner"
      pending={setOwner.isPending}
      save={(ownerId) => setOwner.mutateAsync({ engagementId: engagement.id, ownerId })}
    />
  );
}

function TargetDialog({ engagement, onClose }: { engagement: EngagementDetail; onClose: () => void }) {
  const trpc = useTRPC();
  // Only the targets this engagement may use: its organisation's own accounts and the built-in sandbox.
  // Fetched afresh each time the dialog opens: an admin may have archived or assigned a target since.
  const choices = useQuery({ ...trpc.targets.choices.queryOptions({ engagementId: engagement.id }), refetchOnMount: "always" });
  const invalidate = useEngagementInvalidation(engagement.id);
  const queryClient = useQueryClient();
  const assign = useMutation(
    trpc.targets.assign.mutationOptions({
      onSuccess: async () => {
        await invalidate();
        await queryClient.invalidateQueries({ queryKey: trpc.targets.choices.queryKey({ engagementId: engagement.id }) });
      },
    }),
  );
  const current = choices.data?.current ?? null;
  // Support's explicit choice, for when companies already exist on the current target (the server refuses otherwise, saying so).
  const [startOver, setStartOver] = useState(false);
  return (
    <ChoiceDialog
      onClose={onClose}
      title="Change service target"
      description={`Where this engagement's companies are migrated: the built-in sandbox to rehearse, or one of ${engagement.organization.name}'s own accounts on the service for the window.`}
      label="Service target"
      field="serviceTargetId"
      // The current target, preselected, unless the engagement may no longer use it.
      initial={engagement.serviceTarget && !engagement.serviceTarget.problem ? engagement.serviceTarget.id : ""}
      placeholder={choices.data ? "Choose a target…" : "Loading targets…"}
      notice={current?.problem ? `Now: ${current.problem}` : null}
      options={choices.data?.options.map((t) => ({ value: t.id, label: t.builtIn ? `${t.name} — built-in sandbox (${t.baseUrl})` : `${t.name} — ${t.baseUrl} (key ${t.apiKeyMasked})` })) ?? []}
      saveLabel="Save target"
      pending={assign.isPending}
      save={(serviceTargetId) => assign.mutateAsync({ engagementId: engagement.id, serviceTargetId, startOver })}
    >
      <label className="flex items-start gap-2 text-sm text-slate-700">
        <input type="checkbox" className="mt-1 size-4" checked={startOver} onChange={(e) => setStartOver(e.target.checked)} />
        <span>
          Start over on the new target the companies already made on the current one (their old ids are kept in their history, the single-company test runs again, and the
          customer is told).
        </span>
      </label>
    </ChoiceDialog>
  );
}

const ZChoice = z.object({ value: z.string() });

/** A dialog that picks one value from a list and saves it, showing the server's refusal on the field. */
function ChoiceDialog(props: {
  onClose: () => void;
  title: string;
  description: string;
  label: string;
  /** The input field the server names in its errors. */
  field: string;
  initial: string;
  placeholder?: string;
  /** Shown above the field (e.g. why the current value can no longer be kept). */
  notice?: string | null;
  options: { value: string; label: string }[];
  saveLabel: string;
  pending: boolean;
  save: (value: string) => Promise<unknown>;
  /** More of the form, below the field (e.g. an option of the change). */
  children?: ReactNode;
}) {
  const form = useZodForm(ZChoice, { defaultValues: { value: props.initial } });
  const onSubmit = form.handleSubmit(async ({ value }) => {
    try {
      await props.save(value);
      props.onClose();
    } catch (e) {
      // The server names its own field (ownerId, serviceTargetId): that is this form's one field.
      showServerError(form, e, { [props.field]: "value" });
    }
  });
  return (
    <Dialog open onClose={props.onClose} title={props.title} description={props.description}>
      <Form onSubmit={onSubmit} className="space-y-4">
        {props.notice ? <Notice tone="warning">{props.notice}</Notice> : null}
        {formMessage(form) ? <Notice tone="error">{formMessage(form)}</Notice> : null}
        <Field label={props.label} error={fieldMessage(form, "value")}>
          {(p) => (
            // Controlled as well: the options arrive after the form, and the select must still show the chosen one.
            <Select {...p} {...form.register("value")} value={form.watch("value")}>
              {props.placeholder ? <option value="">{props.placeholder}</option> : null}
              {props.options.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </Select>
          )}
        </Field>
        {props.children}
        <DialogActions>
          <Button variant="secondary" onClick={props.onClose}>
            Cancel
          </Button>
          <Button type="submit" pending={props.pending}>
            {props.saveLabel}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}

/** How each status change is offered; which ones are offered, and whether they need a reason, comes from the server. */
const STATUS_CHANGE_WORDS: Record<EngagementStatus, { verb: string; variant: "secondary" | "danger"; description: string }> = {
  active: { verb: "Resume", variant: "secondary", description: "The checklist can move again once the engagement is active." },
  on_hold: { verb: "Put on hold", variant: "secondary", description: "While on hold, no step can change. You can resume it at any time." },
  cancelled: {
    verb: "Cancel engagement",
    variant: "danger",
    description: "Cancelling is final: the checklist stops and the engagement cannot be resumed.",
  },
  completed: { verb: "Complete", variant: "secondary", description: "" },
};

type StatusChange = EngagementDetail["statusChanges"][number];

function StatusActions({ engagement, onChanged }: { engagement: EngagementDetail; onChanged: Announce }) {
  const [change, setChange] = useState<StatusChange | null>(null);
  if (!engagement.statusChanges.length) return null;
  return (
    <>
      {engagement.statusChanges.map((c) => (
        <Button key={c.to} variant={STATUS_CHANGE_WORDS[c.to].variant} onClick={() => setChange(c)}>
          {STATUS_CHANGE_WORDS[c.to].verb}
        </Button>
      ))}
      {change ? <StatusDialog engagement={engagement} change={change} onClose={() => setChange(null)} onChanged={onChanged} /> : null}
    </>
  );
}

function StatusDialog({
  engagement,
  change,
  onClose,
  onChanged,
}: {
  engagement: EngagementDetail;
  change: StatusChange;
  onClose: () => void;
  onChanged: Announce;
}) {
  const trpc = useTRPC();
  const invalidate = useEngagementInvalidation(engagement.id);
  const words = STATUS_CHANGE_WORDS[change.to];
  const setStatus = useMutation(trpc.engagements.setStatus.mutationOptions());
  const done = async () => {
    await invalidate();
    onChanged({ tone: "success", text: `The engagement is now ${statusLabel(change.to).toLowerCase()}.` });
    onClose();
  };
  const reasons = reasonsFor(change.to);
  if (reasons.length) {
    return (
      <StatusReasonDialog
        title={`${words.verb}: ${engagement.reference}`}
        description={words.description}
        reasons={reasons}
        submitLabel={words.verb}
        variant={words.variant === "danger" ? "danger" : "primary"}
        pending={setStatus.isPending}
        onClose={onClose}
        submit={async ({ reasonCode, reason }) => {
          await setStatus.mutateAsync({ engagementId: engagement.id, status: change.to, reasonCode, reason });
          await done();
        }}
      />
    );
  }
  return (
    <TextDialog
      title={`${words.verb}: ${engagement.reference}`}
      description={words.description}
      label="Reason"
      required={change.reasonRequired}
      hint="Recorded in the audit timeline."
      field="reason"
      submitLabel={words.verb}
      cancelLabel="Keep as is"
      variant={words.variant === "danger" ? "danger" : "primary"}
      pending={setStatus.isPending}
      onClose={onClose}
      submit={async (reason) => {
        await setStatus.mutateAsync({ engagementId: engagement.id, status: change.to, reason });
        await done();
      }}
    />
  );
}

const ZStatusReason = z.object({
  reasonCode: z.string().min(1, "Choose a reason."),
  reason: z.string().trim().max(2000, "Keep it under 2,000 characters."),
});

/**
 * Going on hold or cancelling: a reason from the short list (the portfolio counts them) and words
 * beside it, required with "Other" (the server's rule; its refusal lands on the field it names).
 */
function StatusReasonDialog(props: {
  title: string;
  description: ReactNode;
  reasons: readonly StatusReason[];
  submitLabel: string;
  variant: "primary" | "danger";
  pending: boolean;
  onClose: () => void;
  submit: (values: { reasonCode: StatusReason; reason: string | undefined }) => Promise<unknown>;
}) {
  const form = useZodForm(ZStatusReason, { defaultValues: { reasonCode: "", reason: "" } });
  const onSubmit = form.handleSubmit(async ({ reasonCode, reason }) => {
    try {
      await props.submit({ reasonCode: reasonCode as StatusReason, reason: reason || undefined });
    } catch (e) {
      showServerError(form, e);
    }
  });
  return (
    <FormDialog
      title={props.title}
      description={props.description}
      form={form}
      onSubmit={onSubmit}
      submitLabel={props.submitLabel}
      cancelLabel="Keep as is"
      variant={props.variant}
      pending={props.pending}
      onClose={props.onClose}
    >
      <Field label="Reason" required error={fieldMessage(form, "reasonCode")} hint="Counted on the portfolio.">
        {(p) => (
          <Select {...p} {...form.register("reasonCode")}>
            <option value="">Choose a reason…</option>
            {props.reasons.map((r) => (
              <option key={r} value={r}>
                {STATUS_REASON_LABELS[r]}
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field label="Details" error={fieldMessage(form, "reason")} hint={'Recorded in the audit timeline; required with "Other".'}>
        {(p) => <Textarea {...p} {...form.register("reason")} />}
      </Field>
    </FormDialog>
  );
}
