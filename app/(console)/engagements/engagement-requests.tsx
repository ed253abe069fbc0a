"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { z } from "zod";
import { FormDialog } from "@/app/_components/form-dialog";
import { TextDialog } from "@/app/_components/text-dialog";
import { Badge, Button, Field, ResponsiveTable, Select, type ResponsiveColumn } from "@/app/_components/ui";
import { fieldMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import { useAnnouncement } from "@/app/_components/use-announcement";
import { formatDateTime } from "@/app/_lib/labels";
import type { RouterOutputs } from "@/app/_lib/types";
import { formatUtcDay } from "@/app/_lib/utc-time";
import { useTRPC } from "@/app/_trpc/react";
import { companiesText } from "@/core/words";

type Request = RouterOutputs["requests"]["list"]["requests"][number];

const when = (r: Pick<Request, "preferredFrom" | "preferredTo">) => `${formatUtcDay(r.preferredFrom)}${r.preferredTo ? ` – ${formatUtcDay(r.preferredTo)}` : " onwards"}`;

/**
 * Customers' requests for engagements, where support starts its day: the open ones, longest
 * waiting first, each accepted into a real engagement (owner chosen) or declined with a reason
 * the customer is mailed; the latest answered ones folded under them for the record. Nothing is
 * shown while there is nothing to answer and nothing answered.
 */
export function EngagementRequests() {
  const trpc = useTRPC();
  const list = useQuery(trpc.requests.list.queryOptions());
  const { announce, region } = useAnnouncement();
  const [accepting, setAccepting] = useState<Request | null>(null);
  const [declining, setDeclining] = useState<Request | null>(null);
  const requests = list.data?.requests ?? [];
  const open = requests.filter((r) => r.status === "open");
  const answered = requests.filter((r) => r.status !== "open");
  if (!requests.length) return region;

  const columns: ResponsiveColumn<Request>[] = [
    {
      label: "Organisation",
      title: true,
      cell: (r) => (
        <>
          <span className="font-medium text-slate-900">{r.organization.name}</span>
          <span className="block text-xs text-slate-600">
            {r.requestedBy.name} · {r.requestedBy.email}
          </span>
        </>
      ),
    },
    { label: "Platform", cell: (r) => r.platform.name },
    { label: "Companies", className: "whitespace-nowrap", cell: (r) => `about ${companiesText(r.companies)}` },
    { label: "Would suit", className: "whitespace-nowrap", cell: (r) => when(r) },
    { label: "Note", wide: true, present: (r) => !!r.note, className: "min-w-40 max-w-72", cell: (r) => (r.note ? <span className="break-words">{r.note}</span> : <span className="text-slate-400">—</span>) },
    { label: "Asked", className: "whitespace-nowrap text-slate-600", cell: (r) => formatDateTime(r.requestedAt) },
    {
      label: "Actions",
      labelHidden: true,
      className: "whitespace-nowrap",
      cell: (r) => (
        <span className="flex flex-wrap gap-2">
          <Button size="sm" disabled={!r.accept.allowed} onClick={() => setAccepting(r)}>
            Accept<span className="sr-only"> the request of {r.organization.name} for {r.platform.name}</span>
          </Button>
          <Button size="sm" variant="secondary" disabled={!r.decline.allowed} onClick={() => setDeclining(r)}>
            Decline<span className="sr-only"> the request of {r.organization.name} for {r.platform.name}</span>
          </Button>
        </span>
      ),
    },
  ];

  return (
    <section id="requests" aria-labelledby="requests-title" className="scroll-mt-20 space-y-3 rounded-lg border border-amber-300 bg-amber-50/60 p-4 shadow-xs">
      <div className="flex flex-wrap items-center gap-2">
        <h2 id="requests-title" className="text-base font-semibold text-slate-900">
          Requests from customers
        </h2>
        {open.length ? <Badge tone="warning">{open.length.toLocaleString("en-GB")} to answer</Badge> : null}
      </div>
      {region}
      {open.length ? (
        <ResponsiveTable caption="Requests to answer" captionVisible={false} columns={columns} rows={open} rowKey={(r) => r.id} dense />
      ) : (
        <p className="text-sm text-slate-700">Every request is answered.</p>
      )}
      {answered.length ? (
        <details className="text-sm text-slate-700">
          <summary className="cursor-pointer font-medium text-slate-800">Answered lately ({answered.length.toLocaleString("en-GB")})</summary>
          <ul className="mt-2 space-y-1">
            {answered.map((r) => (
              <li key={r.id}>
                {r.organization.name}, {r.platform.name}: {r.status === "accepted" ? `accepted as ${r.engagement?.reference ?? "an engagement"}` : `declined (${r.declineReason})`} by{" "}
                {r.decidedBy?.name ?? "support"} {formatDateTime(r.decidedAt)}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {accepting ? (
        <AcceptDialog
          request={accepting}
          onClose={() => setAccepting(null)}
        />
      ) : null}
      {declining ? (
        <DeclineDialog
          request={declining}
          onClose={() => setDeclining(null)}
          onDone={(text) => {
            setDeclining(null);
            announce({ tone: "success", text });
          }}
        />
      ) : null}
    </section>
  );
}

/** The owner chosen; empty until the list of staff arrives, which leaves it to the one accepting. */
const ZAcceptForm = z.object({ ownerId: z.string() });

/** Accepting opens the engagement (owner chosen, the viewer by default) and goes to it. */
function AcceptDialog({ request: r, onClose }: { request: Request; onClose: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.me.get.queryOptions());
  const staff = useQuery(trpc.users.staff.queryOptions());
  const accept = useMutation(trpc.requests.accept.mutationOptions());
  const form = useZodForm(ZAcceptForm, { defaultValues: { ownerId: me.data?.id ?? "" } });
  const chosen = form.watch("ownerId") || me.data?.id || "";
  const onSubmit = form.handleSubmit(async ({ ownerId }) => {
    try {
      const { engagementId } = await accept.mutateAsync({ requestId: r.id, ownerId: ownerId || null });
      await Promise.all([queryClient.invalidateQueries({ queryKey: trpc.requests.list.queryKey() }), queryClient.invalidateQueries({ queryKey: trpc.engagements.list.pathKey() })]);
      router.push(`/engagements/${engagementId}`);
    } catch (e) {
      // An engagement opened meanwhile (CONFLICT) names no field of this form: it shows above it.
      showServerError(form, e);
    }
  });
  return (
    <FormDialog
      title={`Accept ${r.organization.name}'s request`}
      description={`Opens a ${r.platform.name} engagement for ${r.organization.name} (about ${companiesText(r.companies)}, ${when(r)}) on the built-in sandbox; the customer is mailed and starts with step 1.`}
      form={form}
      onSubmit={onSubmit}
      submitLabel="Open the engagement"
      pending={accept.isPending}
      onClose={onClose}
    >
      <Field label="Owner" required error={fieldMessage(form, "ownerId")} hint="Who carries it through its six steps.">
        {(p) => (
          <Select {...p} {...form.register("ownerId")} value={chosen}>
            {staff.data?.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            )) ?? <option value={chosen}>{me.data?.name ?? "You"}</option>}
          </Select>
        )}
      </Field>
    </FormDialog>
  );
}

function DeclineDialog({ request: r, onClose, onDone }: { request: Request; onClose: () => void; onDone: (text: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const decline = useMutation(trpc.requests.decline.mutationOptions());
  return (
    <TextDialog
      title={`Decline ${r.organization.name}'s request`}
      description={`${r.platform.name}, about ${companiesText(r.companies)}, ${when(r)}.`}
      label="Why?"
      required
      hint="The customer is mailed it and reads it in the portal, so say what they can do next."
      field="reason"
      submitLabel="Decline the request"
      cancelLabel="Keep it open"
      variant="danger"
      pending={decline.isPending}
      onClose={onClose}
      submit={async (reason) => {
        await decline.mutateAsync({ requestId: r.id, reason: reason ?? "" });
        await queryClient.invalidateQueries({ queryKey: trpc.requests.list.queryKey() });
        onDone(`Declined ${r.organization.name}'s request; they are mailed why.`);
      }}
    />
  );
}
