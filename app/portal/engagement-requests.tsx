"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { z } from "zod";
import { FormDialog } from "@/app/_components/form-dialog";
import { Badge, Button, Card, Field, Form, Input, Notice, Select, Textarea } from "@/app/_components/ui";
import { fieldMessage, formMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import { useAnnouncement, type Announce } from "@/app/_components/use-announcement";
import { formatDateTime } from "@/app/_lib/labels";
import type { RouterOutputs } from "@/app/_lib/types";
import { formatUtcDay, parseUtcDay, UTC_DAY_EXAMPLE } from "@/app/_lib/utc-time";
import { useTRPC } from "@/app/_trpc/react";
import { MAX_REQUESTED_COMPANIES } from "@/core/engagements/request-schemas";
import { companiesText } from "@/core/words";
import { PAGE_SIZE } from "@/server/api/routers/shared.types";

type Request = RouterOutputs["requests"]["list"]["requests"][number];

const count = (what: string) => `Say roughly how many companies, as a whole number such as 25${what}.`;

/** The request form's fields as typed; the server checks them again (dates against today). */
const ZRequestForm = z.object({
  platformKey: z.string().min(1, "Choose the platform your companies are on."),
  companies: z
    .string()
    .trim()
    .min(1, count(""))
    .refine((v) => /^\d[\d,\s]*$/.test(v), count(""))
    .refine((v) => Number(v.replace(/[,\s]/g, "")) >= 1, "At least one company.")
    .refine((v) => Number(v.replace(/[,\s]/g, "")) <= MAX_REQUESTED_COMPANIES, `At most ${MAX_REQUESTED_COMPANIES.toLocaleString("en-GB")} companies: a token file holds that many.`),
  preferredFrom: z
    .string()
    .trim()
    .min(1, `Give the first day that would suit, such as ${UTC_DAY_EXAMPLE}.`)
    .refine((v) => parseUtcDay(v) !== null, `Write the first day as a date, such as ${UTC_DAY_EXAMPLE}.`),
  preferredTo: z
    .string()
    .trim()
    .refine((v) => !v || parseUtcDay(v) !== null, `Write the last day as a date, such as ${UTC_DAY_EXAMPLE}, or leave it empty.`),
  note: z.string().trim().max(2000, "Keep the note under 2,000 characters."),
});

const STATUS: Record<Request["status"], { label: string; tone: "info" | "success" | "muted" }> = {
  open: { label: "With Ferry support", tone: "info" },
  accepted: { label: "Accepted", tone: "success" },
  declined: { label: "Declined", tone: "muted" },
};

/** The preferred dates in words: "from 1 Dec 2026 to 12 Dec 2026". */
const when = (r: Pick<Request, "preferredFrom" | "preferredTo">) => `from ${formatUtcDay(r.preferredFrom)}${r.preferredTo ? ` to ${formatUtcDay(r.preferredTo)}` : ""}`;

/**
 * The portal's way to ask Ferry for an engagement, and the answers so far. With no engagement yet
 * the form is the page's main content; otherwise a button opens it.
 */
export function PortalRequests() {
  const trpc = useTRPC();
  const list = useQuery(trpc.requests.list.queryOptions());
  // The list's first page, as the page above reads it: no engagement yet makes the form the main content.
  const engagements = useQuery(trpc.engagements.list.queryOptions({ page: 1, pageSize: PAGE_SIZE }));
  const prominent = engagements.data?.total === 0;
  const { announce, region } = useAnnouncement();
  const [asking, setAsking] = useState(false);
  const requests = list.data?.requests ?? [];
  const allowed = list.data?.create.allowed ?? false;
  return (
    <section aria-labelledby="requests-title" className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="requests-title" className="text-base font-semibold text-slate-900">
          {prominent ? "Ask Ferry for a migration" : "Your requests"}
        </h2>
        {!prominent && allowed ? (
          <Button variant="secondary" onClick={() => setAsking(true)}>
            Ask for another engagement
          </Button>
        ) : null}
      </div>
      {region}
      {prominent && allowed ? (
        <Card className="max-w-3xl">
          <p className="mb-4 text-sm text-slate-700">
            Tell Ferry support which platform your end customers&apos; companies are on, roughly how many there are and when a migration would suit you. Support
            answers by opening the engagement (you are mailed, and it appears here) or by saying why not.
          </p>
          <RequestForm announce={announce} />
        </Card>
      ) : null}
      {requests.length ? <RequestList requests={requests} /> : !prominent ? <p className="text-sm text-slate-600">You have not asked for an engagement here yet.</p> : null}
      {asking ? (
        <FormDialogRequest
          onClose={() => setAsking(false)}
          onDone={(text) => {
            setAsking(false);
            announce({ tone: "success", text });
          }}
        />
      ) : null}
    </section>
  );
}

function RequestList({ requests }: { requests: readonly Request[] }) {
  return (
    <ul aria-label="Your requests for engagements" className="space-y-2">
      {requests.map((r) => (
        <li key={r.id} className="rounded-lg border border-slate-200 bg-white p-4 text-sm shadow-xs">
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-medium text-slate-900">{r.platform.name}</span>
            <Badge tone={STATUS[r.status].tone}>{STATUS[r.status].label}</Badge>
          </div>
          <p className="mt-1 text-slate-700">
            About {companiesText(r.companies)}, {when(r)}. Asked by {r.requestedBy.name} on {formatDateTime(r.requestedAt)}.
          </p>
          {r.note ? <p className="mt-1 break-words text-slate-600">“{r.note}”</p> : null}
          {r.status === "accepted" && r.engagement ? (
            <p className="mt-2">
              Accepted by {r.decidedBy?.name ?? "Ferry support"}:{" "}
              <Link href={`/portal/engagements/${r.engagement.id}`} className="font-mono font-medium text-indigo-700 underline">
                {r.engagement.reference}
              </Link>
            </p>
          ) : null}
          {r.status === "declined" ? (
            <p className="mt-2 break-words text-slate-800">
              Declined by {r.decidedBy?.name ?? "Ferry support"}: {r.declineReason}
            </p>
          ) : null}
          {r.status === "open" ? <p className="mt-2 text-slate-600">Ferry support answers it; you are mailed when they do.</p> : null}
        </li>
      ))}
    </ul>
  );
}

/** The form's submission, shared by the page's form and the dialog's. */
function useRequestSubmit(onDone: (text: string) => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.requests.create.mutationOptions());
  const form = useZodForm(ZRequestForm, { defaultValues: { platformKey: "", companies: "", preferredFrom: "", preferredTo: "", note: "" } });
  const onSubmit = form.handleSubmit(async (v) => {
    try {
      await create.mutateAsync({
        platformKey: v.platformKey,
        companies: Number(v.companies.replace(/[,\s]/g, "")),
        preferredFrom: parseUtcDay(v.preferredFrom) ?? new Date(Number.NaN),
        preferredTo: v.preferredTo ? parseUtcDay(v.preferredTo) : null,
        note: v.note || undefined,
      });
      await queryClient.invalidateQueries({ queryKey: trpc.requests.list.queryKey() });
      form.reset();
      onDone("Your request is with Ferry support. You are mailed when they answer.");
    } catch (e) {
      showServerError(form, e);
    }
  });
  return { form, onSubmit, pending: create.isPending };
}

type RequestFormState = ReturnType<typeof useRequestSubmit>["form"];

function RequestFields({ form }: { form: RequestFormState }) {
  const trpc = useTRPC();
  const platforms = useQuery(trpc.platforms.list.queryOptions());
  const from = parseUtcDay(form.watch("preferredFrom") ?? "");
  const to = parseUtcDay(form.watch("preferredTo") ?? "");
  return (
    <>
      <Field label="Platform" required error={fieldMessage(form, "platformKey")} hint="Ferry migrates tokens for these six platforms.">
        {(p) => (
          <Select {...p} {...form.register("platformKey")}>
            <option value="">Choose the platform…</option>
            {platforms.data?.managed.map((pl) => (
              <option key={pl.key} value={pl.key}>
                {pl.name}
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field label="Roughly how many companies" required error={fieldMessage(form, "companies")} hint="An estimate is fine; the token file says exactly.">
        {(p) => <Input {...p} {...form.register("companies")} inputMode="numeric" autoComplete="off" className="w-40" />}
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="First day that would suit" required error={fieldMessage(form, "preferredFrom")} hint={from ? `${formatUtcDay(from)} (UTC)` : fieldMessage(form, "preferredFrom") ? undefined : `A date, such as ${UTC_DAY_EXAMPLE}.`}>
          {(p) => <Input {...p} {...form.register("preferredFrom")} autoComplete="off" placeholder={UTC_DAY_EXAMPLE} />}
        </Field>
        <Field label="Last day that would suit" error={fieldMessage(form, "preferredTo")} hint={to ? `${formatUtcDay(to)} (UTC)` : "Optional."}>
          {(p) => <Input {...p} {...form.register("preferredTo")} autoComplete="off" />}
        </Field>
      </div>
      <Field label="Anything support should know" error={fieldMessage(form, "note")} hint="Optional: deadlines, the OAuth app, who to talk to.">
        {(p) => <Textarea {...p} rows={3} {...form.register("note")} />}
      </Field>
    </>
  );
}

function RequestForm({ announce }: { announce: Announce }) {
  const { form, onSubmit, pending } = useRequestSubmit((text) => announce({ tone: "success", text }));
  return (
    <Form onSubmit={onSubmit} className="space-y-4" aria-label="Ask for an engagement">
      {formMessage(form) ? <Notice tone="error">{formMessage(form)}</Notice> : null}
      <RequestFields form={form} />
      <Button type="submit" pending={pending}>
        Send the request
      </Button>
    </Form>
  );
}

function FormDialogRequest({ onClose, onDone }: { onClose: () => void; onDone: (text: string) => void }) {
  const { form, onSubmit, pending } = useRequestSubmit(onDone);
  return (
    <FormDialog title="Ask for an engagement" description="Ferry support answers by opening the engagement, or says why not." form={form} onSubmit={onSubmit} submitLabel="Send the request" pending={pending} onClose={onClose}>
      <RequestFields form={form} />
    </FormDialog>
  );
}
