import type { Metadata } from "next";
import { requireAdmin } from "@/app/(console)/console-access";
import { PageHeader } from "@/app/_components/ui";
import { getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { UserTable } from "./user-table";

export const metadata: Metadata = { title: "Users" };

export default async function UsersPage() {
  const viewer = await requireAdmin();
  await getQueryClient().prefetchQuery(trpc.users.list.queryOptions());
  return (
    <HydrateClient>
      <PageHeader
        title="Users"
        description="Staff and customer users. A deactivated user is signed out at their next request and cannot sign in."
      />
      <UserTable viewerId={viewer.id} />
    </HydrateClient>
  );
}
