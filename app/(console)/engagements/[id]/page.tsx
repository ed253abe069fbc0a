import type { Metadata } from "next";
import { requireStaff } from "@/app/(console)/console-access";
import { EngagementPage, engagementMetadata, type EngagementRouteProps } from "@/app/_components/engagement/engagement-page";
import { EngagementDetailView } from "./engagement-detail";

export async function generateMetadata({ params }: Pick<EngagementRouteProps, "params">): Promise<Metadata> {
  await requireStaff();
  return engagementMetadata(params, (e) => e.organization.name);
}

/** An engagement's page for support. */
export default async function ConsoleEngagementPage(props: EngagementRouteProps) {
  await requireStaff();
  return <EngagementPage {...props} viewer="console" View={EngagementDetailView} />;
}
