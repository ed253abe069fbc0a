import type { Metadata } from "next";
import { HandoverReportPage, type HandoverRouteProps } from "@/app/_components/handover/handover-report-page";

export const metadata: Metadata = { title: "Handover report" };

/** The printable handover report, for the engagement's customer (once support has produced it). */
export default async function PortalHandoverReportPage(props: HandoverRouteProps) {
  return <HandoverReportPage {...props} engagementsPath="/portal/engagements" />;
}
