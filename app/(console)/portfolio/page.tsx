import type { Metadata } from "next";
import { requireStaff } from "@/app/(console)/console-access";
import Link from "next/link";
import { buttonClasses, PageHeader } from "@/app/_components/ui";
import { parsePortfolioFilters } from "@/app/_lib/portfolio-filters";
import { getQueryClient, HydrateClient, trpc } from "@/app/_trpc/server";
import { PortfolioView } from "./portfolio-view";

export const metadata: Metadata = { title: "Portfolio" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** Support's home: every open engagement with its clock, rendered with its data on the server. */
export default async function PortfolioPage({ searchParams }: { searchParams: SearchParams }) {
  await requireStaff();
  const filters = parsePortfolioFilters(await searchParams);
  // The same parse as the client's, so the prefetched page is the one the view asks for: the
  // first paint has the rows, no spinner.
  await getQueryClient().prefetchQuery(trpc.portfolio.get.queryOptions(filters));
  return (
    <HydrateClient>
      <PageHeader
        title="Portfolio"
        description="Every open engagement, most urgent first: whose move, when it is due, the next window and the projected finish."
        actions={
          <>
            <Link href="/calendar" className={buttonClasses({ variant: "secondary" })}>
              Window calendar
            </Link>
            <Link href="/workload" className={buttonClasses({ variant: "secondary" })}>
              Workload by person
            </Link>
          </>
        }
      />
      <PortfolioView />
    </HydrateClient>
  );
}
