import type { Metadata } from "next";
import { requireStaff } from "@/app/(console)/console-access";
import { cache } from "react";
import { loadOrInterrupt } from "@/app/_components/load-or-interrupt";
import { prefetchSection } from "@/app/_trpc/prefetch-section";
import { getCaller, getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { EngagementDetailView } from "./engagement-detail";

type Params = Promise<{ id: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** Read once per request, shared by the metadata and the page. */
const loadEngagement = cache(async (engagementId: string) => (await getCaller()).engagements.get({ engagementId }));

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  await requireStaff();
  const { id } = await params;
  const found = await loadEngagement(id).catch(() => null);
  return { title: found ? `${found.reference} · ${found.organization.name}` : "Engagement" };
}

export default async function EngagementPage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  await requireStaff();
  const { id } = await params;
  const engagementId = id;
  const engagement = await loadOrInterrupt(() => loadEngagement(engagementId));
  const queryClient = getQueryClient();
  // Seed the cache with what was just read, under the key the client component uses.
  queryClient.setQueryData(trpc.engagements.get.queryKey({ engagementId }), engagement);
  await Promise.all([
    // The section the page opens on (a step with its data, or the activity) is in its first paint.
    prefetchSection({ queryClient, trpc, engagement, viewer: "console", searchParams: await searchParams }),
    queryClient.prefetchQuery(trpc.users.staff.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <EngagementDetailView engagementId={engagementId} />
    </HydrateClient>
  );
}
