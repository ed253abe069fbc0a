import type { Metadata } from "next";
import { requireStaff } from "@/app/(console)/console-access";
import { HandoverReportPage, type HandoverRouteProps } from "@/app/_components/handover/handover-report-page";

export const metadata: Metadata = { title: "Handover report" };

/** The printable handover report, for staff. */
export default async function ConsoleHandoverReportPage(props: HandoverRouteProps) {
  await requireStaff();
  return <HandoverReportPage {...props} engagementsPath="/engagements" />;
}
