import type { Metadata } from "next";
import { requireAdmin } from "@/app/(console)/console-access";
import { PageHeader } from "@/app/_components/ui";
import { getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { Outbox, OUTBOX_PAGE_SIZE } from "./outbox";

export const metadata: Metadata = { title: "Outbox" };

export default async function OutboxPage() {
  await requireAdmin();
  // The first page as the list asks for it, so it is in the first paint.
  await getQueryClient().prefetchQuery(trpc.outbox.search.queryOptions({ search: undefined, status: undefined, page: 1, pageSize: OUTBOX_PAGE_SIZE }));
  return (
    <HydrateClient>
      <PageHeader
        title="Outbox"
        description="Every email Ferry sends, newest first; open one to read it. Without an SMTP server configured, this is where mail is delivered."
      />
      <Outbox />
    </HydrateClient>
  );
}
