"use client";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { TestRunList, TestRunView } from "@/app/_components/migration/test-run-view";
import { ProgressBar } from "@/app/_components/ui";
import type { EngagementDetail } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";

/** How often a running test is read again. */
const POLL_MS = 2_000;

/**
 * Step 5 as the customer sees it: the single-company tests (and rehearsals) support ran, read
 * only, updating while one runs.
 */
export function PortalStep5Panel({ engagement }: { engagement: EngagementDetail }) {
  const trpc = useTRPC();
  const engagementId = engagement.id;
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const runs = useQuery(
    trpc.tests.list.queryOptions({ engagementId }, { refetchInterval: (q) => (q.state.data?.some((r) => r.active) ? POLL_MS : false) }),
  );
  const shownId = selectedId ?? runs.data?.[0]?.id ?? null;
  const run = useQuery({
    ...trpc.tests.get.queryOptions({ engagementId, runId: shownId ?? "" }, { refetchInterval: (q) => (q.state.data?.active ? POLL_MS : false) }),
    enabled: shownId !== null,
  });
  if (runs.isPending) return <ProgressBar label="Loading the tests" size="sm" />;
  if (!runs.data?.length) return <p className="text-sm text-slate-600">Support has not run the single-company test yet.</p>;
  return (
    <div className="space-y-4">
      {run.data ? <TestRunView run={run.data} /> : <ProgressBar label="Loading the test run" size="sm" />}
      {runs.data.length > 1 ? <TestRunList runs={runs.data} selectedId={shownId} onSelect={setSelectedId} /> : null}
    </div>
  );
}
