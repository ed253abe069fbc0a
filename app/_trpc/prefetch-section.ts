import "server-only";
/**
 * What the section an engagement's page opens on reads, read with the page on the server, so its
 * first paint holds the step's data (the submission, the windows, the tests, step 6's part) rather
 * than a progress bar that a client-side query fills 0.6–1 s later. The section is the one the
 * page itself will show (app/_lib/engagement-section.ts decides it the same way), and every query
 * is asked with the input its panel asks with, so the client finds it in the cache it is handed.
 * A prefetch that fails is left to the panel, which asks again and shows the refusal.
 */
import type { QueryClient } from "@tanstack/react-query";
import { defaultStep, defaultStep6Part, sectionFromParams } from "@/app/_lib/engagement-section";
import type { EngagementDetail } from "@/app/_lib/types";
import type { trpc as serverTrpc } from "./server";

type Trpc = typeof serverTrpc;
type SearchParams = Record<string, string | string[] | undefined>;

/** Rows per page of the bulk run's and the handover report's companies (bulk-items.tsx, handover-items.tsx). */
const ITEMS_PAGE = 25;

/** The URL's search parameters as the client's `useSearchParams` reads them (the first of a repeated one). */
function paramsOf(searchParams: SearchParams): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(searchParams)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) params.set(key, first);
  }
  return params;
}

/** Prefetches the shown section's queries for `viewer` (the console's support, or the portal's customer). */
export async function prefetchSection(params: {
  queryClient: QueryClient;
  trpc: Trpc;
  engagement: EngagementDetail;
  viewer: "console" | "portal";
  searchParams: SearchParams;
}): Promise<void> {
  const { queryClient, trpc, engagement: e, viewer } = params;
  const engagementId = e.id;
  const input = { engagementId };
  const section = sectionFromParams(paramsOf(params.searchParams), defaultStep(e.currentStep));
  if (section.kind === "activity") {
    await queryClient.prefetchQuery(trpc.engagements.timeline.queryOptions(input));
    return;
  }
  const locked = e.steps.find((s) => s.number === section.step)?.displayState === "locked";
  switch (section.step) {
    case 1:
      await queryClient.prefetchQuery(trpc.intake.get.queryOptions(input));
      return;
    case 2:
      if (!locked) await queryClient.prefetchQuery(trpc.windows.plan.queryOptions(input));
      return;
    case 3:
    case 4:
      await queryClient.prefetchQuery(trpc.confirmations.get.queryOptions(input));
      return;
    case 5: {
      const runs = await queryClient.fetchQuery(trpc.tests.list.queryOptions(input)).catch(() => []);
      const latest = runs[0]?.id;
      await Promise.all([
        latest ? queryClient.prefetchQuery(trpc.tests.get.queryOptions({ engagementId, runId: latest })) : null,
        // The company picker and what may be started: support's panel only.
        viewer === "console" ? queryClient.prefetchQuery(trpc.tests.items.queryOptions({ engagementId, search: undefined })) : null,
        viewer === "console" ? queryClient.prefetchQuery(trpc.tests.controls.queryOptions(input)) : null,
      ]);
      return;
    }
    case 6: {
      const mine = viewer === "portal" ? "customer" : "support";
      const theirs = viewer === "portal" ? "support" : "customer";
      const part =
        section.part ??
        defaultStep6Part({
          mine: e.waiting.moves[mine]?.action ?? null,
          theirs: e.waiting.moves[theirs]?.action ?? null,
          step6Done: e.steps.find((s) => s.number === 6)?.state === "done",
        });
      const page = { engagementId, pageSize: ITEMS_PAGE, page: 1 };
      await Promise.all([
        // The parts' counts, and the reconnections' and fresh tokens' own panels.
        queryClient.prefetchQuery(trpc.lastMile.get.queryOptions(input)),
        queryClient.prefetchQuery(trpc.supplementary.get.queryOptions(input)),
        part === "run" ? queryClient.prefetchQuery(trpc.bulk.overview.queryOptions(input)) : null,
        part === "run" ? queryClient.prefetchQuery(trpc.bulk.items.queryOptions(page)) : null,
        part === "handover" ? queryClient.prefetchQuery(trpc.handover.get.queryOptions(input)) : null,
        part === "handover" ? queryClient.prefetchQuery(trpc.handover.items.queryOptions(page)) : null,
      ]);
      return;
    }
    default: {
      const never: never = section.step;
      return never;
    }
  }
}
