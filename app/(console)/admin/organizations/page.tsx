import type { Metadata } from "next";
import { requireAdmin } from "@/app/(console)/console-access";
import { PageHeader } from "@/app/_components/ui";
import { getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { Organizations } from "./organizations";

export const metadata: Metadata = { title: "Organisations" };

export default async function OrganizationsPage() {
  await requireAdmin();
  await getQueryClient().prefetchQuery(trpc.organizations.list.queryOptions());
  return (
    <HydrateClient>
      <PageHeader title="Organisations" description="Customer organisations. Their users see only their own engagements." />
      <Organizations />
    </HydrateClient>
  );
}
