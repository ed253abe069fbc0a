import "server-only";
import type { Metadata } from "next";
import { cache, type ComponentType } from "react";
import { loadOrInterrupt } from "@/app/_components/load-or-interrupt";
import type { EngagementDetail } from "@/app/_lib/types";
import { prefetchSection } from "@/app/_trpc/prefetch-section";
import { getCaller, getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";

/** The route's own props: the engagement's id, and the search parameters that name the section shown. */
export type EngagementRouteProps = {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

/** Read once per request, shared by the metadata and the page. */
const loadEngagement = cache(async (engagementId: string) => (await getCaller()).engagements.get({ engagementId }));

/** The tab's title: the engagement's reference and what names it for this side ("Engagement" when it cannot be read). */
export async function engagementMetadata(params: EngagementRouteProps["params"], name: (e: EngagementDetail) => string): Promise<Metadata> {
  const { id } = await params;
  const found = await loadEngagement(id).catch(() => null);
  return { title: found ? `${found.reference} · ${name(found)}` : "Engagement" };
}

/**
 * One engagement's page, the console's and the portal's alike: the engagement and the section the
 * page opens on (a step with its data, or the activity) are read on the server and handed to the
 * browser's cache under the keys `View` reads, so the first paint holds them.
 */
export async function EngagementPage(props: EngagementRouteProps & { viewer: "console" | "portal"; View: ComponentType<{ engagementId: string }> }) {
  const { viewer, View } = props;
  const { id: engagementId } = await props.params;
  const engagement = await loadOrInterrupt(() => loadEngagement(engagementId));
  const queryClient = getQueryClient();
  // Seed the cache with what was just read, under the key the client component uses.
  queryClient.setQueryData(trpc.engagements.get.queryKey({ engagementId }), engagement);
  await Promise.all([
    prefetchSection({ queryClient, trpc, engagement, viewer, searchParams: await props.searchParams }),
    // Support's details offer the owner's change, from the staff.
    viewer === "console" ? queryClient.prefetchQuery(trpc.users.staff.queryOptions()) : null,
  ]);
  return (
    <HydrateClient>
      <View engagementId={engagementId} />
    </HydrateClient>
  );
}
