"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { QueryView } from "@/app/_components/query-view";
import { Badge, Button, Card, CopyButton, Field, Form, Input, Notice, Select, Table, TBody, Td, Th, THead, Tr } from "@/app/_components/ui";
import { fieldMessage, formMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import { formatDateTime } from "@/app/_lib/labels";
import { useTRPC } from "@/app/_trpc/react";
import { ZCreateTargetRequest } from "@/server/api/routers/targets.types";

export function ServiceTargets() {
  const trpc = useTRPC();
  const targets = useQuery(trpc.targets.list.queryOptions());
  return (
    <div className="grid gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <div>
        <QueryView
          query={targets}
          loading="Loading service targets"
          empty={{ title: "No service targets yet", text: "Add the real service with the form. npm start adds the built-in sandbox." }}
        >
          {(rows) => (
            <Table caption="Service targets">
              <THead>
                <Tr>
                  <Th>Name</Th>
                  <Th>Kind</Th>
                  <Th>Base URL</Th>
                  <Th>API key</Th>
                  <Th>Added</Th>
                </Tr>
              </THead>
              <TBody>
                {rows.map((t) => (
                  <Tr key={t.id}>
                    <Td className="font-medium">{t.name}</Td>
                    <Td>
                      <Badge tone={t.kind === "sandbox" ? "neutral" : "info"}>{t.kind === "sandbox" ? "Sandbox" : "Service"}</Badge>
                    </Td>
                    <Td className="whitespace-nowrap">
                      <code className="text-xs text-slate-700">{t.baseUrl}</code>
                      <CopyButton value={t.baseUrl} label={`base URL of ${t.name}`} />
                    </Td>
                    <Td>
                      <code className="text-xs text-slate-600" aria-label={`API key, masked: ends ${t.apiKeyMasked.slice(-4)}`}>
                        {t.apiKeyMasked}
                      </code>
                    </Td>
                    <Td className="whitespace-nowrap text-slate-600">{formatDateTime(t.createdAt)}</Td>
                  </Tr>
                ))}
              </TBody>
            </Table>
          )}
        </QueryView>
      </div>
      <AddTarget />
    </div>
  );
}

function AddTarget() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [added, setAdded] = useState<string | null>(null);
  const form = useZodForm(ZCreateTargetRequest, { defaultValues: { name: "", baseUrl: "", apiKey: "", kind: "service" } });
  const create = useMutation(trpc.targets.create.mutationOptions());
  const onSubmit = form.handleSubmit(async (input) => {
    setAdded(null);
    try {
      await create.mutateAsync(input);
      await queryClient.invalidateQueries({ queryKey: trpc.targets.list.queryKey() });
      setAdded(input.name);
      // The key leaves the browser's memory as soon as it is stored.
      form.reset();
    } catch (e) {
      showServerError(form, e);
    }
  });
  return (
    <Card title="Add a service target" className="self-start">
      <Form onSubmit={onSubmit} className="space-y-4" aria-label="Add a service target">
        {added ? <Notice tone="success">Added {added}.</Notice> : null}
        {formMessage(form) ? <Notice tone="error">{formMessage(form)}</Notice> : null}
        <Field label="Name" error={fieldMessage(form, "name")} hint="e.g. Production — Acme Lending">
          {(p) => <Input {...p} {...form.register("name")} />}
        </Field>
        <Field label="Base URL" error={fieldMessage(form, "baseUrl")} hint="The service's API root, e.g. https://api.codat.io">
          {(p) => <Input {...p} {...form.register("baseUrl")} inputMode="url" />}
        </Field>
        <Field label="API key" error={fieldMessage(form, "apiKey")} hint="Encrypted at rest; shown masked afterwards.">
          {(p) => <Input {...p} {...form.register("apiKey")} type="password" autoComplete="off" />}
        </Field>
        <Field label="Kind" error={fieldMessage(form, "kind")}>
          {(p) => (
            <Select {...p} {...form.register("kind")}>
              <option value="service">The real service</option>
              <option value="sandbox">A sandbox (rehearsal)</option>
            </Select>
          )}
        </Field>
        <Button type="submit" pending={create.isPending}>
          Add target
        </Button>
      </Form>
    </Card>
  );
}
