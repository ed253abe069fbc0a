"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Badge, Button, Card, CopyButton, EmptyState, Field, Form, Input, Notice, ProgressBar, Select, Table, TBody, Td, Th, THead, Tr } from "@/app/_components/ui";
import { formatDateTime } from "@/app/_lib/labels";
import { NO_FORM_ERROR, toFormError, withoutField, type FormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";

export function ServiceTargets() {
  const trpc = useTRPC();
  const targets = useQuery(trpc.targets.list.queryOptions());
  return (
    <div className="grid gap-8 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <div>
        {targets.error ? <Notice tone="error">{toFormError(targets.error).message}</Notice> : null}
        {!targets.data ? <ProgressBar label="Loading service targets" /> : null}
        {targets.data && !targets.data.length ? (
          <EmptyState title="No service targets yet">Add the real service with the form. npm start adds the built-in sandbox.</EmptyState>
        ) : null}
        {targets.data?.length ? (
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
              {targets.data.map((t) => (
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
        ) : null}
      </div>
      <AddTarget />
    </div>
  );
}

type Draft = { name: string; baseUrl: string; apiKey: string; kind: "service" | "sandbox" };
const EMPTY: Draft = { name: "", baseUrl: "", apiKey: "", kind: "service" };

function AddTarget() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [error, setError] = useState<FormError>(NO_FORM_ERROR);
  const [added, setAdded] = useState<string | null>(null);
  const create = useMutation(
    trpc.targets.create.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.targets.list.queryKey() });
        setAdded(draft.name);
        // The key leaves the browser's memory as soon as it is stored.
        setDraft(EMPTY);
      },
      onError: (e) => setError(toFormError(e)),
    }),
  );
  const set = (field: keyof Draft) => (value: string) => {
    setDraft((d) => ({ ...d, [field]: value }));
    setError((current) => withoutField(current, field));
  };
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(NO_FORM_ERROR);
    setAdded(null);
    create.mutate(draft);
  }
  return (
    <Card title="Add a service target" className="self-start">
      <Form errorKey={error} onSubmit={onSubmit} className="space-y-4" aria-label="Add a service target">
        {added ? <Notice tone="success">Added {added}.</Notice> : null}
        {error.message && !Object.keys(error.fields).length ? <Notice tone="error">{error.message}</Notice> : null}
        <Field label="Name" error={error.fields.name} hint="e.g. Production — Acme Lending">
          {(p) => <Input {...p} name="name" value={draft.name} onChange={(e) => set("name")(e.target.value)} />}
        </Field>
        <Field label="Base URL" error={error.fields.baseUrl} hint="The service's API root, e.g. https://api.codat.io">
          {(p) => <Input {...p} name="baseUrl" inputMode="url" value={draft.baseUrl} onChange={(e) => set("baseUrl")(e.target.value)} />}
        </Field>
        <Field label="API key" error={error.fields.apiKey} hint="Encrypted at rest; shown masked afterwards.">
          {(p) => (
            <Input {...p} name="apiKey" type="password" autoComplete="off" value={draft.apiKey} onChange={(e) => set("apiKey")(e.target.value)} />
          )}
        </Field>
        <Field label="Kind" error={error.fields.kind}>
          {(p) => (
            <Select {...p} name="kind" value={draft.kind} onChange={(e) => set("kind")(e.target.value)}>
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
