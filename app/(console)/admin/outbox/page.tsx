import type { Metadata } from "next";
import { requireAdmin } from "@/app/(console)/console-access";
import { PageHeader } from "@/app/_components/ui";
import { getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { Outbox } from "./outbox";

export const metadata: Metadata = { title: "Outbox" };

export default async function OutboxPage() {
  await requireAdmin();
  await getQueryClient().prefetchQuery(trpc.outbox.list.queryOptions({ limit: 50 }));
  return (
    <HydrateClient>
      <PageHeader
        title="Outbox"
        description="Every email Ferry sends, newest first. Without an SMTP server configured, this is where mail is delivered."
      />
      <Outbox />
    </HydrateClient>
  );
}
