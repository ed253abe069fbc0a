"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { OrganizationSelect } from "@/app/_components/organization-select";
import { Button, Card, Field, Form, Notice, Select } from "@/app/_components/ui";
import { fieldMessage, formMessage, showServerError, useZodForm } from "@/app/_components/ui/use-zod-form";
import { useTRPC } from "@/app/_trpc/react";
import { ZCreateEngagementRequest } from "@/server/api/routers/engagements.types";

export function NewEngagementForm({ viewerId }: { viewerId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const platforms = useQuery(trpc.platforms.list.queryOptions());
  const staff = useQuery(trpc.users.staff.queryOptions());
  const form = useZodForm(ZCreateEngagementRequest, { defaultValues: { organizationId: "", platformKey: "", ownerId: viewerId } });
  const create = useMutation(trpc.engagements.create.mutationOptions());

  const platformKey = form.watch("platformKey");
  const unmanaged = platforms.data?.unmanaged.find((p) => p.key === platformKey);
  const managed = platforms.data?.managed.find((p) => p.key === platformKey);

  // An unmanaged platform is sent on purpose: the server is the one that refuses it, with the reason.
  const onSubmit = form.handleSubmit(async (input) => {
    try {
      const { id } = await create.mutateAsync({ ...input, ownerId: input.ownerId || null });
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: trpc.engagements.list.pathKey() }),
        queryClient.invalidateQueries({ queryKey: trpc.organizations.list.queryKey() }),
      ]);
      router.push(`/engagements/${id}`);
    } catch (e) {
      showServerError(form, e);
    }
  });

  return (
    <Card className="max-w-2xl">
      <Form onSubmit={onSubmit} className="space-y-5" aria-label="New engagement">
        {formMessage(form) ? <Notice tone="error">{formMessage(form)}</Notice> : null}
        <Field label="Customer organisation" error={fieldMessage(form, "organizationId")}>
          {(p) => <OrganizationSelect control={p} {...form.register("organizationId")} value={form.watch("organizationId")} />}
        </Field>
        <Field
          label="Platform"
          error={fieldMessage(form, "platformKey")}
          hint={
            managed
              ? `Callback URL the customer adds to its app: ${managed.callbackUrl}`
              : "Managed migrations exist for six platforms. Others are listed so you can tell the customer why not."
          }
        >
          {(p) => (
            <Select {...p} {...form.register("platformKey")} value={platformKey}>
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
        {unmanaged && !fieldMessage(form, "platformKey") ? (
          <Notice tone="warning" title={`${unmanaged.name} has no managed migration`}>
            {unmanaged.reason}
          </Notice>
        ) : null}
        <Field label="Owner" error={fieldMessage(form, "ownerId")} hint="The support person who carries the engagement through its steps.">
          {(p) => (
            // Controlled as well: the staff list arrives after the form, and the select must show the chosen owner.
            <Select {...p} {...form.register("ownerId")} value={form.watch("ownerId") ?? ""}>
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
