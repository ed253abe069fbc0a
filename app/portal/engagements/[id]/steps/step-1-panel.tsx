"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useFieldArray } from "react-hook-form";
import { useFlowInvalidation } from "@/app/_components/engagement/use-flow-invalidation";
import { CheckResult } from "@/app/_components/intake/check-result";
import { TemplateLinks, TokenFileInput, UploadProgress, useTokenFileUpload } from "@/app/_components/intake/token-file-upload";
import { Button, Field, Form, Input, Notice, ProgressBar } from "@/app/_components/ui";
import { fieldMessage, formMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import type { Announce } from "@/app/_components/use-announcement";
import { formatDateTime } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { EngagementDetail, IntakeView, StepView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { MAX_CONTACTS, ZIntakeForm } from "@/core/engagements/intake-schemas";
import { companiesText, warningsText } from "@/core/words";

const megabytes = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;

/** Step 1 in the portal: where the submission stands, and the form and token file to submit (again). */
export function PortalStep1Panel({ engagement, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  const trpc = useTRPC();
  const intake = useQuery(trpc.intake.get.queryOptions({ engagementId: engagement.id }));
  const [replacing, setReplacing] = useState(false);
  const view = intake.data;
  if (!view) return intake.error ? <Notice tone="error">{toFormError(intake.error).message}</Notice> : <ProgressBar label="Loading your submission" size="sm" />;
  const current = view.current;
  const showForm = view.submit.allowed && (!current || current.status === "returned" || replacing);
  return (
    <div className="space-y-4">
      {current ? <SubmissionStatus view={view} /> : null}
      {!view.submit.allowed && view.submit.reason ? <p className="text-sm text-slate-600">{view.submit.reason}</p> : null}
      {view.submit.allowed && current && current.status !== "returned" && !replacing ? (
        <Button variant="secondary" size="sm" onClick={() => setReplacing(true)}>
          Submit a new token file
        </Button>
      ) : null}
      {showForm ? (
        <SubmitForm
          engagement={engagement}
          view={view}
          announce={announce}
          onDone={() => setReplacing(false)}
          onCancel={current && current.status !== "returned" ? () => setReplacing(false) : undefined}
        />
      ) : null}
    </div>
  );
}

function SubmissionStatus({ view }: { view: IntakeView }) {
  const s = view.current!;
  const what = `${s.fileName}: ${companiesText(s.rowCount)}, ${warningsText(s.warningCount)}, submitted by ${s.submittedBy?.name ?? "you"} on ${formatDateTime(s.submittedAt)}.`;
  switch (s.status) {
    case "submitted":
      return (
        <Notice tone="info" title="Submitted: Ferry support is reviewing it">
          {what}
        </Notice>
      );
    case "accepted":
      return (
        <Notice tone="success" title="Accepted">
          {what} Accepted by {s.reviewedBy?.name ?? "support"} on {formatDateTime(s.reviewedAt)}.
        </Notice>
      );
    case "returned":
      return (
        <Notice tone="warning" title={`Sent back by ${s.reviewedBy?.name ?? "support"}: fix it and submit again`}>
          <p className="font-medium whitespace-pre-line">{s.returnNote}</p>
          <p className="mt-1">{what}</p>
        </Notice>
      );
    case "replaced":
      return null;
    default: {
      const never: never = s.status;
      return never;
    }
  }
}

function SubmitForm({
  engagement,
  view,
  announce,
  onDone,
  onCancel,
}: {
  engagement: EngagementDetail;
  view: IntakeView;
  announce: Announce;
  onDone: () => void;
  onCancel?: () => void;
}) {
  const invalidate = useFlowInvalidation(engagement.id);
  const upload = useTokenFileUpload(`/api/engagements/${engagement.id}/token-file`);
  const form = useZodForm(ZIntakeForm, {
    defaultValues: {
      clientId: view.current?.clientId ?? "",
      clientSecret: "",
      contacts: view.current?.contacts.length ? view.current.contacts : [{ name: "", email: "" }],
    },
  });
  const contacts = useFieldArray({ control: form.control, name: "contacts" });
  const onSubmit = form.handleSubmit(async (values, event) => {
    if (!upload.file) {
      upload.setFileError("Choose the token file to submit.");
      (event?.target as HTMLFormElement | undefined)?.querySelector<HTMLInputElement>("input[type=file]")?.focus();
      return;
    }
    const name = upload.file.name;
    const answer = await upload.send("Submitting", { clientId: values.clientId, clientSecret: values.clientSecret, contacts: JSON.stringify(values.contacts) });
    if (!answer) return;
    if (answer.status === 200) {
      await invalidate();
      announce({ tone: "success", text: `Submitted ${name}: ${companiesText(answer.companies ?? 0)}. Ferry support will review it.` });
      form.reset({ ...values, clientSecret: "" });
      upload.reset();
      onDone();
      return;
    }
    // The route answers in the tRPC error's shape (message, fields): put it on the form the same way.
    showServerError(form, Object.assign(new Error(answer.error?.message ?? "The submission failed."), { data: { fields: answer.error?.fields ?? null } }));
  });

  return (
    <Form onSubmit={onSubmit} className="space-y-5 rounded-md border border-slate-200 p-4" aria-label="Submission form">
      {view.submitReopens ? (
        <Notice tone="warning" title="This replaces the accepted file">
          A new file goes back to Ferry support for review: step 1 reopens, and so do steps 2–4 (the window and your confirmations are asked for again).
        </Notice>
      ) : null}
      {formMessage(form) ? <Notice tone="error">{formMessage(form)}</Notice> : null}
      <fieldset className="grid gap-4 sm:grid-cols-2">
        <legend className="mb-2 text-sm font-semibold text-slate-900">Your OAuth app on {view.platform.name}</legend>
        <Field label="Client id" required error={fieldMessage(form, "clientId")}>
          {(p) => <Input {...p} autoComplete="off" {...form.register("clientId")} />}
        </Field>
        <Field label="Client secret" required error={fieldMessage(form, "clientSecret")} hint="Stored encrypted; after you submit it is only ever shown masked.">
          {(p) => <Input {...p} type="password" autoComplete="new-password" {...form.register("clientSecret")} />}
        </Field>
      </fieldset>
      <fieldset className="space-y-3">
        <legend className="text-sm font-semibold text-slate-900">Contacts for the migration window</legend>
        {contacts.fields.map((c, i) => (
          <div key={c.id} className="grid items-start gap-3 sm:grid-cols-[1fr_1fr_auto]">
            <Field label={`Contact ${i + 1} name`} required error={fieldMessage(form, `contacts.${i}.name`)}>
              {(p) => <Input {...p} autoComplete="name" {...form.register(`contacts.${i}.name`)} />}
            </Field>
            <Field label={`Contact ${i + 1} email`} required error={fieldMessage(form, `contacts.${i}.email`)}>
              {(p) => <Input {...p} type="email" autoComplete="email" {...form.register(`contacts.${i}.email`)} />}
            </Field>
            {contacts.fields.length > 1 ? (
              <Button variant="ghost" size="sm" className="sm:mt-7" onClick={() => contacts.remove(i)} aria-label={`Remove contact ${i + 1}`}>
                Remove
              </Button>
            ) : null}
          </div>
        ))}
        {fieldMessage(form, "contacts") ? <p className="text-sm font-medium text-red-700">{fieldMessage(form, "contacts")}</p> : null}
        {contacts.fields.length < MAX_CONTACTS ? (
          <Button variant="secondary" size="sm" onClick={() => contacts.append({ name: "", email: "" })}>
            Add a contact
          </Button>
        ) : null}
      </fieldset>
      <fieldset className="space-y-3">
        <legend className="text-sm font-semibold text-slate-900">Token file</legend>
        <p className="text-sm text-slate-700">
          CSV or XLSX, one row per company, up to {megabytes(view.limits.maxFileBytes)} and {view.limits.maxRows.toLocaleString("en-GB")} companies. Start from the
          template: <TemplateLinks platformKey={view.platform.key} />
        </p>
        <details className="text-sm">
          <summary className="cursor-pointer font-medium text-indigo-800">The columns</summary>
          <ul className="mt-2 space-y-1">
            {view.columns.map((c) => (
              <li key={c.name}>
                <code className="text-xs">{c.name}</code> {c.required ? "(required)" : "(optional)"}: {c.description}
              </li>
            ))}
          </ul>
        </details>
        <TokenFileInput upload={upload} label="Token file" hint="Choosing a file checks it at once; nothing is stored until you submit." />
      </fieldset>
      <UploadProgress busy={upload.busy} />
      <div aria-live="polite">{upload.check ? <CheckResult check={upload.check} /> : null}</div>
      <div className="flex flex-wrap items-center gap-2">
        <Button type="submit" pending={upload.busy?.what.startsWith("Submitting") ?? false} disabled={upload.busy !== null || upload.blocked}>
          Submit details and token file
        </Button>
        {onCancel ? (
          <Button variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
        ) : null}
        {upload.blocked ? <p className="text-sm text-slate-600">Fix the problems above and choose the file again to submit.</p> : null}
      </div>
    </Form>
  );
}
