import type { Metadata } from "next";
import { requireStaff } from "@/app/(console)/console-access";
import Link from "next/link";
import { Suspense } from "react";
import { buttonClasses, PageHeader } from "@/app/_components/ui";
import { parseEngagementFilters } from "@/app/_lib/engagement-filters";
import { getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { EngagementList } from "./engagement-list";
import { EngagementRequests } from "./engagement-requests";

export const metadata: Metadata = { title: "Engagements" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function EngagementsPage({ searchParams }: { searchParams: SearchParams }) {
  await requireStaff();
  const filters = parseEngagementFilters(await searchParams);
  const queryClient = getQueryClient();
  // The same parse as the client's, so the prefetched page is the one the table asks for.
  await Promise.all([
    queryClient.prefetchQuery(trpc.engagements.list.queryOptions(filters)),
    queryClient.prefetchQuery(trpc.users.staff.queryOptions()),
    queryClient.prefetchQuery(trpc.platforms.list.queryOptions()),
    queryClient.prefetchQuery(trpc.requests.list.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <PageHeader
        title="Engagements"
        description="Every managed migration, by where it stands in the six-step checklist."
        actions={
          <Link href="/engagements/new" className={buttonClasses()}>
            New engagement
          </Link>
        }
      />
      <div className="space-y-6">
        <EngagementRequests />
        <Suspense>
          <EngagementList />
        </Suspense>
      </div>
    </HydrateClient>
  );
}
