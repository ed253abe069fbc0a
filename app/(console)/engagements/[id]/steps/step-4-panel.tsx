"use client";
import { useQuery } from "@tanstack/react-query";
import { SyncingRiskPanel } from "@/app/_components/intake/confirmation-panels";
import type { Announce } from "@/app/_components/use-announcement";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";

/**
 * Step 4 in the console: the risk from the file as the customer sees it. The customer confirms in
 * the portal; staff confirming on their behalf use Complete below, with a note, which records the
 * same evidence (the risk as it stood).
 */
export function ConsoleStep4Panel({ engagement, step }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  const trpc = useTRPC();
  const view = useQuery({ ...trpc.confirmations.get.queryOptions({ engagementId: engagement.id }), enabled: step.displayState !== "locked" });
  return view.data && step.displayState !== "locked" ? <SyncingRiskPanel risk={view.data.risk} /> : null;
}
