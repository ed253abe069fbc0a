import type { Metadata } from "next";
import Link from "next/link";
import { requireStaff } from "@/app/(console)/console-access";
import { PageHeader } from "@/app/_components/ui";
import { getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { WorkloadView } from "./workload-view";

export const metadata: Metadata = { title: "Workload" };

/** The team's workload, rendered with its data on the server. */
export default async function WorkloadPage() {
  await requireStaff();
  const queryClient = getQueryClient();
  await Promise.all([queryClient.prefetchQuery(trpc.portfolio.workload.queryOptions()), queryClient.prefetchQuery(trpc.users.staff.queryOptions())]);
  return (
    <HydrateClient>
      <PageHeader
        title="Workload"
        eyebrow={
          <Link href="/portfolio" className="text-indigo-700 underline">
            Portfolio
          </Link>
        }
        description="Each person's open engagements by risk, support's moves among them, runs under way and windows in the next seven days. Open a person's engagements to hand one on."
      />
      <WorkloadView />
    </HydrateClient>
  );
}
