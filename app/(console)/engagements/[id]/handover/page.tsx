import type { Metadata } from "next";
import { requireStaff } from "@/app/(console)/console-access";
import { HandoverReport, reportPart } from "@/app/_components/handover/handover-report";
import { loadOrInterrupt } from "@/app/_components/load-or-interrupt";
import { getCaller } from "@/app/_trpc/server";
import { HANDOVER_MAX_PAGE_SIZE } from "@/core/migration/handover-schemas";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export const metadata: Metadata = { title: "Handover report" };

/** The printable handover report, for staff. */
export default async function ConsoleHandoverReportPage({ params, searchParams }: Props) {
  await requireStaff();
  const { id: engagementId } = await params;
  const part = reportPart((await searchParams).part);
  const caller = await getCaller();
  const [engagement, view] = await loadOrInterrupt(() => Promise.all([caller.engagements.get({ engagementId }), caller.handover.get({ engagementId })]));
  const page = view.handover ? await caller.handover.items({ engagementId, page: part, pageSize: HANDOVER_MAX_PAGE_SIZE }) : null;
  return (
    <HandoverReport
      engagement={engagement}
      view={view}
      page={page}
      backHref={`/engagements/${engagementId}`}
      partHref={(n) => `/engagements/${engagementId}/handover?part=${n}`}
    />
  );
}
