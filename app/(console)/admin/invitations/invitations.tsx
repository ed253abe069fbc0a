"use client";
import { OrganizationSelect } from "@/app/_components/organization-select";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { Badge, Button, Card, EmptyState, Field, Form, Input, Notice, ProgressBar, Select, Table, TBody, Td, Th, THead, Tr, type BadgeTone } from "@/app/_components/ui";
import { formatDateTime, roleLabel } from "@/app/_lib/labels";
import { NO_FORM_ERROR, toFormError, withoutField, type FormError } from "@/app/_lib/trpc-error";
import type { InvitationStatus, Role } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";

const STATUS_TONE: Record<InvitationStatus, BadgeTone> = { pending: "info", accepted: "success", expired: "muted", revoked: "muted" };
const STATUS_LABEL: Record<InvitationStatus, string> = { pending: "Pending", accepted: "Accepted", expired: "Expired", revoked: "Revoked" };

export function Invitations() {
  return (
    <div className="grid gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <InvitationList />
      <InviteForm />
    </div>
  );
}

function InvitationList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invitations = useQuery(trpc.invitations.list.queryOptions());
  const [message, setMessage] = useState<{ tone: "success" | "error"; text: string } | null>(null);
  const revoke = useMutation(
    trpc.invitations.revoke.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.invitations.list.queryKey() });
        setMessage({ tone: "success", text: "Invitation revoked; its link no longer works." });
      },
      onError: (e) => setMessage({ tone: "error", text: toFormError(e).message }),
    }),
  );
  if (invitations.error) return <Notice tone="error">{toFormError(invitations.error).message}</Notice>;
  if (!invitations.data) return <ProgressBar label="Loading invitations" />;
  if (!invitations.data.length) return <EmptyState title="No invitations yet">Invite someone with the form.</EmptyState>;
  return (
    <div className="space-y-4">
      <div aria-live="polite">{message ? <Notice tone={message.tone === "error" ? "warning" : "success"}>{message.text}</Notice> : null}</div>
      <Table caption="Invitations">
        <THead>
          <Tr>
            <Th>Invitee</Th>
            <Th>Role</Th>
            <Th>Status</Th>
            <Th>Sent</Th>
            <Th>
              <span className="sr-only">Actions</span>
            </Th>
          </Tr>
        </THead>
        <TBody>
          {invitations.data.map((i) => (
            <Tr key={i.id}>
              <Td>
                <span className="block font-medium">{i.name}</span>
                <span className="block text-slate-600">{i.email}</span>
              </Td>
              <Td>
                {roleLabel(i.role)}
                {i.organizationName ? <span className="block text-slate-600">{i.organizationName}</span> : null}
              </Td>
              <Td>
                <Badge tone={STATUS_TONE[i.status]}>{STATUS_LABEL[i.status]}</Badge>
                {i.status === "pending" ? <span className="mt-1 block text-xs text-slate-500">Expires {formatDateTime(i.expiresAt)}</span> : null}
              </Td>
              <Td className="whitespace-nowrap text-slate-600">{formatDateTime(i.createdAt)}</Td>
              <Td className="text-right">
                {i.status === "pending" ? (
                  <Button
                    size="sm"
                    variant="secondary"
                    pending={revoke.isPending && revoke.variables?.invitationId === i.id}
                    onClick={() => revoke.mutate({ invitationId: i.id })}
                  >
                    Revoke<span className="sr-only"> invitation for {i.email}</span>
                  </Button>
                ) : null}
              </Td>
            </Tr>
          ))}
        </TBody>
      </Table>
    </div>
  );
}

function InviteForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("customer");
  const [organizationId, setOrganizationId] = useState("");
  const [error, setError] = useState<FormError>(NO_FORM_ERROR);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const invite = useMutation(
    trpc.invitations.create.mutationOptions({
      onSuccess: async (_, input) => {
        await queryClient.invalidateQueries({ queryKey: trpc.invitations.list.queryKey() });
        setSentTo(input.email.trim().toLowerCase());
        setEmail("");
        setName("");
      },
      onError: (e) => setError(toFormError(e)),
    }),
  );
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(NO_FORM_ERROR);
    setSentTo(null);
    invite.mutate({ email, name, role, organizationId: role === "customer" ? organizationId || null : null });
  }
  return (
    <Card title="Invite someone" className="self-start">
      <Form errorKey={error} onSubmit={onSubmit} className="space-y-4" aria-label="Invite someone">
        {sentTo ? (
          <Notice tone="success">
            Invitation sent to {sentTo}. The email is in the{" "}
            <Link href="/admin/outbox" className="font-medium underline">
              outbox
            </Link>
            .
          </Notice>
        ) : null}
        {error.message && !Object.keys(error.fields).length ? <Notice tone="error">{error.message}</Notice> : null}
        <Field label="Email" error={error.fields.email}>
          {(p) => <Input {...p} name="email" type="email" autoComplete="off" value={email} onChange={(e) => {
                setEmail(e.target.value);
                setError((current) => withoutField(current, "email"));
              }} />}
        </Field>
        <Field label="Name" error={error.fields.name}>
          {(p) => <Input {...p} name="name" autoComplete="off" value={name} onChange={(e) => {
                setName(e.target.value);
                setError((current) => withoutField(current, "name"));
              }} />}
        </Field>
        <Field label="Role" error={error.fields.role}>
          {(p) => (
            <Select {...p} name="role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
              <option value="customer">Customer user</option>
              <option value="support">Support staff</option>
              <option value="admin">Admin</option>
            </Select>
          )}
        </Field>
        {role === "customer" ? (
          <Field label="Organisation" error={error.fields.organizationId}>
            {(p) => (
              <OrganizationSelect
                control={p}
                value={organizationId}
                onChange={(id) => {
                  setOrganizationId(id);
                  setError((current) => withoutField(current, "organizationId"));
                }}
              />
            )}
          </Field>
        ) : null}
        <Button type="submit" pending={invite.isPending}>
          Send invitation
        </Button>
      </Form>
    </Card>
  );
}
