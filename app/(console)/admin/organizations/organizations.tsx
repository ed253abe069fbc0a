"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, Card, CopyButton, EmptyState, Field, Form, Input, Notice, ProgressBar, Table, TBody, Td, Th, THead, Tr } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import { NO_FORM_ERROR, toFormError, withoutField, type FormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";

export function Organizations() {
  const trpc = useTRPC();
  const orgs = useQuery(trpc.organizations.list.queryOptions());
  return (
    <div className="grid gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <div>
        {orgs.error ? <Notice tone="error">{toFormError(orgs.error).message}</Notice> : null}
        {!orgs.data ? <ProgressBar label="Loading organisations" /> : null}
        {orgs.data && !orgs.data.length ? <EmptyState title="No organisations yet">Create the first one with the form.</EmptyState> : null}
        {orgs.data?.length ? (
          <Table caption="Organisations">
            <THead>
              <Tr>
                <Th>Name</Th>
                <Th>Users</Th>
                <Th>Engagements</Th>
                <Th>Created</Th>
                <Th>Id</Th>
              </Tr>
            </THead>
            <TBody>
              {orgs.data.map((o) => (
                <Tr key={o.id}>
                  <Td className="font-medium">{o.name}</Td>
                  <Td className="tabular-nums">{o.userCount}</Td>
                  <Td className="tabular-nums">{o.engagementCount}</Td>
                  <Td className="whitespace-nowrap text-slate-600">{formatDateTime(o.createdAt)}</Td>
                  <Td className="whitespace-nowrap">
                    <code className="text-xs text-slate-600">{o.id.slice(0, 8)}…</code>
                    <CopyButton value={o.id} label={`id of ${o.name}`} />
                  </Td>
                </Tr>
              ))}
            </TBody>
          </Table>
        ) : null}
      </div>
      <CreateOrganization />
    </div>
  );
}

function CreateOrganization() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [error, setError] = useState<FormError>(NO_FORM_ERROR);
  const [created, setCreated] = useState<string | null>(null);
  const create = useMutation(
    trpc.organizations.create.mutationOptions({
      onSuccess: async (org) => {
        await queryClient.invalidateQueries({ queryKey: trpc.organizations.list.queryKey() });
        setCreated(org.name);
        setName("");
      },
      onError: (e) => setError(toFormError(e)),
    }),
  );
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(NO_FORM_ERROR);
    setCreated(null);
    create.mutate({ name });
  }
  return (
    <Card title="New organisation" className="self-start">
      <Form errorKey={error} onSubmit={onSubmit} className="space-y-4" aria-label="New organisation">
        {created ? <Notice tone="success">Created {created}.</Notice> : null}
        {error.message && !error.fields.name ? <Notice tone="error">{error.message}</Notice> : null}
        <Field label="Name" error={error.fields.name}>
          {(p) => <Input {...p} name="name" value={name} onChange={(e) => {
                setName(e.target.value);
                setError((current) => withoutField(current, "name"));
              }} autoComplete="organization" />}
        </Field>
        <Button type="submit" pending={create.isPending}>
          Create organisation
        </Button>
      </Form>
    </Card>
  );
}
