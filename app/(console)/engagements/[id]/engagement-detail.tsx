"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent, type ReactNode } from "react";
import { Checklist } from "@/app/_components/engagement/checklist";
import { StatusBadge } from "@/app/_components/engagement/status-badge";
import { Timeline } from "@/app/_components/engagement/timeline";
import { Button, Card, CopyButton, Dialog, DialogActions, Field, Form, Notice, PageHeader, ProgressBar, Select, Textarea } from "@/app/_components/ui";
import { formatDateTime, statusLabel } from "@/app/_lib/labels";
import { stepsDone } from "@/app/_lib/steps";
import { NO_FORM_ERROR, toFormError, type FormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail, EngagementStatus } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { StepActions } from "./step-actions";
import { useEngagementInvalidation } from "./use-engagement-invalidation";

export function EngagementDetailView({ engagementId }: { engagementId: string }) {
  const trpc = useTRPC();
  const engagement = useQuery(trpc.engagements.get.queryOptions({ engagementId }));
  const timeline = useQuery(trpc.engagements.timeline.queryOptions({ engagementId }));
  const [announcement, setAnnouncement] = useState<{ tone: "success" | "error"; text: string } | null>(null);

  const e = engagement.data;
  if (!e) {
    return engagement.error ? <Notice tone="error">{toFormError(engagement.error).message}</Notice> : <ProgressBar label="Loading engagement" />;
  }

  return (
    <div className="space-y-8">
      <PageHeader
        eyebrow={
          <Link href="/engagements" className="hover:underline">
            ← Engagements
          </Link>
        }
        title={<span className="font-mono">{e.reference}</span>}
        titleAside={
          <>
            <CopyButton value={e.reference} label="engagement reference" />
            <StatusBadge status={e.status} />
          </>
        }
        description={`${e.organization.name} · ${e.platform.name}`}
        actions={<StatusActions engagement={e} onChanged={setAnnouncement} />}
      />

      <Summary engagement={e} />

      {e.status !== "active" ? (
        <Notice tone={e.status === "completed" ? "success" : "warning"}>
          {e.status === "completed"
            ? "This engagement is completed; its steps can no longer change."
            : `This engagement is ${statusLabel(e.status).toLowerCase()}; its steps can change only while it is active.`}
        </Notice>
      ) : null}

      <div className="grid gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <section aria-labelledby="checklist-title" className="space-y-4">
          <div className="flex flex-wrap items-end justify-between gap-3">
            <h2 id="checklist-title" className="text-lg font-semibold text-slate-900">
              Checklist
            </h2>
            <ProgressBar
              label="Steps done"
              value={e.steps.filter((s) => s.state === "done").length}
              max={6}
              valueText={`${e.steps.filter((s) => s.state === "done").length} of 6 steps done`}
              className="w-48"
            />
          </div>
          <div aria-live="polite">{announcement ? <Notice tone={announcement.tone === "error" ? "warning" : "success"}>{announcement.text}</Notice> : null}</div>
          <Checklist steps={e.steps} renderActions={(step) => <StepActions engagement={e} step={step} onDone={setAnnouncement} />} />
        </section>
        <section aria-labelledby="timeline-title" className="space-y-4">
          <h2 id="timeline-title" className="text-lg font-semibold text-slate-900">
            Audit timeline
          </h2>
          {timeline.data ? <Timeline entries={timeline.data} /> : <ProgressBar label="Loading timeline" size="sm" />}
        </section>
      </div>
    </div>
  );
}

function Summary({ engagement: e }: { engagement: EngagementDetail }) {
  const [changingOwner, setChangingOwner] = useState(false);
  const [changingTarget, setChangingTarget] = useState(false);
  const done = stepsDone(e.currentStep);
  return (
    <Card aria-label="Engagement details" bodyClassName="p-0">
      <dl className="grid divide-y divide-slate-100 text-sm sm:grid-cols-2 sm:divide-y-0 lg:grid-cols-3">
        <Item term="Organisation">{e.organization.name}</Item>
        <Item term="Platform">{e.platform.name}</Item>
        <Item term="Owner">
          <span className="inline-flex flex-wrap items-center gap-2">
            {e.owner.name}
            <Button variant="ghost" size="sm" onClick={() => setChangingOwner(true)} aria-label={`Change owner (now ${e.owner.name})`}>
              Change
            </Button>
          </span>
        </Item>
        <Item term="Callback URL">
          {e.platform.callbackUrl ? (
            <span className="inline-flex max-w-full items-center gap-1">
              <code className="truncate rounded bg-slate-100 px-1.5 py-0.5 text-xs">{e.platform.callbackUrl}</code>
              <CopyButton value={e.platform.callbackUrl} label="callback URL" />
            </span>
          ) : (
            "—"
          )}
        </Item>
        <Item term="Service target">
          <span className="inline-flex flex-wrap items-center gap-2">
            {e.serviceTarget ? `${e.serviceTarget.name} (${e.serviceTarget.kind})` : "Not set"}
            {e.status === "active" || e.status === "on_hold" ? (
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
        </Item>
        <Item term="Progress">
          <span className="block">{e.currentStep > 6 ? "All six steps done" : `At step ${e.currentStep} of 6`}</span>
          <ProgressBar label="Checklist progress" value={done} max={6} valueText={`${done} of 6 steps done in order`} size="sm" className="mt-1 w-40" />
        </Item>
        <Item term="Engagement id">
          <span className="inline-flex items-center gap-1">
            <code className="truncate rounded bg-slate-100 px-1.5 py-0.5 text-xs">{e.id}</code>
            <CopyButton value={e.id} label="engagement id" />
          </span>
        </Item>
        <Item term="Opened">{formatDateTime(e.createdAt)}</Item>
        <Item term="Last change">{formatDateTime(e.updatedAt)}</Item>
      </dl>
      <OwnerDialog engagement={e} open={changingOwner} onClose={() => setChangingOwner(false)} />
      <TargetDialog engagement={e} open={changingTarget} onClose={() => setChangingTarget(false)} />
    </Card>
  );
}

function Item({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="min-w-0 px-5 py-3">
      <dt className="text-xs font-medium tracking-wide text-slate-500 uppercase">{term}</dt>
      <dd className="mt-1 text-slate-900">{children}</dd>
    </div>
  );
}

function OwnerDialog({ engagement, open, onClose }: { engagement: EngagementDetail; open: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const staff = useQuery({ ...trpc.users.staff.queryOptions(), enabled: open });
  const invalidate = useEngagementInvalidation(engagement.id);
  const setOwner = useMutation(trpc.engagements.setOwner.mutationOptions({ onSuccess: invalidate }));
  return (
    <ChoiceDialog
      open={open}
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

function TargetDialog({ engagement, open, onClose }: { engagement: EngagementDetail; open: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const targets = useQuery({ ...trpc.targets.list.queryOptions(), enabled: open });
  const invalidate = useEngagementInvalidation(engagement.id);
  const assign = useMutation(trpc.targets.assign.mutationOptions({ onSuccess: invalidate }));
  return (
    <ChoiceDialog
      open={open}
      onClose={onClose}
      title="Change service target"
      description="Where this engagement's companies are migrated: the sandbox to rehearse, the real service for the window."
      label="Service target"
      field="serviceTargetId"
      initial={engagement.serviceTarget?.id ?? ""}
      placeholder="Choose a target…"
      options={targets.data?.map((t) => ({ value: t.id, label: `${t.name} — ${t.baseUrl} (key ${t.apiKeyMasked})` })) ?? []}
      saveLabel="Save target"
      pending={assign.isPending}
      save={(serviceTargetId) => assign.mutateAsync({ engagementId: engagement.id, serviceTargetId })}
    />
  );
}

/** A dialog that picks one value from a list and saves it, showing the server's refusal on the field. */
function ChoiceDialog(props: {
  open: boolean;
  onClose: () => void;
  title: string;
  description: string;
  label: string;
  /** The input field the server names in its errors. */
  field: string;
  initial: string;
  placeholder?: string;
  options: { value: string; label: string }[];
  saveLabel: string;
  pending: boolean;
  save: (value: string) => Promise<unknown>;
}) {
  const [value, setValue] = useState(props.initial);
  const [error, setError] = useState<FormError>(NO_FORM_ERROR);
  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(NO_FORM_ERROR);
    try {
      await props.save(value);
      props.onClose();
    } catch (e) {
      setError(toFormError(e));
    }
  }
  const fieldError = error.fields[props.field];
  return (
    <Dialog open={props.open} onClose={props.onClose} title={props.title} description={props.description}>
      <Form errorKey={error} onSubmit={onSubmit} className="space-y-4">
        {error.message && !fieldError ? <Notice tone="error">{error.message}</Notice> : null}
        <Field label={props.label} error={fieldError}>
          {(p) => (
            <Select {...p} value={value} onChange={(e) => setValue(e.target.value)}>
              {props.placeholder ? <option value="">{props.placeholder}</option> : null}
              {props.options.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </Select>
          )}
        </Field>
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

type StatusChange = { to: EngagementStatus; label: string; verb: string; variant: "secondary" | "danger"; reasonRequired: boolean };

const STATUS_CHANGES: Record<EngagementStatus, StatusChange[]> = {
  active: [
    { to: "on_hold", label: "Put on hold", verb: "Put on hold", variant: "secondary", reasonRequired: false },
    { to: "cancelled", label: "Cancel engagement", verb: "Cancel engagement", variant: "danger", reasonRequired: true },
  ],
  on_hold: [
    { to: "active", label: "Resume", verb: "Resume", variant: "secondary", reasonRequired: false },
    { to: "cancelled", label: "Cancel engagement", verb: "Cancel engagement", variant: "danger", reasonRequired: true },
  ],
  completed: [],
  cancelled: [],
};

function StatusActions({ engagement, onChanged }: { engagement: EngagementDetail; onChanged: (a: { tone: "success"; text: string }) => void }) {
  const [change, setChange] = useState<StatusChange | null>(null);
  const choices = STATUS_CHANGES[engagement.status];
  if (!choices.length) return null;
  return (
    <>
      {choices.map((c) => (
        <Button key={c.to} variant={c.variant} onClick={() => setChange(c)}>
          {c.label}
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
  onChanged: (a: { tone: "success"; text: string }) => void;
}) {
  const trpc = useTRPC();
  const invalidate = useEngagementInvalidation(engagement.id);
  const [reason, setReason] = useState("");
  const [error, setError] = useState<FormError>(NO_FORM_ERROR);
  const setStatus = useMutation(
    trpc.engagements.setStatus.mutationOptions({
      onSuccess: async () => {
        await invalidate();
        onChanged({ tone: "success", text: `The engagement is now ${statusLabel(change.to).toLowerCase()}.` });
        onClose();
      },
      onError: (e) => setError(toFormError(e)),
    }),
  );
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(NO_FORM_ERROR);
    setStatus.mutate({ engagementId: engagement.id, status: change.to, reason: reason.trim() || undefined });
  }
  return (
    <Dialog
      open
      onClose={onClose}
      title={`${change.verb}: ${engagement.reference}`}
      description={
        change.to === "cancelled"
          ? "Cancelling is final: the checklist stops and the engagement cannot be resumed."
          : change.to === "on_hold"
            ? "While on hold, no step can change. You can resume it at any time."
            : "The checklist can move again once the engagement is active."
      }
    >
      <Form errorKey={error} onSubmit={onSubmit} className="space-y-4">
        {error.message && !error.fields.reason ? <Notice tone="error">{error.message}</Notice> : null}
        <Field label="Reason" required={change.reasonRequired} error={error.fields.reason} hint="Recorded in the audit timeline.">
          {(p) => <Textarea {...p} name="reason" value={reason} onChange={(e) => setReason(e.target.value)} />}
        </Field>
        <DialogActions>
          <Button variant="secondary" onClick={onClose}>
            Keep as is
          </Button>
          <Button type="submit" variant={change.variant === "danger" ? "danger" : "primary"} pending={setStatus.isPending}>
            {change.verb}
          </Button>
        </DialogActions>
      </Form>
    </Dialog>
  );
}
