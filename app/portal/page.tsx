import type { Metadata } from "next";
import { PageHeader } from "@/app/_components/ui";
import { getCaller, getQueryClient, getViewer, HydrateClient, trpc } from "@/app/_trpc/server";
import { PAGE_SIZE } from "@/server/api/routers/shared.types";
import { PortalRequests } from "./engagement-requests";
import { PortalEngagementList } from "./portal-engagement-list";

export const metadata: Metadata = { title: "Your engagements" };

export default async function PortalHome() {
  // The layout turns away everyone but customers; pages render alongside it, so stay quiet here.
  if ((await getViewer())?.role !== "customer") return null;
  const me = await (await getCaller()).me.get();
  const queryClient = getQueryClient();
  // Everything the first paint shows: the list, the requests and the platforms the form offers.
  await Promise.all([
    queryClient.prefetchQuery(trpc.engagements.list.queryOptions({ page: 1, pageSize: PAGE_SIZE })),
    queryClient.prefetchQuery(trpc.requests.list.queryOptions()),
    queryClient.prefetchQuery(trpc.platforms.list.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <PageHeader
        title="Your engagements"
        description={`Token migrations for ${me.organizationName ?? "your organisation"}, and where each stands.`}
      />
      <div className="space-y-8">
        <PortalEngagementList />
        <PortalRequests />
      </div>
    </HydrateClient>
  );
}
