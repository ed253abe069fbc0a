"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useAnnouncement } from "@/app/_components/use-announcement";
import { Badge, Button, CopyButton, Notice, ProgressBar, ResponsiveTable, type ResponsiveColumn } from "@/app/_components/ui";
import { formatDateTime, roleLabel } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import type { RouterOutputs } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";

type User = RouterOutputs["users"]["list"][number];

export function UserTable({ viewerId }: { viewerId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const users = useQuery(trpc.users.list.queryOptions());
  const { announce, region } = useAnnouncement();
  const setActive = useMutation(
    trpc.users.setActive.mutationOptions({
      onSuccess: async (_, input) => {
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.users.list.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.users.staff.queryKey() }),
        ]);
        const who = users.data?.find((u) => u.id === input.userId)?.name ?? "The user";
        announce({ tone: "success", text: `${who} is ${input.active ? "active again" : "deactivated"}.` });
      },
      onError: (e) => announce({ tone: "error", text: toFormError(e).message }),
    }),
  );
  const signOut = useMutation(
    trpc.users.signOutEverywhere.mutationOptions({
      onSuccess: (_, input) => {
        const who = users.data?.find((u) => u.id === input.userId)?.name ?? "The user";
        announce({ tone: "success", text: `${who} is signed out everywhere.` });
      },
      onError: (e) => announce({ tone: "error", text: toFormError(e).message }),
    }),
  );

  if (users.error) return <Notice tone="error">{toFormError(users.error).message}</Notice>;
  if (!users.data) return <ProgressBar label="Loading users" />;

  // Fit a laptop's width; below `lg` each person is a card headed by their name.
  const columns: ResponsiveColumn<User>[] = [
    {
      label: "Name",
      title: true,
      className: "font-medium",
      cell: (u) => (
        <>
          {u.name}
          {u.id === viewerId ? <span className="ml-1 text-xs font-normal text-slate-500">(you)</span> : null}
        </>
      ),
    },
    {
      label: "Email",
      cell: (u) => (
        <span className="inline-flex max-w-full items-center gap-1">
          <span className="break-all">{u.email}</span>
          <CopyButton value={u.email} label={`email ${u.email}`} />
        </span>
      ),
    },
    { label: "Role", cell: (u) => roleLabel(u.role) },
    { label: "Organisation", present: (u) => u.organizationName !== null, cell: (u) => u.organizationName ?? "—" },
    { label: "Last sign-in", className: "whitespace-nowrap text-slate-600", cell: (u) => (u.lastSignInAt ? formatDateTime(u.lastSignInAt) : "Never") },
    { label: "Status", cell: (u) => (u.active ? <Badge tone="success">Active</Badge> : <Badge tone="muted">Deactivated</Badge>) },
    {
      label: "Actions",
      labelHidden: true,
      className: "lg:text-right",
      cell: (u) =>
        u.id === viewerId ? null : (
          <span className="inline-flex flex-wrap gap-2 lg:flex-nowrap">
            {u.active ? (
              <Button size="sm" variant="ghost" pending={signOut.isPending && signOut.variables?.userId === u.id} onClick={() => signOut.mutate({ userId: u.id })}>
                Sign out everywhere
                <span className="sr-only"> {u.name}</span>
              </Button>
            ) : null}
            <Button
              size="sm"
              variant={u.active ? "secondary" : "primary"}
              pending={setActive.isPending && setActive.variables?.userId === u.id}
              onClick={() => setActive.mutate({ userId: u.id, active: !u.active })}
            >
              {u.active ? "Deactivate" : "Reactivate"}
              <span className="sr-only"> {u.name}</span>
            </Button>
          </span>
        ),
    },
  ];

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-600">
          New people join through an <Link href="/admin/invitations" className="font-medium text-indigo-700 underline">invitation</Link>.
        </p>
      </div>
      {region}
      <ResponsiveTable caption="Users" captionVisible={false} columns={columns} rows={users.data} rowKey={(u) => u.id} stackBelow="lg" dense />
    </div>
  );
}
