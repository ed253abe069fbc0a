"use client";
import { useQuery } from "@tanstack/react-query";
import { SyncingRiskPanel } from "@/app/_components/intake/confirmation-panels";
import type { Announce } from "@/app/_components/use-announcement";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";
import { ConfirmStep } from "./confirm-step";

/** Step 4 in the portal: why syncing must be off, the risk from the file, and the customer's confirmation. */
export function PortalStep4Panel({ engagement, step, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  const trpc = useTRPC();
  const view = useQuery(trpc.confirmations.get.queryOptions({ engagementId: engagement.id }));
  if (step.displayState === "locked" || !view.data) return null;
  return (
    <div className="space-y-3">
      <SyncingRiskPanel risk={view.data.risk} />
      <ConfirmStep
        engagement={engagement}
        step={step}
        announce={announce}
        statement="Syncing in our old app is off for every company in the token file, and stays off until the migration is done."
        button="Confirm syncing is off"
      />
    </div>
  );
}
