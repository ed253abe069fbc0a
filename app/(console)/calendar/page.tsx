import type { Metadata } from "next";
import { requireStaff } from "@/app/(console)/console-access";
import { PageHeader } from "@/app/_components/ui";
import { parseCalendarParams } from "@/app/_lib/calendar-params";
import { getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { CalendarView } from "./calendar-view";

export const metadata: Metadata = { title: "Window calendar" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** Migration windows across engagements, a week or a month, rendered with its data on the server. */
export default async function CalendarPage({ searchParams }: { searchParams: SearchParams }) {
  await requireStaff();
  const query = parseCalendarParams(await searchParams);
  const client = getQueryClient();
  // The same parse as the client's, so the first paint has the windows, no spinner.
  await Promise.all([client.prefetchQuery(trpc.calendar.get.queryOptions(query)), client.prefetchQuery(trpc.calendar.feed.queryOptions())]);
  return (
    <HydrateClient>
      <PageHeader
        title="Window calendar"
        description="Proposed and agreed migration windows across engagements, in UTC. Windows on the same service target that together need more requests than its limits allow are flagged."
      />
      <CalendarView />
    </HydrateClient>
  );
}
