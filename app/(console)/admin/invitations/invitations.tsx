"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { z } from "zod";
import { OrganizationSelect } from "@/app/_components/organization-select";
import { QueryView } from "@/app/_components/query-view";
import { useAnnouncement } from "@/app/_components/use-announcement";
import { Badge, Button, Card, CopyableId, Field, Form, Input, Notice, ResponsiveTable, Select, type BadgeTone, type ResponsiveColumn } from "@/app/_components/ui";
import { fieldMessage, formMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import { formatDateTime, roleLabel } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { InvitationStatus, RouterOutputs } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { ZCreateInvitationRequest } from "@/server/api/routers/accounts.types";

// The organisation is the server's rule (customers need one, staff none): the form sends it as chosen.
const ZInviteForm = ZCreateInvitationRequest.extend({ organizationId: z.string() });

const STATUS_TONE: Record<InvitationStatus, BadgeTone> = { pending: "info", accepted: "success", expired: "muted", revoked: "muted" };
const STATUS_LABEL: Record<InvitationStatus, string> = { pending: "Pending", accepted: "Accepted", expired: "Expired", revoked: "Revoked" };

type Invitation = RouterOutputs["invitations"]["list"][number];

export function Invitations() {
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <InvitationList />
      <InviteForm />
    </div>
  );
}

function InvitationList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invitations = useQuery(trpc.invitations.list.queryOptions());
  const { announce, region } = useAnnouncement();
  const revoke = useMutation(
    trpc.invitations.revoke.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.invitations.list.queryKey() });
        announce({ tone: "success", text: "Invitation revoked; its link no longer works." });
      },
      onError: (e) => announce({ tone: "error", text: toFormError(e).message }),
    }),
  );
  return (
    <QueryView query={invitations} loading="Loading invitations" empty={{ title: "No invitations yet", text: "Invite someone with the form." }}>
      {(rows) => (
    <div className="space-y-4">
      {region}
      <ResponsiveTable
        caption="Invitations"
        captionVisible={false}
        rows={rows}
        rowKey={(i) => i.id}
        dense
        columns={[
          {
            label: "Invitee",
            title: true,
            className: "min-w-48",
            cell: (i) => (
              <>
                <span className="block font-medium">{i.name}</span>
                <span className="block wrap-anywhere text-slate-600">{i.email}</span>
              </>
            ),
          },
          {
            label: "Role",
            cell: (i) => (
              <>
                {roleLabel(i.role)}
                {i.organizationName ? <span className="block text-slate-600">{i.organizationName}</span> : null}
              </>
            ),
          },
          {
            label: "Status",
            cell: (i) => (
              <>
                <Badge tone={STATUS_TONE[i.status]}>{STATUS_LABEL[i.status]}</Badge>
                <span className="mt-1 block text-xs whitespace-nowrap text-slate-500">Sent {formatDateTime(i.createdAt)}</span>
                {i.status === "pending" ? <span className="block text-xs whitespace-nowrap text-slate-500">Expires {formatDateTime(i.expiresAt)}</span> : null}
              </>
            ),
          },
          {
            // The link and the row's one action together, so the table fits its column of the page.
            label: "Link",
            present: (i) => i.status === "pending",
            cell: (i) =>
              i.status === "pending" ? (
                <span className="flex flex-col items-start gap-2">
                  <InvitationLink invitation={i} />
                  <Button size="sm" variant="secondary" pending={revoke.isPending && revoke.variables?.invitationId === i.id} onClick={() => revoke.mutate({ invitationId: i.id })}>
                    Revoke<span className="sr-only"> invitation for {i.email}</span>
                  </Button>
                </span>
              ) : (
                <span className="text-slate-400">—</span>
              ),
          },
        ] satisfies ResponsiveColumn<Invitation>[]}
      />
    </div>
      )}
    </QueryView>
  );
}

/**
 * A pending invitation's link, to copy and pass on (the embedded outbox keeps it sealed): shown on
 * request, which the server records, then a copy button beside its distinguishing end. With SMTP
 * the link went out by email and is not kept.
 */
function InvitationLink({ invitation: i }: { invitation: Invitation }) {
  const trpc = useTRPC();
  const reveal = useMutation(trpc.invitations.revealLink.mutationOptions());
  if (!i.linkKept) return <span className="text-xs text-slate-600">Sent by email; not kept</span>;
  if (reveal.data) return <CopyableId value={reveal.data.link} label={`invitation link for ${i.email}`} tail />;
  return (
    <span className="space-y-1">
      <Button size="sm" variant="ghost" pending={reveal.isPending} onClick={() => reveal.mutate({ invitationId: i.id })}>
        Show link<span className="sr-only"> of the invitation for {i.email}</span>
      </Button>
      {reveal.error ? <span className="block text-xs text-red-700">{toFormError(reveal.error).message}</span> : null}
    </span>
  );
}

function InviteForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const form = useZodForm(ZInviteForm, { defaultValues: { email: "", name: "", role: "customer", organizationId: "" } });
  const role = form.watch("role");
  const invite = useMutation(trpc.invitations.create.mutationOptions());
  const onSubmit = form.handleSubmit(async (input) => {
    setSentTo(null);
    try {
      await invite.mutateAsync({ ...input, organizationId: input.role === "customer" ? input.organizationId || null : null });
      await queryClient.invalidateQueries({ queryKey: trpc.invitations.list.queryKey() });
      setSentTo(input.email.toLowerCase());
      form.reset({ ...form.getValues(), email: "", name: "" });
    } catch (e) {
      showServerError(form, e);
    }
  });
  return (
    <Card title="Invite someone" className="self-start">
      <Form onSubmit={onSubmit} className="space-y-4" aria-label="Invite someone">
        {sentTo ? (
          <Notice tone="success">
            Invitation sent to {sentTo}. The email is in the{" "}
            <Link href="/admin/outbox" className="font-medium underline">
              outbox
            </Link>
            .
          </Notice>
        ) : null}
        {formMessage(form) ? <Notice tone="error">{formMessage(form)}</Notice> : null}
        <Field label="Email" error={fieldMessage(form, "email")}>
          {(p) => <Input {...p} {...form.register("email")} type="email" autoComplete="off" />}
        </Field>
        <Field label="Name" error={fieldMessage(form, "name")}>
          {(p) => <Input {...p} {...form.register("name")} autoComplete="off" />}
        </Field>
        <Field label="Role" error={fieldMessage(form, "role")}>
          {(p) => (
            <Select {...p} {...form.register("role")}>
              <option value="customer">Customer user</option>
              <option value="support">Support staff</option>
              <option value="admin">Admin</option>
            </Select>
          )}
        </Field>
        {role === "customer" ? (
          <Field label="Organisation" error={fieldMessage(form, "organizationId")}>
            {(p) => <OrganizationSelect control={p} {...form.register("organizationId")} />}
          </Field>
        ) : null}
        <Button type="submit" pending={invite.isPending}>
          Send invitation
        </Button>
      </Form>
    </Card>
  );
}
