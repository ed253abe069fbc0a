"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useAnnouncement } from "@/app/_components/use-announcement";
import { Badge, Button, CopyButton, Notice, ProgressBar, Table, TBody, Td, Th, THead, Tr } from "@/app/_components/ui";
import { formatDateTime, roleLabel } from "@/app/_lib/labels";
import { toFormError } from "@/app/_lib/trpc-error";
import { useTRPC } from "@/app/_trpc/react";

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

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-600">
          New people join through an <Link href="/admin/invitations" className="font-medium text-indigo-700 underline">invitation</Link>.
        </p>
      </div>
      {region}
      <Table caption="Users">
        <THead>
          <Tr>
            <Th>Name</Th>
            <Th>Email</Th>
            <Th>Role</Th>
            <Th>Organisation</Th>
            <Th>Last sign-in</Th>
            <Th>Status</Th>
            <Th>
              <span className="sr-only">Actions</span>
            </Th>
          </Tr>
        </THead>
        <TBody>
          {users.data.map((u) => (
            <Tr key={u.id}>
              <Td className="font-medium">
                {u.name}
                {u.id === viewerId ? <span className="ml-1 text-xs font-normal text-slate-500">(you)</span> : null}
              </Td>
              <Td>
                <span className="inline-flex items-center gap-1">
                  {u.email}
                  <CopyButton value={u.email} label={`email ${u.email}`} />
                </span>
              </Td>
              <Td>{roleLabel(u.role)}</Td>
              <Td>{u.organizationName ?? "—"}</Td>
              <Td className="whitespace-nowrap text-slate-600">{u.lastSignInAt ? formatDateTime(u.lastSignInAt) : "Never"}</Td>
              <Td>{u.active ? <Badge tone="success">Active</Badge> : <Badge tone="muted">Deactivated</Badge>}</Td>
              <Td className="text-right">
                {u.id === viewerId ? null : (
                  <span className="inline-flex gap-2">
                    {u.active ? (
                      <Button
                        size="sm"
                        variant="ghost"
                        pending={signOut.isPending && signOut.variables?.userId === u.id}
                        onClick={() => signOut.mutate({ userId: u.id })}
                      >
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
                )}
              </Td>
            </Tr>
          ))}
        </TBody>
      </Table>
    </div>
  );
}
