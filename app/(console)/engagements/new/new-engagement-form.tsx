"use client";
import { OrganizationSelect } from "@/app/_components/organization-select";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button, Card, Field, Form, Notice, Select } from "@/app/_components/ui";
import { NO_FORM_ERROR, toFormError, withoutField, type FormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";

export function NewEngagementForm({ viewerId }: { viewerId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const platforms = useQuery(trpc.platforms.list.queryOptions());
  const staff = useQuery(trpc.users.staff.queryOptions());

  const [organizationId, setOrganizationId] = useState("");
  const [platformKey, setPlatformKey] = useState("");
  const [ownerId, setOwnerId] = useState(viewerId);
  const [error, setError] = useState<FormError>(NO_FORM_ERROR);

  const create = useMutation(
    trpc.engagements.create.mutationOptions({
      onSuccess: async ({ id }) => {
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.engagements.list.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.organizations.list.queryKey() }),
        ]);
        router.push(`/engagements/${id}`);
      },
      onError: (e) => setError(toFormError(e)),
    }),
  );

  const unmanaged = platforms.data?.unmanaged.find((p) => p.key === platformKey);
  const managed = platforms.data?.managed.find((p) => p.key === platformKey);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(NO_FORM_ERROR);
    // An unmanaged platform is sent on purpose: the server is the one that refuses it, with the reason.
    create.mutate({ organizationId, platformKey, ownerId: ownerId || null });
  }

  const formMessage = error.message && !Object.keys(error.fields).length ? error.message : "";

  return (
    <Card className="max-w-2xl">
      <Form errorKey={error} onSubmit={onSubmit} className="space-y-5" aria-label="New engagement">
        {formMessage ? <Notice tone="error">{formMessage}</Notice> : null}
        <Field label="Customer organisation" error={error.fields.organizationId}>
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
        <Field
          label="Platform"
          error={error.fields.platformKey}
          hint={
            managed
              ? `Callback URL the customer adds to its app: ${managed.callbackUrl}`
              : "Managed migrations exist for six platforms. Others are listed so you can tell the customer why not."
          }
        >
          {(p) => (
            <Select {...p} name="platformKey" value={platformKey} onChange={(e) => {
                setPlatformKey(e.target.value);
                setError((current) => withoutField(current, "platformKey"));
              }}>
              <option value="">Choose a platform…</option>
              <optgroup label="Managed platforms">
                {platforms.data?.managed.map((pl) => (
                  <option key={pl.key} value={pl.key}>
                    {pl.name}
                  </option>
                ))}
              </optgroup>
              <optgroup label="Other platforms (no managed process)">
                {platforms.data?.unmanaged.map((pl) => (
                  <option key={pl.key} value={pl.key}>
                    {pl.name}
                  </option>
                ))}
              </optgroup>
            </Select>
          )}
        </Field>
        {unmanaged && !error.fields.platformKey ? (
          <Notice tone="warning" title={`${unmanaged.name} has no managed migration`}>
            {unmanaged.reason}
          </Notice>
        ) : null}
        <Field label="Owner" error={error.fields.ownerId} hint="The support person who carries the engagement through its steps.">
          {(p) => (
            <Select {...p} name="ownerId" value={ownerId} onChange={(e) => {
                setOwnerId(e.target.value);
                setError((current) => withoutField(current, "ownerId"));
              }}>
              {staff.data?.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                  {s.id === viewerId ? " (me)" : ""}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <div className="flex gap-3">
          <Button type="submit" pending={create.isPending}>
            Create engagement
          </Button>
          <Button variant="ghost" onClick={() => router.push("/engagements")}>
            Cancel
          </Button>
        </div>
      </Form>
    </Card>
  );
}
