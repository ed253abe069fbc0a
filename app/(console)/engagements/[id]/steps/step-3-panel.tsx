"use client";
import { useQuery } from "@tanstack/react-query";
import { CallbackRoundTrip } from "@/app/_components/intake/callback-round-trip";
import { CallbackPanel } from "@/app/_components/intake/confirmation-panels";
import type { Announce } from "@/app/_components/use-announcement";
import type { EngagementDetail, StepView } from "@/app/_lib/types";
import { useTRPC } from "@/app/_trpc/react";

/**
 * Step 3 in the console: the callback URL and the steps the customer is shown, and the round trip
 * that proves it (support may start it with the customer on a call; its link is the customer's to
 * authorize). Staff confirming by hand on the customer's behalf use Complete below, with a note:
 * recorded as unproven.
 */
export function ConsoleStep3Panel({ engagement, step, announce }: { engagement: EngagementDetail; step: StepView; announce: Announce }) {
  const trpc = useTRPC();
  const view = useQuery(trpc.confirmations.get.queryOptions({ engagementId: engagement.id }));
  if (!view.data) return null;
  return (
    <div className="space-y-3">
      <CallbackPanel callback={view.data.callback} />
      <CallbackRoundTrip engagement={engagement} callbackUrl={view.data.callback.url} announce={announce} done={step.state === "done"} />
    </div>
  );
}
