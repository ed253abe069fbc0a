import type { Metadata } from "next";
import { cache } from "react";
import { loadOrInterrupt } from "@/app/_components/load-or-interrupt";
import { prefetchSection } from "@/app/_trpc/prefetch-section";
import { getCaller, getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { PortalEngagementView } from "./portal-engagement";

type Params = Promise<{ id: string }>;
type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const loadEngagement = cache(async (engagementId: string) => (await getCaller()).engagements.get({ engagementId }));

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { id } = await params;
  const found = await loadEngagement(id).catch(() => null);
  return { title: found ? `${found.reference} · ${found.platform.name}` : "Engagement" };
}

export default async function PortalEngagementPage({ params, searchParams }: { params: Params; searchParams: SearchParams }) {
  const { id: engagementId } = await params;
  const engagement = await loadOrInterrupt(() => loadEngagement(engagementId));
  const queryClient = getQueryClient();
  queryClient.setQueryData(trpc.engagements.get.queryKey({ engagementId }), engagement);
  // The section the page opens on (a step with its data, or the activity) is in its first paint.
  await prefetchSection({ queryClient, trpc, engagement, viewer: "portal", searchParams: await searchParams });
  return (
    <HydrateClient>
      <PortalEngagementView engagementId={engagementId} />
    </HydrateClient>
  );
}
