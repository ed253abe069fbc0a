import type { Metadata } from "next";
import { requireStaff } from "@/app/(console)/console-access";
import Link from "next/link";
import { PageHeader } from "@/app/_components/ui";
import { getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { NewEngagementForm } from "./new-engagement-form";

export const metadata: Metadata = { title: "New engagement" };

export default async function NewEngagementPage() {
  const viewer = await requireStaff();
  const queryClient = getQueryClient();
  await Promise.all([
    queryClient.prefetchQuery(trpc.organizations.list.queryOptions()),
    queryClient.prefetchQuery(trpc.platforms.list.queryOptions()),
    queryClient.prefetchQuery(trpc.users.staff.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <PageHeader
        eyebrow={
          <Link href="/engagements" className="hover:underline">
            ← Engagements
          </Link>
        }
        title="New engagement"
        description="Open a managed migration for a customer organisation on one of the six managed platforms."
      />
      <NewEngagementForm viewerId={viewer.id} />
    </HydrateClient>
  );
}
