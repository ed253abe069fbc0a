"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { QueryView } from "@/app/_components/query-view";
import { Button, Card, CopyButton, Field, Form, Input, Notice, Table, TBody, Td, Th, THead, Tr } from "@/app/_components/ui";
import { fieldMessage, formMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import { formatDateTime } from "@/app/_lib/labels";
import { useTRPC } from "@/app/_trpc/react";
import { ZCreateOrganizationRequest } from "@/server/api/routers/accounts.types";
import { ClockTargetsDialog } from "./clock-targets-dialog";

export function Organizations() {
  const trpc = useTRPC();
  const orgs = useQuery(trpc.organizations.list.queryOptions());
  const [editing, setEditing] = useState<{ id: string; name: string } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <div className="space-y-4">
        {saved ? <Notice tone="success">{saved}</Notice> : null}
        <QueryView query={orgs} loading="Loading organisations" empty={{ title: "No organisations yet", text: "Create the first one with the form." }}>
          {(rows) => (
            <Table caption="Organisations">
              <THead>
                <Tr>
                  <Th>Name</Th>
                  <Th>Users</Th>
                  <Th>Engagements</Th>
                  <Th>Created</Th>
                  <Th>Id</Th>
                  <Th>
                    <span className="sr-only">Actions</span>
                  </Th>
                </Tr>
              </THead>
              <TBody>
                {rows.map((o) => (
                  <Tr key={o.id}>
                    <Td className="font-medium">{o.name}</Td>
                    <Td className="tabular-nums">{o.userCount}</Td>
                    <Td className="tabular-nums">{o.engagementCount}</Td>
                    <Td className="whitespace-nowrap text-slate-600">{formatDateTime(o.createdAt)}</Td>
                    <Td className="whitespace-nowrap">
                      <code className="text-xs text-slate-600">{o.id.slice(0, 8)}…</code>
                      <CopyButton value={o.id} label={`id of ${o.name}`} />
                    </Td>
                    <Td className="whitespace-nowrap">
                      <Button variant="secondary" size="sm" onClick={() => setEditing({ id: o.id, name: o.name })} aria-label={`Move targets of ${o.name}`}>
                        Move targets
                      </Button>
                    </Td>
                  </Tr>
                ))}
              </TBody>
            </Table>
          )}
        </QueryView>
      </div>
      <CreateOrganization />
      {editing ? <ClockTargetsDialog organization={editing} onClose={() => setEditing(null)} onSaved={setSaved} /> : null}
    </div>
  );
}

function CreateOrganization() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<string | null>(null);
  const form = useZodForm(ZCreateOrganizationRequest, { defaultValues: { name: "" } });
  const create = useMutation(trpc.organizations.create.mutationOptions());
  const onSubmit = form.handleSubmit(async (input) => {
    setCreated(null);
    try {
      const org = await create.mutateAsync(input);
      await queryClient.invalidateQueries({ queryKey: trpc.organizations.list.queryKey() });
      setCreated(org.name);
      form.reset();
    } catch (e) {
      showServerError(form, e);
    }
  });
  return (
    <Card title="New organisation" className="self-start">
      <Form onSubmit={onSubmit} className="space-y-4" aria-label="New organisation">
        {created ? <Notice tone="success">Created {created}.</Notice> : null}
        {formMessage(form) ? <Notice tone="error">{formMessage(form)}</Notice> : null}
        <Field label="Name" error={fieldMessage(form, "name")}>
          {(p) => <Input {...p} {...form.register("name")} autoComplete="organization" />}
        </Field>
        <Button type="submit" pending={create.isPending}>
          Create organisation
        </Button>
      </Form>
    </Card>
  );
}
