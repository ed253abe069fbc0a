import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { TRPCError } from "@trpc/server";
import { cache } from "react";
import { Forbidden } from "@/app/_components/forbidden";
import { getCaller, getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { PortalEngagementView } from "./portal-engagement";

type Params = Promise<{ id: string }>;

const loadEngagement = cache(async (engagementId: string) => (await getCaller()).portal.engagement({ engagementId }));

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const { id } = await params;
  const found = await loadEngagement(id).catch(() => null);
  return { title: found ? `${found.reference} · ${found.platform.name}` : "Engagement" };
}

export default async function PortalEngagementPage({ params }: { params: Params }) {
  const { id: engagementId } = await params;
  let engagement;
  try {
    engagement = await loadEngagement(engagementId);
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    switch (error.code) {
      case "NOT_FOUND":
      case "BAD_REQUEST":
        notFound();
      case "FORBIDDEN":
        return <Forbidden message={error.message} homeHref="/portal" />;
      case "UNAUTHORIZED":
        redirect("/login");
      default:
        throw error;
    }
  }
  const queryClient = getQueryClient();
  queryClient.setQueryData(trpc.portal.engagement.queryKey({ engagementId }), engagement);
  await queryClient.prefetchQuery(trpc.portal.timeline.queryOptions({ engagementId }));
  return (
    <HydrateClient>
      <PortalEngagementView engagementId={engagementId} />
    </HydrateClient>
  );
}
