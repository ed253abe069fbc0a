"use client";
import { useQuery } from "@tanstack/react-query";
import { CallbackPanel } from "@/app/_components/intake/confirmation-panels";
import type { Announce } from "@/app/_components/use-announcement";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";

/**
 * Step 3 in the console: the callback URL and the steps the customer is shown. The customer
 * confirms in the portal; staff confirming on their behalf use Complete below, with a note, which
 * records the same evidence.
 */
export function ConsoleStep3Panel({ engagement }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  const trpc = useTRPC();
  const view = useQuery(trpc.confirmations.get.queryOptions({ engagementId: engagement.id }));
  return view.data ? <CallbackPanel callback={view.data.callback} /> : null;
}
