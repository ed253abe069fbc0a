import type { Metadata } from "next";
import { requireAdmin } from "@/app/(console)/console-access";
import { PageHeader } from "@/app/_components/ui";
import { getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { ServiceTargets } from "./targets";

export const metadata: Metadata = { title: "Service targets" };

export default async function ServiceTargetsPage() {
  await requireAdmin();
  await getQueryClient().prefetchQuery(trpc.targets.list.queryOptions());
  return (
    <HydrateClient>
      <PageHeader
        title="Service targets"
        description="Where engagements migrate into: each customer's own account on the service, which only that organisation's engagements may use, and Ferry's built-in sandbox for rehearsals. Keys are encrypted at rest and only ever shown masked."
      />
      <ServiceTargets />
    </HydrateClient>
  );
}
