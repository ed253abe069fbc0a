import "server-only";
import { loadOrInterrupt } from "@/app/_components/load-or-interrupt";
import { getCaller } from "@/app/_trpc/server";
import { HANDOVER_MAX_PAGE_SIZE } from "@/core/migration/handover-schemas";
import { HandoverReport, reportPart } from "./handover-report";

/** The route's own props: the engagement's id, and `?part=` for a report printed in parts. */
export type HandoverRouteProps = {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

/**
 * The printable handover report's page, the console's and the portal's alike: only where its links
 * lead differs (`engagementsPath`, the side's engagements). What a viewer may read is the
 * procedures' to decide (a customer reads it once support has produced it).
 */
export async function HandoverReportPage(props: HandoverRouteProps & { engagementsPath: "/engagements" | "/portal/engagements" }) {
  const { id: engagementId } = await props.params;
  const part = reportPart((await props.searchParams).part);
  const caller = await getCaller();
  const [engagement, view] = await loadOrInterrupt(() => Promise.all([caller.engagements.get({ engagementId }), caller.handover.get({ engagementId })]));
  const page = view.handover ? await caller.handover.items({ engagementId, page: part, pageSize: HANDOVER_MAX_PAGE_SIZE }) : null;
  const engagementHref = `${props.engagementsPath}/${engagementId}`;
  return (
    <HandoverReport
      engagement={engagement}
      view={view}
      page={page}
      backHref={engagementHref}
      partHref={(n) => `${engagementHref}/handover?part=${n}`}
    />
  );
}
