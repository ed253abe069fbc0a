import type { Metadata } from "next";
import { EngagementPage, engagementMetadata, type EngagementRouteProps } from "@/app/_components/engagement/engagement-page";
import { PortalEngagementView } from "./portal-engagement";

export async function generateMetadata({ params }: Pick<EngagementRouteProps, "params">): Promise<Metadata> {
  return engagementMetadata(params, (e) => e.platform.name);
}

/** An engagement's page for its customer. */
export default async function PortalEngagementPage(props: EngagementRouteProps) {
  return <EngagementPage {...props} viewer="portal" View={PortalEngagementView} />;
}
